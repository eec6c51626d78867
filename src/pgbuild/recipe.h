// How `pgrig pg build` configures PostgreSQL for a named profile (issue 29;
// docs/pg-build.md): one pure function from the request and what the
// machine has to the configure options, CFLAGS and environment, so that
// every profile's rule is unit-tested and `pg list` can say what a build
// was made with.
//
// The profiles, and why each exists:
//   default  configure's own choices (-O2 with gcc): the baseline every
//            other build is compared with;
//   distro   the flags the installed server was built with (its
//            `pg_config --configure` and `--cflags`), less what only
//            installs or packages it (directories, languages, auth
//            libraries); "is our own build as fast as the package?";
//   native   -O3 tuned for this CPU (-march=native on x86-64, -mcpu=native
//            on arm64), as published comparisons often build;
//   lse      arm64 only: -march=armv8-a+lse, atomics as LSE instructions
//            instead of LL/SC loops (the Ampere and Graviton guides' point);
//   lto      link-time optimisation (-flto=auto, gcc-ar/gcc-ranlib);
//   llvm     JIT through LLVM (--with-llvm), with LLVM_CONFIG and CLANG.
// A refused profile (lse on x86-64, llvm without LLVM's development files)
// is an error that says why and what to install, before anything is built.
// `--cflags` is appended to the profile's CFLAGS and `--configure` options
// to its configure options.
#ifndef PGRIG_PGBUILD_RECIPE_H_
#define PGRIG_PGBUILD_RECIPE_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace pgrig::pgbuild {

enum class Profile { kDefault, kDistro, kNative, kLse, kLto, kLlvm };

const char* ProfileName(Profile p);  // "default", "distro", ...
// The profile named as ProfileName spells it; the error lists the names.
Result<Profile> ParseProfile(std::string_view name);

// What the machine has that a profile depends on.
struct BuildMachine {
  std::string arch;         // `uname -m`: "x86_64", "aarch64"
  std::string llvm_config;  // the llvm-config program; empty: none
  std::string clang;        // the clang that matches it; empty: none
  bool dtrace = false;      // a `dtrace` program (systemtap-sdt-dev)
  // The installed server's pg_config (for distro); empty: none installed.
  std::string distro_configure;  // `pg_config --configure`
  std::string distro_cflags;     // `pg_config --cflags` (for the record)
};

struct BuildRequest {
  Profile profile = Profile::kDefault;
  std::string extra_cflags;                  // --cflags
  std::vector<std::string> extra_configure;  // --configure, one option each
};

struct BuildRecipe {
  std::vector<std::string> configure_args;  // before --prefix, which the builder adds
  // Variables for configure (CFLAGS, LDFLAGS, LLVM_CONFIG, AR...); CFLAGS
  // absent: configure's own.
  std::map<std::string, std::string> vars;
  std::string why;                   // one sentence: what the profile sets and why
  std::vector<std::string> dropped;  // distro options left out, each with its reason
  // The build tree's directories that `make -C DIR` and `make -C DIR
  // install` go through, in order: the static libraries the server links
  // (src/port, src/common), the server and what initdb loads
  // (Snowball dictionaries, PL/pgSQL, encoding conversions), the time zone
  // data, libpq, initdb, pg_ctl and pg_config, and LLVM's JIT provider when
  // configured --with-llvm.  Not psql, pgbench, pg_dump, ecpg or contrib:
  // pgrig uses none of them, and leaving them out saves a quarter of the
  // compile.
  std::vector<std::string> make_dirs;
};

Result<BuildRecipe> ResolveRecipe(const BuildRequest& request, const BuildMachine& machine);

// The words of `pg_config --configure`: single-quoted, separated by spaces
// ("'--prefix=/usr' 'CFLAGS=-g -O2'").  Unbalanced quotes are an error.
Result<std::vector<std::string>> SplitQuotedWords(std::string_view text);

}  // namespace pgrig::pgbuild

#endif  // PGRIG_PGBUILD_RECIPE_H_
