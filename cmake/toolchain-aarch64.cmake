# Cross build for aarch64 (arm64) Linux on a Debian amd64 machine.
#
#   scripts/arm64-sysroot.sh                       # once: Debian's arm64 libraries, unpacked
#   cmake -S . -B build-arm64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
#   cmake --build build-arm64 && ctest --test-dir build-arm64 -L arm64
#
# Compiler: Debian's g++-aarch64-linux-gnu.  Headers and libraries: the sysroot
# that scripts/arm64-sysroot.sh prepares (default <source>/build-arm64-sysroot;
# override with -DPGRIG_ARM64_SYSROOT=DIR).  Tests and the programs CMake runs
# at build time run under qemu-user (qemu-aarch64-static from Debian's
# qemu-user-static) with the sysroot as the loader prefix, so no binfmt
# registration is needed.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(PGRIG_ARM64_SYSROOT "${CMAKE_CURRENT_LIST_DIR}/../build-arm64-sysroot" CACHE PATH
    "arm64 sysroot made by scripts/arm64-sysroot.sh")
get_filename_component(PGRIG_ARM64_SYSROOT "${PGRIG_ARM64_SYSROOT}" ABSOLUTE)
# CMake reads this file again for every try_compile (its compiler checks), in
# a project of its own where the cache above is not the caller's: hand the
# sysroot over, or a sysroot given with -DPGRIG_ARM64_SYSROOT would be looked
# for at the default path there.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES PGRIG_ARM64_SYSROOT)
if(NOT EXISTS "${PGRIG_ARM64_SYSROOT}/.pgrig-sysroot")
  message(FATAL_ERROR "No arm64 sysroot at ${PGRIG_ARM64_SYSROOT}: run scripts/arm64-sysroot.sh first "
                      "(or give -DPGRIG_ARM64_SYSROOT=DIR)")
endif()
set(CMAKE_SYSROOT "${PGRIG_ARM64_SYSROOT}")

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

find_program(PGRIG_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR "${PGRIG_QEMU_AARCH64};-L;${PGRIG_ARM64_SYSROOT}")

# Libraries, headers and CMake packages only from the sysroot; programs
# (pkg-config, the emulator) from the build machine.
set(CMAKE_FIND_ROOT_PATH "${PGRIG_ARM64_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config reads the sysroot's .pc files and prefixes their paths with it.
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${PGRIG_ARM64_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR}
    "${PGRIG_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${PGRIG_ARM64_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# The sysroot's shared libraries depend on others (libpq on libssl, libldap,
# ...) that the link must find without the build machine's /lib.
string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT
       " -Wl,-rpath-link,${PGRIG_ARM64_SYSROOT}/lib/aarch64-linux-gnu"
       " -Wl,-rpath-link,${PGRIG_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu")

