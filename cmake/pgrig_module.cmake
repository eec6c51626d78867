# pgrig_module(NAME DEPS dep... [TEST_DEPS dep...] [ITEST_RESOURCE_LOCK name])
#
# One static library per module, built from every *.cc in the module's
# directory except *_test.cc, *_itest.cc and *_benchmark.cc.  Globbing keeps
# adding a file from touching shared CMake.
#
# Tests: a module's test files become a few GoogleTest programs, not one per
# file (every program links the module's libraries with their debug
# information, and every link and every test discovery costs time): files
# are grouped by what CTest must know of them, and each group is one
# executable named after the module and the group:
#
#   <module>_tests               *_test.cc: unit tests, label "unit"
#   <module>_itests              *_itest.cc: integration tests on the embedded
#                                cluster, label "integration"
#   <module>_serial_itests       *_serial_itest.cc: integration tests that load
#                                the whole machine, also RUN_SERIAL
#   <module>_private_itests      *_private_itest.cc: integration tests that use
#                                only clusters of their own, never the shared
#                                one: they hold no resource lock
# With ITEST_RESOURCE_LOCK, the module's other integration tests hold that
# CTest resource lock: tests of every module naming the same lock run one at
# a time (the runner's suites, which refuse to share a server).
# With SERIAL_ITEST_TIMEOUT, the module's serial integration tests may run
# that many seconds instead of 900 (PostgreSQL compiled for real).
#   <module>_tsan_tests, ...     the same, for files matching PGRIG_TSAN_TESTS
#                                (labels "unit_tsan", "integration_tsan")
#
# With PGRIG_UNITY (top level) every target compiles as a few unity
# translation units (CMake's UNITY_BUILD), so the heavy headers (JSON, CLI11,
# fmt, gtest) are parsed and their inline code compiled once per batch rather
# than once per file.  A file's unnamed namespace is then shared with the
# other files of its batch: two files of one module (or of one test group)
# must not define the same file-local name.  Test names (TEST/TEST_F) must be
# unique within a module's group, as they are within one program.
#
# With PGRIG_DEBUG_INFO=mixed (the default) the test programs' own files are
# compiled with line tables only (-g1), the libraries with what the build
# type gives.
#
# Modules listed in PGRIG_CONVERSION_MODULES (top level) compile their
# library with -Wconversion and -Wsign-conversion: implicit narrowing and sign
# changes must be spelled out with a cast (docs/architecture.md).  Tests
# whose "NAME/<test file name>" matches a pattern of PGRIG_TSAN_TESTS (top
# level) are labelled "unit_tsan" or "integration_tsan" instead of "unit" or
# "integration" (one label: gtest_discover_tests flattens a list of them;
# `ctest -L` takes a regular expression, so -L unit still selects them) and
# join the target tsan_suite.
function(pgrig_module name)
  cmake_parse_arguments(ARG "" "ITEST_RESOURCE_LOCK;SERIAL_ITEST_TIMEOUT" "DEPS;TEST_DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  list(FILTER srcs EXCLUDE REGEX "_(test|itest|benchmark)\\.cc$")
  list(FILTER srcs EXCLUDE REGEX "/main\\.cc$")
  if(srcs)
    add_library(pgrig_${name} STATIC ${srcs})
    target_include_directories(pgrig_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(pgrig_${name} PUBLIC ${ARG_DEPS})
    if(name IN_LIST PGRIG_CONVERSION_MODULES)
      target_compile_options(pgrig_${name} PRIVATE -Wconversion -Wsign-conversion)
    endif()
  else()
    add_library(pgrig_${name} INTERFACE)
    target_include_directories(pgrig_${name} INTERFACE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(pgrig_${name} INTERFACE ${ARG_DEPS})
  endif()
  if(NOT PGRIG_BUILD_TESTS)
    return()
  endif()

  file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc
       ${CMAKE_CURRENT_SOURCE_DIR}/*_itest.cc)
  set(groups "")
  foreach(t ${tests})
    get_filename_component(tn ${t} NAME_WE)
    set(tsan "")
    foreach(pattern ${PGRIG_TSAN_TESTS})
      if("${name}/${tn}" MATCHES "^${pattern}$")
        set(tsan tsan_)
        break()
      endif()
    endforeach()
    if(tn MATCHES "_serial_itest$")
      set(kind serial_itests)
    elseif(tn MATCHES "_private_itest$")
      set(kind private_itests)
    elseif(tn MATCHES "_itest$")
      set(kind itests)
    else()
      set(kind tests)
    endif()
    set(group ${name}_${tsan}${kind})
    list(APPEND groups ${group})
    list(APPEND group_sources_${group} ${t})
  endforeach()
  list(REMOVE_DUPLICATES groups)

  foreach(g ${groups})
    add_executable(${g} ${group_sources_${g}})
    target_link_libraries(${g} PRIVATE pgrig_${name} ${ARG_TEST_DEPS} GTest::gmock
                          GTest::gtest_main)
    target_compile_definitions(${g} PRIVATE
        PGRIG_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
        PGRIG_BINARY_DIR="${PROJECT_BINARY_DIR}")
    if(PGRIG_DEBUG_INFO STREQUAL "mixed")
      # A test's own code is read only through backtraces: line tables do.
      target_compile_options(${g} PRIVATE $<$<CONFIG:RelWithDebInfo,Debug>:-g1>)
    endif()
    set(tsan "")
    if(g MATCHES "_tsan_")
      set(tsan _tsan)
      set_property(GLOBAL APPEND PROPERTY PGRIG_TSAN_TARGETS ${g})
    endif()
    if(g MATCHES "_itests$")
      target_link_libraries(${g} PRIVATE pgrig_test_support)
      # Integration tests also run the pgrig executable (see the top level).
      set_property(GLOBAL APPEND PROPERTY PGRIG_ITESTS ${g})
      set(serial FALSE)
      set(timeout 900)
      if(g MATCHES "_serial_itests$")
        set(serial TRUE)
        if(ARG_SERIAL_ITEST_TIMEOUT)
          set(timeout ${ARG_SERIAL_ITEST_TIMEOUT})
        endif()
      endif()
      set(lock "")
      if(ARG_ITEST_RESOURCE_LOCK AND NOT g MATCHES "_private_itests$")
        set(lock RESOURCE_LOCK ${ARG_ITEST_RESOURCE_LOCK})
      endif()
      # COST 10: without CTest's cost data (a fresh build directory, as in
      # CI) the integration tests, which take seconds to minutes, start
      # before the unit tests' milliseconds, which then fill the gaps at the
      # end; CTest's own measured costs replace it once a run has recorded them.
      gtest_discover_tests(${g} DISCOVERY_TIMEOUT 60
                           PROPERTIES LABELS "integration${tsan}" TIMEOUT ${timeout} COST 10
                           FIXTURES_REQUIRED embedded_cluster RUN_SERIAL ${serial} ${lock})
    else()
      set_property(GLOBAL APPEND PROPERTY PGRIG_UNIT_TEST_TARGETS ${g})
      gtest_discover_tests(${g} DISCOVERY_TIMEOUT 60
                           PROPERTIES LABELS "unit${tsan}" TIMEOUT 300)
    endif()
  endforeach()
endfunction()
