// A stand-in PostgreSQL source tree for the build driver's tests
// (builder_test.cc, pg_cli_itest.cc): a configure script and a Makefile
// per directory that do what PostgreSQL's do in shape (write the build
// tree's Makefiles, compile, install bin/postgres and bin/pg_config) in a
// second.  Files in the tree
// change what it does: `fail-configure` (configure fails with a readline
// error), `fail-make` (a compiler error), `slow-make` (make sleeps 30 s),
// `link-server` holding a directory (install links that directory's
// postgres, initdb and pg_ctl instead of a stand-in postgres: a build whose
// cluster runs, made in a second).
// Test code only.
#ifndef PGRIG_PGBUILD_STAND_IN_TREE_FOR_TEST_H_
#define PGRIG_PGBUILD_STAND_IN_TREE_FOR_TEST_H_

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace pgrig::pgbuild {

inline constexpr char kConfigure[] = R"SH(#!/bin/sh
# A stand-in for PostgreSQL's configure: like prep_buildtree, a Makefile in
# the build tree for each directory of the source tree that has one.
PACKAGE_NAME='PostgreSQL'
PACKAGE_VERSION='15.99'
srcdir=$(cd "$(dirname "$0")" && pwd)
prefix=
for a in "$@"; do case "$a" in --prefix=*) prefix="${a#--prefix=}";; esac; done
echo "configure args: $*"
if [ -e "$srcdir/fail-configure" ]; then
  echo "checking for readline... no"
  echo "configure: error: readline library not found" >&2
  exit 1
fi
for mk in $(cd "$srcdir" && find . -name Makefile.in); do
  d=$(dirname "$mk")
  mkdir -p "$d"
  printf 'prefix = %s\nsrcdir = %s\n' "$prefix" "$srcdir" > "$d/Makefile"
  cat "$srcdir/$mk" >> "$d/Makefile"
done
)SH";

// The server's directory: makes its generated headers, then compiles (or
// fails, or takes 30 s; and fails when the headers were not made first, as
// PostgreSQL's objects would) and installs bin/postgres.
inline constexpr char kBackendMakefileIn[] =
    "all:\n"
    "\t@test -e generated.h || { echo 'x.c:1:10: fatal error: generated.h: No such file' >&2; "
    "exit 1; }\n"
    "\t@echo compiling\n"
    "\t@if [ -e $(srcdir)/fail-make ]; then echo 'x.c:1:1: error: expected \";\"' >&2; exit 1; "
    "fi\n"
    "\t@if [ -e $(srcdir)/slow-make ]; then sleep 30; fi\n"
    "generated-headers:\n"
    "\t@touch generated.h\n"
    "install:\n"
    "\tmkdir -p $(prefix)/bin\n"
    "\tif [ -s $(srcdir)/link-server ]; then for p in postgres initdb pg_ctl; do "
    "ln -s \"$$(cat $(srcdir)/link-server)/$$p\" $(prefix)/bin/$$p; done; "
    "else cp /bin/true $(prefix)/bin/postgres; fi\n";

inline constexpr char kPgConfigMakefileIn[] =
    "all:\n"
    "install:\n"
    "\tmkdir -p $(prefix)/bin\n"
    "\tprintf '#!/bin/sh\\necho \"-O2 stand-in\"\\n' > $(prefix)/bin/pg_config\n"
    "\tchmod +x $(prefix)/bin/pg_config\n";

// Every other directory: says it was made, installs nothing.
inline constexpr char kOtherMakefileIn[] =
    "all:\n"
    "\t@echo made $(CURDIR)\n"
    "install:\n";

// Writes the tree at `dir` (PACKAGE_VERSION 15.99), with a Makefile.in in
// each of `make_dirs` (a recipe's, BuildRecipe::make_dirs) and one more
// directory that a build must not enter (src/bin/psql).
inline void WriteStandInTree(const std::string& dir, const std::vector<std::string>& make_dirs) {
  std::filesystem::create_directories(dir + "/src/backend");
  std::ofstream(dir + "/configure") << kConfigure;
  chmod((dir + "/configure").c_str(), 0755);
  std::ofstream(dir + "/src/backend/main.c") << "int main(void) { return 0; }\n";
  for (const std::string& d : make_dirs) {
    std::filesystem::create_directories(dir + "/" + d);
    std::ofstream(dir + "/" + d + "/Makefile.in")
        << (d == "src/backend"         ? kBackendMakefileIn
            : d == "src/bin/pg_config" ? kPgConfigMakefileIn
                                       : kOtherMakefileIn);
  }
  std::filesystem::create_directories(dir + "/src/bin/psql");
  std::ofstream(dir + "/src/bin/psql/Makefile.in") << "all:\n\t@echo made psql\ninstall:\n";
}

}  // namespace pgrig::pgbuild

#endif  // PGRIG_PGBUILD_STAND_IN_TREE_FOR_TEST_H_
