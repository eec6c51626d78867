// ResolveRecipe (pgbuild/recipe.h).
#include "pgbuild/recipe.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "common/strings.h"

namespace pgrig::pgbuild {
namespace {

constexpr std::array<std::pair<Profile, const char*>, 6> kProfiles = {{
    {Profile::kDefault, "default"},
    {Profile::kDistro, "distro"},
    {Profile::kNative, "native"},
    {Profile::kLse, "lse"},
    {Profile::kLto, "lto"},
    {Profile::kLlvm, "llvm"},
}};

bool IsArm64(const std::string& arch) { return arch == "aarch64" || arch == "arm64"; }

std::string LlvmMissing() {
  return "LLVM's development files are not installed (no llvm-config): apt-get install llvm-dev "
         "clang";
}

// "NAME=value" for a configure variable: NAME is upper case letters, digits
// and '_' (CFLAGS, LLVM_CONFIG, build_alias is not one we keep).
bool SplitVar(const std::string& word, std::string& name, std::string& value) {
  const size_t eq = word.find('=');
  if (eq == std::string::npos || eq == 0 || word.starts_with("--")) return false;
  name = word.substr(0, eq);
  value = word.substr(eq + 1);
  return true;
}

// Why a distro option is left out; empty: kept.
std::string DistroDropReason(const std::string& option, const BuildMachine& m) {
  auto starts = [&option](std::string_view p) { return option.starts_with(p); };
  if (option == "--enable-debug" || option == "--enable-thread-safety" ||
      option == "--with-gnu-ld" || option == "--enable-cassert" ||
      starts("--with-system-tzdata=") || starts("--with-segsize=") || starts("--with-blocksize=") ||
      starts("--with-wal-blocksize=")) {
    return "";
  }
  if (option == "--with-llvm") return m.llvm_config.empty() ? LlvmMissing() : "";
  if (option == "--enable-dtrace") {
    return m.dtrace ? "" : "no dtrace program here (apt-get install systemtap-sdt-dev)";
  }
  if (starts("--prefix=") || starts("--build=") || starts("--host=") ||
      option.find("dir=") != std::string::npos || option == "--disable-rpath") {
    return "where the package installs; pgrig installs under PGRIG_HOME/pg/NAME";
  }
  if (starts("--with-extra-version")) return "the package's version suffix";
  if (starts("--with-pgport")) return "the default port; pgrig chooses its own";
  if (option == "--disable-option-checking" || option == "--disable-silent-rules" ||
      option == "--disable-maintainer-mode" || option == "--disable-dependency-tracking") {
    return "the package build's bookkeeping";
  }
  return "a feature a benchmark server does not use (languages, authentication, XML, NLS, "
         "compression, tests), each needing its own development package";
}

}  // namespace

const char* ProfileName(Profile p) {
  for (const auto& [v, name] : kProfiles) {
    if (v == p) return name;
  }
  return "default";
}

Result<Profile> ParseProfile(std::string_view name) {
  std::vector<std::string> names;
  for (const auto& [v, n] : kProfiles) {
    if (name == n) return v;
    names.emplace_back(n);
  }
  return InvalidArgument(
      fmt::format("unknown build profile \"{}\" (one of: {})", name, Join(names, ", ")));
}

Result<std::vector<std::string>> SplitQuotedWords(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\n' || text[i] == '\t') {
      ++i;
      continue;
    }
    std::string word;
    while (i < text.size() && text[i] != ' ' && text[i] != '\n' && text[i] != '\t') {
      if (text[i] == '\'') {
        const size_t close = text.find('\'', i + 1);
        if (close == std::string_view::npos) {
          return InvalidArgument(
              fmt::format("an unclosed quote at character {} of \"{}\"", i + 1, text));
        }
        word.append(text.substr(i + 1, close - i - 1));
        i = close + 1;
      } else {
        word.push_back(text[i++]);
      }
    }
    out.push_back(std::move(word));
  }
  return out;
}

Result<BuildRecipe> ResolveRecipe(const BuildRequest& request, const BuildMachine& m) {
  BuildRecipe r;
  switch (request.profile) {
    case Profile::kDefault:
      r.why = "configure's own choices (-O2 with gcc): the baseline";
      break;
    case Profile::kDistro: {
      if (m.distro_configure.empty()) {
        return FailedPrecondition(
            "the distro profile copies the installed server's build flags, and no pg_config "
            "answered here (install the distribution's PostgreSQL, e.g. apt-get install "
            "postgresql-15)");
      }
      PGRIG_ASSIGN_OR_RETURN(std::vector<std::string> words, SplitQuotedWords(m.distro_configure));
      for (const std::string& w : words) {
        std::string name, value;
        if (SplitVar(w, name, value)) {
          if (name == "CFLAGS" || name == "CPPFLAGS" || name == "LDFLAGS" || name == "CXXFLAGS") {
            r.vars[name] = value;
          } else if (name == "LLVM_CONFIG" || name == "CLANG") {
            // This machine's own, below, when --with-llvm is kept.
          } else {
            r.dropped.push_back(w + ": a build tool's path");
          }
          continue;
        }
        const std::string why = DistroDropReason(w, m);
        if (why.empty()) {
          r.configure_args.push_back(w);
        } else {
          r.dropped.push_back(w + ": " + why);
        }
      }
      for (const std::string& a : r.configure_args) {
        if (a == "--with-llvm") {
          r.vars["LLVM_CONFIG"] = m.llvm_config;
          if (!m.clang.empty()) r.vars["CLANG"] = m.clang;
        }
      }
      r.why = "the installed server's configure options and CFLAGS, less what only packages it";
      break;
    }
    case Profile::kNative:
      r.vars["CFLAGS"] = IsArm64(m.arch) ? "-O3 -mcpu=native" : "-O3 -march=native";
      r.why = "-O3 tuned for this CPU, as published comparisons often build";
      break;
    case Profile::kLse:
      if (!IsArm64(m.arch)) {
        return InvalidArgument(fmt::format(
            "the lse profile is for arm64 machines (LSE atomics are an Armv8.1 feature); this "
            "one is {}",
            m.arch.empty() ? "not arm64" : m.arch));
      }
      r.vars["CFLAGS"] = "-O2 -march=armv8-a+lse";
      r.why = "atomics as LSE instructions (CAS, LDADD, SWP) instead of LL/SC loops";
      break;
    case Profile::kLto:
      r.vars["CFLAGS"] = "-O2 -flto=auto";
      r.vars["LDFLAGS"] = "-flto=auto";
      r.vars["AR"] = "gcc-ar";
      r.vars["RANLIB"] = "gcc-ranlib";
      r.why = "link-time optimisation across the server's files";
      break;
    case Profile::kLlvm:
      if (m.llvm_config.empty()) {
        return FailedPrecondition("the llvm profile builds JIT support, and " + LlvmMissing());
      }
      r.configure_args.push_back("--with-llvm");
      r.vars["LLVM_CONFIG"] = m.llvm_config;
      if (!m.clang.empty()) r.vars["CLANG"] = m.clang;
      r.why = "JIT compilation of expressions and tuple deforming through LLVM";
      break;
  }
  if (!request.extra_cflags.empty()) {
    // configure uses CFLAGS as given: keep its -O2 when the profile had none.
    auto it = r.vars.find("CFLAGS");
    const std::string base = it == r.vars.end() ? std::string("-O2") : it->second;
    r.vars["CFLAGS"] = base + " " + request.extra_cflags;
  }
  for (const std::string& o : request.extra_configure) {
    if (!o.starts_with("--")) {
      return InvalidArgument(
          fmt::format("--configure \"{}\": a configure option starts with \"--\"", o));
    }
    if (o.starts_with("--prefix") || o.find("dir=") != std::string::npos) {
      return InvalidArgument(fmt::format(
          "--configure \"{}\": pgrig installs each build under PGRIG_HOME/pg/NAME itself", o));
    }
    r.configure_args.push_back(o);
  }
  // src/port and src/common first: the static libraries postgres links,
  // which `make -jN -C src/backend` would make beside the link that needs
  // them and race (a distro build here failed with "No rule to make target
  // '../../src/common/libpgcommon_srv.a'"); PostgreSQL's top-level make
  // makes them first too.
  r.make_dirs = {"src/port",
                 "src/common",
                 "src/backend",
                 "src/backend/utils/mb/conversion_procs",
                 "src/backend/snowball",
                 "src/pl/plpgsql",
                 "src/timezone",
                 "src/interfaces/libpq",
                 "src/bin/initdb",
                 "src/bin/pg_ctl",
                 "src/bin/pg_config"};
  if (std::find(r.configure_args.begin(), r.configure_args.end(), "--with-llvm") !=
      r.configure_args.end()) {
    r.make_dirs.push_back("src/backend/jit/llvm");
  }
  return r;
}

}  // namespace pgrig::pgbuild
