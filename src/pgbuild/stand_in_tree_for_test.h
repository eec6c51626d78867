// A stand-in PostgreSQL source tree for the build driver's tests
// (builder_test.cc, pg_cli_itest.cc): a configure script and a Makefile
// that do what PostgreSQL's do in shape (write a Makefile, compile,
// install bin/postgres and bin/pg_config) in a second.  Files in the tree
// change what it does: `fail-configure` (configure fails with a readline
// error), `fail-make` (a compiler error), `slow-make` (make sleeps 30 s).
// Test code only.
#ifndef PGRIG_PGBUILD_STAND_IN_TREE_FOR_TEST_H_
#define PGRIG_PGBUILD_STAND_IN_TREE_FOR_TEST_H_

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace pgrig::pgbuild {

inline constexpr char kConfigure[] = R"(#!/bin/sh
# A stand-in for PostgreSQL's configure.
PACKAGE_NAME='PostgreSQL'
PACKAGE_VERSION='15.99'
srcdir=$(dirname "$0")
prefix=
for a in "$@"; do case "$a" in --prefix=*) prefix="${a#--prefix=}";; esac; done
echo "configure args: $*"
if [ -e "$srcdir/fail-configure" ]; then
  echo "checking for readline... no"
  echo "configure: error: readline library not found" >&2
  exit 1
fi
printf 'prefix = %s\nsrcdir = %s\n' "$prefix" "$srcdir" > Makefile
cat "$srcdir/Makefile.in" >> Makefile
)";

inline constexpr char kMakefileIn[] =
    "all:\n"
    "\t@echo compiling\n"
    "\t@if [ -e $(srcdir)/fail-make ]; then echo 'x.c:1:1: error: expected \";\"' >&2; exit 1; "
    "fi\n"
    "\t@if [ -e $(srcdir)/slow-make ]; then sleep 30; fi\n"
    "install:\n"
    "\tmkdir -p $(prefix)/bin\n"
    "\tcp /bin/true $(prefix)/bin/postgres\n"
    "\tprintf '#!/bin/sh\\necho \"-O2 stand-in\"\\n' > $(prefix)/bin/pg_config\n"
    "\tchmod +x $(prefix)/bin/pg_config\n";

// Writes the tree at `dir` (PACKAGE_VERSION 15.99).
inline void WriteStandInTree(const std::string& dir) {
  std::filesystem::create_directories(dir + "/src/backend");
  std::ofstream(dir + "/configure") << kConfigure;
  chmod((dir + "/configure").c_str(), 0755);
  std::ofstream(dir + "/Makefile.in") << kMakefileIn;
  std::ofstream(dir + "/src/backend/main.c") << "int main(void) { return 0; }\n";
}

}  // namespace pgrig::pgbuild

#endif  // PGRIG_PGBUILD_STAND_IN_TREE_FOR_TEST_H_
