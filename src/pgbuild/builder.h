// `pgrig pg build`: PostgreSQL compiled from an upstream release tarball or
// an unpacked source tree into PGRIG_HOME/pg/NAME (issue 29; docs/pg-build.md).
//
//   PGRIG_HOME/pg/NAME/            the installation (bin/, lib/, share/, include/)
//   PGRIG_HOME/pg/NAME/pgrig-build.json   what it was built from and with (Manifest)
//   PGRIG_HOME/pg/logs/NAME.log    configure's, make's and make install's output
//   PGRIG_HOME/pg/.work-NAME/      the unpacked source and the out-of-tree build,
//                                  removed when the build ends, however it ends
//
// Order: everything is checked before anything is created (the name, that
// it is new, that the source is a PostgreSQL tree, the profile, that the
// flags compile a test program with this machine's compiler); then unpack,
// configure (out of tree), make -jN (N = online CPUs), make install, the
// manifest.  A step that fails, or a cancel (Ctrl-C, SIGTERM: the caller's
// flag), stops the build, removes the installation and the work directory
// and keeps the log; the error names the step and quotes the log's first
// error line.  Compiles go through ccache when it is installed, with the
// work directory as its base so that two builds share what is the same.
//
// Only the server and its programs are built (`make`, not `make world`):
// no contrib module is used by pgrig's plans, no documentation.
#ifndef PGRIG_PGBUILD_BUILDER_H_
#define PGRIG_PGBUILD_BUILDER_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "pgbuild/manifest.h"
#include "pgbuild/recipe.h"

namespace pgrig::pgbuild {

struct BuildSpec {
  std::string source;  // a release tarball (.tar.gz, .tar.bz2, .tar.xz) or a source tree
  std::string name;
  BuildRequest request;
  std::string home;  // PGRIG_HOME
  int jobs = 0;      // 0: the online CPUs
  std::string cc = "gcc";
};

// What the source is, found without unpacking it whole.
struct SourceInfo {
  bool tarball = false;
  std::string version;  // "15.18"
  std::string top_dir;  // in a tarball: "postgresql-15.18"
};

// A build name: 1 to 64 of letters, digits, '.', '_' and '-', starting
// with a letter or digit (it names a directory).
Status ValidateBuildName(const std::string& name);

// A tarball (by `tar -tf`: one top directory holding configure and
// src/backend) or a tree (configure and src/backend); the version from
// configure's PACKAGE_VERSION or the top directory's name.
Result<SourceInfo> InspectSource(const std::string& path);

// The machine's side of a recipe: arch, llvm-config, clang, dtrace, the
// installed server's pg_config.
BuildMachine DetectBuildMachine();

// Whether `cc` compiles and links a test program with the recipe's CFLAGS
// and LDFLAGS; the error quotes the compiler's first line.
Status CheckFlagsCompile(const std::string& cc, const BuildRecipe& recipe);

// The first line of a build log that reads as an error ("error:",
// "configure: error:", "*** ...", "Error N"), trimmed; empty when none.
std::string FirstErrorLine(std::string_view log);

// What CheckBuild found: the source (absolute), what it is, the recipe
// and the compiler that compiled a test program with its flags.
struct CheckedBuild {
  std::string source;
  SourceInfo info;
  BuildRecipe recipe;
  std::string cc;  // the compiler's path
};

// Everything BuildPostgres checks before it creates anything: the name, that
// no build has it, the source, the profile on this machine, a compiler and
// make, and that the flags compile.  Creates nothing.
Result<CheckedBuild> CheckBuild(const BuildSpec& spec, const BuildMachine& machine);

// Whether an existing build `m` is what `want` asks for: the same profile,
// CFLAGS ending in the extra CFLAGS, every extra configure option, and (when
// `want_version` is not empty) the same PostgreSQL version.  The error names
// each difference and how to have the build made again.
Status CheckMadeAsRequested(const Manifest& m, const BuildRequest& want,
                            const std::string& want_version);

struct BuildProgress {
  std::function<void(const std::string& line)> line;  // one per step
};

// Builds spec.name.  `cancel`: stop when it turns true (nothing is left but
// the log).  The manifest of the new build on success.
Result<Manifest> BuildPostgres(const BuildSpec& spec, const BuildMachine& machine,
                               const BuildProgress& progress,
                               const std::atomic<bool>* cancel = nullptr);

// PGRIG_HOME/pg, and one build's directory and log.
std::string BuildsRoot(const std::string& home);
std::string BuildDir(const std::string& home, const std::string& name);
std::string BuildLog(const std::string& home, const std::string& name);

// Every build's manifest, by name; a directory without a readable
// manifest is listed with its error.
struct ListedBuild {
  std::string name;
  std::optional<Manifest> manifest;
  std::string error;
};
std::vector<ListedBuild> ListBuilds(const std::string& home);

// Removes a build's directory and log; NotFound when there is none.
Status RemoveBuild(const std::string& home, const std::string& name);

}  // namespace pgrig::pgbuild

#endif  // PGRIG_PGBUILD_BUILDER_H_
