// BuildPostgres and the build store (pgbuild/builder.h).
#include "pgbuild/builder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include "common/clock.h"
#include "common/fs.h"
#include "common/process.h"
#include "common/strings.h"
#include "host/server_facts.h"

namespace pgrig::pgbuild {
namespace {

namespace fs = std::filesystem;

// `program` in $PATH (or as given when it holds a '/'); empty when absent.
std::string FindProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    return ::access(program.c_str(), X_OK) == 0 ? program : "";
  }
  const char* path = std::getenv("PATH");
  for (const std::string& dir : Split(path != nullptr ? path : "/usr/bin:/bin", ':')) {
    if (dir.empty()) continue;
    const std::string p = dir + "/" + program;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

bool EndsWithAny(const std::string& s, std::initializer_list<const char*> suffixes) {
  for (const char* x : suffixes) {
    if (s.ends_with(x)) return true;
  }
  return false;
}

// configure's PACKAGE_VERSION='15.18'.
std::string PackageVersion(const std::string& configure_text) {
  const std::string key = "PACKAGE_VERSION='";
  const size_t at = configure_text.find(key);
  if (at == std::string::npos) return "";
  const size_t end = configure_text.find('\'', at + key.size());
  if (end == std::string::npos) return "";
  return configure_text.substr(at + key.size(), end - at - key.size());
}

std::string FirstLineOf(const std::string& text) {
  for (const std::string& line : Split(text, '\n')) {
    const std::string_view t = Trim(line);
    if (!t.empty()) return std::string(t);
  }
  return "";
}

// Runs argv in `cwd` with its output appended to `log`; the step's status.
Status RunLogged(const std::string& step, const std::vector<std::string>& argv,
                 const std::string& cwd, const std::map<std::string, std::string>& env,
                 const std::string& log, const std::atomic<bool>* cancel) {
  ProcessOptions o;
  o.argv = {"sh", "-c", "exec \"$@\" >>\"$PGRIG_BUILD_LOG\" 2>&1", "sh"};
  o.argv.insert(o.argv.end(), argv.begin(), argv.end());
  o.env = env;
  o.env["PGRIG_BUILD_LOG"] = log;
  o.working_dir = cwd;
  o.cancel = cancel;
  auto r = RealProcessRunner().Run(o);
  if (!r.ok()) return Internal(step + ": " + r.status().message());
  if (r->cancelled) return Aborted(step + " was interrupted; the build was stopped");
  if (r->success()) return Status();
  std::string first;
  if (auto text = ReadWholeFile(log); text.ok()) first = FirstErrorLine(*text);
  return RuntimeError(fmt::format(
      "{} failed (exit {}; log {}){}", step,
      r->signal != 0 ? "signal " + std::to_string(r->signal) : std::to_string(r->exit_code), log,
      first.empty() ? "" : ": " + first));
}

}  // namespace

std::string BuildsRoot(const std::string& home) { return home + "/pg"; }
std::string BuildDir(const std::string& home, const std::string& name) {
  return BuildsRoot(home) + "/" + name;
}
std::string BuildLog(const std::string& home, const std::string& name) {
  return BuildsRoot(home) + "/logs/" + name + ".log";
}

Status ValidateBuildName(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64 && std::isalnum(static_cast<unsigned char>(name[0]));
  for (char c : name) {
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-');
  }
  if (!ok) {
    return InvalidArgument(fmt::format(
        "build name \"{}\": 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or "
        "digit",
        name));
  }
  return Status();
}

Result<SourceInfo> InspectSource(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return NotFound(fmt::format("the source {}: {}", path, std::strerror(errno)));
  }
  SourceInfo info;
  if (S_ISDIR(st.st_mode)) {
    auto configure = ReadWholeFile(path + "/configure");
    if (!configure.ok() || !fs::is_directory(path + "/src/backend")) {
      return InvalidArgument(fmt::format(
          "{} is not a PostgreSQL source tree (it needs configure and src/backend)", path));
    }
    info.version = PackageVersion(*configure);
    if (info.version.empty() || configure->find("PACKAGE_NAME='PostgreSQL'") == std::string::npos) {
      return InvalidArgument(fmt::format(
          "{}/configure is not PostgreSQL's (no PACKAGE_NAME='PostgreSQL' and PACKAGE_VERSION)",
          path));
    }
    return info;
  }
  if (!S_ISREG(st.st_mode) || !EndsWithAny(path, {".tar.gz", ".tgz", ".tar.bz2", ".tar.xz"})) {
    return InvalidArgument(fmt::format(
        "{} is neither a PostgreSQL source tree nor a release tarball (.tar.gz, .tar.bz2, "
        ".tar.xz)",
        path));
  }
  info.tarball = true;
  // The listing, streamed: one top directory with configure and src/backend.
  std::string pending;
  std::string top;
  bool configure = false, backend = false, mixed = false;
  auto take = [&](std::string_view entry) {
    const size_t slash = entry.find('/');
    const std::string_view head = entry.substr(0, slash);
    if (head.empty()) return;
    if (top.empty()) top = std::string(head);
    if (head != top) mixed = true;
    if (slash == std::string_view::npos) return;
    const std::string_view rest = entry.substr(slash + 1);
    if (rest == "configure") configure = true;
    if (rest.starts_with("src/backend/")) backend = true;
  };
  ProcessOptions o;
  o.argv = {"tar", "-tf", path};
  o.on_stdout = [&](std::string_view chunk) {
    pending.append(chunk);
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      take(std::string_view(pending).substr(0, nl));
      pending.erase(0, nl + 1);
    }
  };
  o.timeout = std::chrono::minutes(5);
  auto r = RealProcessRunner().Run(o);
  if (!r.ok()) return Internal("tar: " + r.status().message());
  if (!r->success()) {
    return InvalidArgument(
        fmt::format("{} is not a readable tarball: tar says: {}", path, FirstLineOf(r->err)));
  }
  if (!pending.empty()) take(pending);
  if (top.empty() || mixed || !configure || !backend) {
    return InvalidArgument(fmt::format(
        "{} is not a PostgreSQL release tarball (one top directory holding configure and "
        "src/backend)",
        path));
  }
  info.top_dir = top;
  // "postgresql-15.18"
  if (top.starts_with("postgresql-")) info.version = top.substr(11);
  if (info.version.empty()) {
    return InvalidArgument(fmt::format(
        "{}: its top directory \"{}\" does not name a version (postgresql-X.Y)", path, top));
  }
  return info;
}

BuildMachine DetectBuildMachine() {
  BuildMachine m;
  utsname u;
  if (::uname(&u) == 0) m.arch = u.machine;
  // llvm-config alone is not enough: configure needs LLVM's headers.
  const std::string llvm = FindProgram("llvm-config");
  if (!llvm.empty()) {
    auto inc = RunAndCapture(RealProcessRunner(), {.argv = {llvm, "--includedir"}});
    if (inc.ok() && fs::exists(std::string(Trim(*inc)) + "/llvm-c/Core.h")) m.llvm_config = llvm;
  }
  m.clang = FindProgram("clang");
  m.dtrace = !FindProgram("dtrace").empty();
  if (!FindProgram("pg_config").empty()) {
    auto conf = RunAndCapture(RealProcessRunner(), {.argv = {"pg_config", "--configure"}});
    auto cflags = RunAndCapture(RealProcessRunner(), {.argv = {"pg_config", "--cflags"}});
    if (conf.ok()) m.distro_configure = std::string(Trim(*conf));
    if (cflags.ok()) m.distro_cflags = std::string(Trim(*cflags));
  }
  return m;
}

Status CheckFlagsCompile(const std::string& cc, const BuildRecipe& recipe) {
  char tmpl[] = "/tmp/pgrig-pg-flags-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) {
    return Internal(std::string("mkdtemp: ") + std::strerror(errno));
  }
  const std::string dir = tmpl;
  Status s = WriteFileAtomically(
      dir + "/t.c", "#include <stdio.h>\nint main(void) { puts(\"ok\"); return 0; }\n");
  if (s.ok()) {
    std::vector<std::string> argv = {cc};
    auto add = [&argv, &recipe](const char* var) {
      auto it = recipe.vars.find(var);
      if (it == recipe.vars.end()) return;
      for (const std::string& w : SplitWords(it->second)) argv.push_back(w);
    };
    add("CPPFLAGS");
    add("CFLAGS");
    argv.insert(argv.end(), {dir + "/t.c", "-o", dir + "/t"});
    add("LDFLAGS");
    auto r = RealProcessRunner().Run({.argv = argv, .timeout = std::chrono::minutes(1)});
    if (!r.ok()) {
      s = FailedPrecondition(
          fmt::format("the compiler {} could not be run: {}", cc, r.status().message()));
    } else if (!r->success()) {
      auto cflags = recipe.vars.find("CFLAGS");
      s = InvalidArgument(fmt::format(
          "the flags do not compile a test program with {} (CFLAGS \"{}\"): {}", cc,
          cflags == recipe.vars.end() ? "" : cflags->second,
          FirstErrorLine(r->err).empty() ? FirstLineOf(r->err) : FirstErrorLine(r->err)));
    }
  }
  (void)RemoveTree(dir);
  return s;
}

std::string FirstErrorLine(std::string_view log) {
  std::string make_line;
  for (const std::string& line : Split(log, '\n')) {
    const std::string_view t = Trim(line);
    if (t.find("error:") != std::string_view::npos || t.find("Error:") != std::string_view::npos) {
      return std::string(t.substr(0, 300));
    }
    // make's own lines ("make[2]: *** ..."), not configure's banners that
    // start with "***" ("*** Without Bison you will not be able to ...").
    if (make_line.empty() && !t.starts_with("*** ") && t.find("*** ") != std::string_view::npos) {
      make_line = std::string(t.substr(0, 300));
    }
  }
  return make_line;
}

Result<CheckedBuild> CheckBuild(const BuildSpec& spec, const BuildMachine& machine) {
  PGRIG_RETURN_IF_ERROR(ValidateBuildName(spec.name));
  if (spec.home.empty()) return InvalidArgument("no PGRIG_HOME to build under");
  const std::string prefix = BuildDir(spec.home, spec.name);
  if (fs::exists(prefix)) {
    return FailedPrecondition(
        fmt::format("a build named \"{}\" exists ({}); remove it first (pgrig pg remove {})",
                    spec.name, prefix, spec.name));
  }
  CheckedBuild out;
  out.source = spec.source;
  if (!out.source.empty() && out.source[0] != '/') out.source = fs::absolute(out.source).string();
  PGRIG_ASSIGN_OR_RETURN(out.info, InspectSource(out.source));
  PGRIG_ASSIGN_OR_RETURN(out.recipe, ResolveRecipe(spec.request, machine));
  out.cc = FindProgram(spec.cc);
  if (out.cc.empty()) {
    return FailedPrecondition(
        fmt::format("no C compiler \"{}\" here (apt-get install build-essential)", spec.cc));
  }
  if (FindProgram("make").empty()) return FailedPrecondition("no make here (apt-get install make)");
  PGRIG_RETURN_IF_ERROR(CheckFlagsCompile(out.cc, out.recipe));
  return out;
}

Status CheckMadeAsRequested(const Manifest& m, const BuildRequest& want,
                            const std::string& want_version) {
  std::vector<std::string> differs;
  if (m.profile != ProfileName(want.profile)) {
    differs.push_back(fmt::format("profile {}, not {}", m.profile, ProfileName(want.profile)));
  }
  if (!want.extra_cflags.empty() && !m.cflags.ends_with(want.extra_cflags)) {
    differs.push_back(
        fmt::format("CFLAGS \"{}\" do not end in \"{}\"", m.cflags, want.extra_cflags));
  }
  for (const std::string& o : want.extra_configure) {
    if (std::find(m.configure_args.begin(), m.configure_args.end(), o) == m.configure_args.end()) {
      differs.push_back(fmt::format("configured without {}", o));
    }
  }
  if (!want_version.empty() && m.version != want_version) {
    differs.push_back(fmt::format("PostgreSQL {}, not {}", m.version, want_version));
  }
  if (differs.empty()) return Status::Ok();
  return FailedPrecondition(fmt::format(
      "build \"{}\" exists but was made differently ({}); remove it (pgrig pg remove {}) to "
      "have it made again, or give the entry another name",
      m.name, Join(differs, "; "), m.name));
}

Result<Manifest> BuildPostgres(const BuildSpec& spec, const BuildMachine& machine,
                               const BuildProgress& progress, const std::atomic<bool>* cancel) {
  auto say = [&progress](const std::string& line) {
    if (progress.line) progress.line(line);
  };
  const double started = WallSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  // Everything is checked before anything is created.
  PGRIG_ASSIGN_OR_RETURN(CheckedBuild checked, CheckBuild(spec, machine));
  const std::string& source = checked.source;
  const SourceInfo& info = checked.info;
  const BuildRecipe& recipe = checked.recipe;
  const std::string& cc = checked.cc;
  const std::string prefix = BuildDir(spec.home, spec.name);
  const bool ccache = !FindProgram("ccache").empty();
  const int jobs =
      spec.jobs > 0 ? spec.jobs : std::max(1, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));

  // Now the build: the work directory goes whatever happens, the
  // installation too unless the build completes.
  const std::string root = BuildsRoot(spec.home);
  const std::string work = root + "/.work-" + spec.name;
  const std::string log = BuildLog(spec.home, spec.name);
  PGRIG_RETURN_IF_ERROR(MakeDirs(root + "/logs"));
  (void)RemoveTree(work);  // a build killed before it could clean up
  PGRIG_RETURN_IF_ERROR(MakeDirs(work + "/build"));
  PGRIG_RETURN_IF_ERROR(WriteFileAtomically(log, ""));
  bool done = false;
  struct Cleanup {
    std::string work, prefix;
    const bool* done;
    ~Cleanup() {
      (void)RemoveTree(work);
      if (!*done) (void)RemoveTree(prefix);
    }
  } cleanup{work, prefix, &done};

  std::map<std::string, std::string> env;
  if (ccache) {
    // Paths under the work directory hash as relative ones, so builds of
    // different names share their objects.
    env["CCACHE_BASEDIR"] = work;
    env["CCACHE_NOHASHDIR"] = "true";
  }
  std::string srcdir = source;
  if (info.tarball) {
    say(fmt::format("unpacking {} (PostgreSQL {})", source, info.version));
    PGRIG_RETURN_IF_ERROR(
        RunLogged("unpacking", {"tar", "-xf", source, "-C", work}, work, env, log, cancel));
    srcdir = work + "/" + info.top_dir;
  }
  std::vector<std::string> configure = {srcdir + "/configure", "--prefix=" + prefix};
  configure.insert(configure.end(), recipe.configure_args.begin(), recipe.configure_args.end());
  std::map<std::string, std::string> vars = recipe.vars;
  if (!vars.contains("CC")) vars["CC"] = ccache ? "ccache " + cc : cc;
  for (const auto& [k, v] : vars) configure.push_back(k + "=" + v);
  say(fmt::format("configure: PostgreSQL {}, profile {} ({}); log {}", info.version,
                  ProfileName(spec.request.profile), recipe.why, log));
  // configure's hundreds of test programs are never compiled twice: caching
  // them only costs time.
  std::map<std::string, std::string> configure_env = env;
  if (ccache) configure_env["CCACHE_DISABLE"] = "1";
  PGRIG_RETURN_IF_ERROR(
      RunLogged("configure", configure, work + "/build", configure_env, log, cancel));
  say(
      fmt::format("compile: make -j{}{} of the server, initdb, pg_ctl and pg_config ({} "
                  "directories)",
                  jobs, ccache ? " through ccache" : "", recipe.make_dirs.size()));
  // The generated headers (lwlocknames.h, the catalog's, gram.h) first and
  // alone, as PostgreSQL's top-level make does: `make -jN -C src/backend`
  // would make them beside the objects that include them, and race.
  PGRIG_RETURN_IF_ERROR(RunLogged("compile", {"make", "-C", "src/backend", "generated-headers"},
                                  work + "/build", env, log, cancel));
  for (const std::string& dir : recipe.make_dirs) {
    PGRIG_RETURN_IF_ERROR(RunLogged("compile", {"make", "-j" + std::to_string(jobs), "-C", dir},
                                    work + "/build", env, log, cancel));
  }
  say("install: " + prefix);
  for (const std::string& dir : recipe.make_dirs) {
    PGRIG_RETURN_IF_ERROR(
        RunLogged("install", {"make", "-C", dir, "install"}, work + "/build", env, log, cancel));
  }

  Manifest m;
  m.name = spec.name;
  m.version = info.version;
  m.source = source;
  m.profile = ProfileName(spec.request.profile);
  if (auto v = RunAndCapture(RealProcessRunner(), {.argv = {cc, "--version"}}); v.ok()) {
    m.compiler = FirstLineOf(*v);
  }
  if (auto it = vars.find("CFLAGS"); it != vars.end()) m.cflags = it->second;
  m.configure_args.assign(configure.begin() + 1, configure.end());
  if (auto c =
          RunAndCapture(RealProcessRunner(), {.argv = {prefix + "/bin/pg_config", "--cflags"}});
      c.ok()) {
    m.pg_config_cflags = std::string(Trim(*c));
  }
  m.ccache = ccache;
  m.binary = host::ScanServerBinary(prefix + "/bin/postgres");
  m.size_bytes = TreeSize(prefix);
  m.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.built_at = IsoTimestampUtc(started);
  PGRIG_RETURN_IF_ERROR(
      WriteFileAtomically(prefix + "/" + kManifestFile, ManifestToJson(m).dump(2) + "\n"));
  done = true;
  return m;
}

std::vector<ListedBuild> ListBuilds(const std::string& home) {
  std::vector<ListedBuild> out;
  const std::string root = BuildsRoot(home);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    if (!e.is_directory() || name.starts_with(".") || name == "logs") continue;
    ListedBuild b{.name = name};
    const std::string path = e.path().string() + "/" + kManifestFile;
    auto text = ReadWholeFile(path);
    if (!text.ok()) {
      b.error = "no manifest (" + text.status().message() + ")";
    } else {
      auto j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded()) {
        b.error = path + ": not JSON";
      } else if (auto m = ManifestFromJson(j, path); m.ok()) {
        b.manifest = std::move(*m);
      } else {
        b.error = m.status().message();
      }
    }
    out.push_back(std::move(b));
  }
  std::sort(out.begin(), out.end(),
            [](const ListedBuild& a, const ListedBuild& b) { return a.name < b.name; });
  return out;
}

Status RemoveBuild(const std::string& home, const std::string& name) {
  PGRIG_RETURN_IF_ERROR(ValidateBuildName(name));
  const std::string dir = BuildDir(home, name);
  if (!fs::is_directory(dir)) {
    return NotFound(fmt::format("no build named \"{}\" ({} does not exist)", name, dir));
  }
  PGRIG_RETURN_IF_ERROR(RemoveTree(dir));
  (void)::unlink(BuildLog(home, name).c_str());
  return Status();
}

}  // namespace pgrig::pgbuild
