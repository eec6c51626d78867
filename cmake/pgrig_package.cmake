# Installation and Debian packages (included at the end of the top-level CMakeLists.txt).
#
#   cmake --install build --prefix /opt/pgrig            # pgrig, catalog, plans, docs
#   cmake --install build --prefix /opt/pgrig --component pgbench   # + the pgbench link
#   cmake --build build --target package                 # build/pgrig_<v>_<arch>.deb (+ -pgbench)
#
# Layout under the prefix (what cost/catalog.cc's search path and the plan
# reader look for):
#   bin/pgrig
#   share/pgrig/prices.toml           the price catalog
#   share/pgrig/plans/                the shipped plans (when the tree has plans/)
#   share/doc/pgrig/                  README.md and docs/*.md
#   lib/pgrig/bin/pgbench -> ../../../bin/pgrig    component "pgbench", not installed by default
#   lib/debug/usr/bin/pgrig.debug     component "dbg", not installed by default: the
#                                     debug information src/cli/CMakeLists.txt moves
#                                     out of the executable; gdb and perf find it through
#                                     the executable's .gnu_debuglink when the prefix is /usr
#
# The pgbench link is kept off PATH on purpose: /usr/bin/pgbench belongs to
# Debian's postgresql-client-common.  Whoever wants pgrig to answer to
# "pgbench" puts PGRIG_PGBENCH_LINK_DIR first on PATH (or sets it to bin).
include(GNUInstallDirs)

set(PGRIG_PGBENCH_LINK_DIR "${CMAKE_INSTALL_LIBDIR}/pgrig/bin" CACHE STRING
    "where component 'pgbench' puts the pgbench -> pgrig link (relative to the prefix)")
if(IS_ABSOLUTE "${PGRIG_PGBENCH_LINK_DIR}")
  message(FATAL_ERROR "PGRIG_PGBENCH_LINK_DIR must be relative to the install prefix, "
                      "not ${PGRIG_PGBENCH_LINK_DIR}")
endif()

install(TARGETS pgrig RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT pgrig)
install(FILES data/prices.toml DESTINATION ${CMAKE_INSTALL_DATADIR}/pgrig COMPONENT pgrig)
if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/plans)
  install(DIRECTORY plans/ DESTINATION ${CMAKE_INSTALL_DATADIR}/pgrig/plans COMPONENT pgrig)
endif()
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT pgrig)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT pgrig
        FILES_MATCHING PATTERN "*.md")

# The link is made in the build tree and installed as a link (file(INSTALL)
# keeps symlinks), relative so that it survives DESTDIR and relocation.
cmake_path(RELATIVE_PATH CMAKE_INSTALL_BINDIR BASE_DIRECTORY "${PGRIG_PGBENCH_LINK_DIR}"
           OUTPUT_VARIABLE pgrig_link_up)
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/pgbench-link)
file(CREATE_LINK "${pgrig_link_up}/pgrig" ${PROJECT_BINARY_DIR}/pgbench-link/pgbench SYMBOLIC)
install(FILES ${PROJECT_BINARY_DIR}/pgbench-link/pgbench DESTINATION ${PGRIG_PGBENCH_LINK_DIR}
        COMPONENT pgbench EXCLUDE_FROM_ALL)

set(pgrig_dbg_component OFF)
if(CMAKE_OBJCOPY AND NOT PGRIG_SANITIZE)
  set(pgrig_dbg_component ON)
  install(FILES $<TARGET_FILE:pgrig>.debug DESTINATION lib/debug/usr/${CMAKE_INSTALL_BINDIR}
          COMPONENT dbg EXCLUDE_FROM_ALL)
endif()

# Debian packages: pgrig_<version>_<arch>.deb, pgrig-pgbench_<version>_<arch>.deb
# and pgrig-dbg_<version>_<arch>.deb (the debug information).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(pgrig_deb_arch arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(pgrig_deb_arch amd64)
else()
  set(pgrig_deb_arch ${CMAKE_SYSTEM_PROCESSOR})
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pgrig)
set(CPACK_PACKAGE_VENDOR "pgrig")
set(CPACK_PACKAGE_CONTACT "pgrig maintainers <pgrig@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "PostgreSQL benchmarking toolkit: pgbench-compatible load, host facts, tuner, cost model")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL pgrig pgbench)
if(pgrig_dbg_component)
  list(APPEND CPACK_COMPONENTS_ALL dbg)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${pgrig_deb_arch})
set(CPACK_DEBIAN_PACKAGE_SECTION database)
# Explicit rather than dpkg-shlibdeps, which cannot resolve the libraries of a
# cross build's sysroot.  tests/packaging/deb_test.sh checks that every
# library the executable needs (readelf NEEDED) comes from a package named
# here.  Minimum versions: those of Debian 12, the oldest release built for.
set(CPACK_DEBIAN_PGRIG_PACKAGE_NAME pgrig)
set(CPACK_DEBIAN_PGRIG_PACKAGE_DEPENDS
    "libc6 (>= 2.34), libgcc-s1 (>= 3.0), libstdc++6 (>= 12), libpq5 (>= 15), liburing2 (>= 2.3), libfmt9 (>= 9.1.0), libtomlplusplus3 (>= 3.3.0)")
set(CPACK_DEBIAN_PGRIG_PACKAGE_RECOMMENDS "postgresql-15 | postgresql, postgresql-client-15 | postgresql-client")
set(CPACK_DEBIAN_PGBENCH_PACKAGE_NAME pgrig-pgbench)
set(CPACK_COMPONENT_PGBENCH_DESCRIPTION
    "pgbench -> pgrig link in /usr/lib/pgrig/bin (put that directory first on PATH)")
set(CPACK_COMPONENT_PGBENCH_DEPENDS pgrig)
set(CPACK_DEBIAN_DBG_PACKAGE_NAME pgrig-dbg)
set(CPACK_DEBIAN_DBG_PACKAGE_SECTION debug)
set(CPACK_COMPONENT_DBG_DESCRIPTION
    "debug information for pgrig (/usr/lib/debug/usr/bin/pgrig.debug, found by gdb and perf)")
set(CPACK_COMPONENT_DBG_DEPENDS pgrig)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
include(CPack)

# The packaging tests: the installed layout (`cmake --install`), and each
# .deb unpacked and run from a scratch directory (under qemu-user when cross
# built).  Label "package"; they build the packages themselves.  Not in
# sanitizer builds: nothing is packaged from those.
if(PGRIG_BUILD_TESTS AND NOT PGRIG_SANITIZE)
  set(pgrig_emulator "")
  if(CMAKE_CROSSCOMPILING_EMULATOR)
    set(pgrig_emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
  endif()
  add_test(NAME package_install_layout
           COMMAND ${PROJECT_SOURCE_DIR}/tests/packaging/install_test.sh
                   ${CMAKE_COMMAND} ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${pgrig_emulator})
  add_test(NAME package_deb
           COMMAND ${PROJECT_SOURCE_DIR}/tests/packaging/deb_test.sh
                   ${CMAKE_CPACK_COMMAND} ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                   ${pgrig_deb_arch} ${pgrig_emulator})
  set_tests_properties(package_install_layout package_deb PROPERTIES
                       LABELS package TIMEOUT 600 RESOURCE_LOCK pgrig_package)
endif()
