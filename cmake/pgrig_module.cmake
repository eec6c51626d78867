# pgrig_module(NAME DEPS dep... [TEST_DEPS dep...])
#
# One static library per module, built from every *.cc in the module's
# directory except *_test.cc and *_benchmark.cc.  Every *_test.cc becomes a
# GoogleTest binary (registered with CTest); tests named *_itest.cc are
# integration tests that need the embedded cluster and get the label
# "integration"; *_serial_itest.cc ones also run alone (RUN_SERIAL).  Globbing keeps adding a file from touching shared CMake.
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
  cmake_parse_arguments(ARG "" "" "DEPS;TEST_DEPS" ${ARGN})
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
  if(PGRIG_BUILD_TESTS)
    file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
    file(GLOB itests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_itest.cc)
    foreach(t ${tests} ${itests})
      get_filename_component(tn ${t} NAME_WE)
      set(tsan "")
      foreach(pattern ${PGRIG_TSAN_TESTS})
        if("${name}/${tn}" MATCHES "^${pattern}$")
          set(tsan _tsan)
          set_property(GLOBAL APPEND PROPERTY PGRIG_TSAN_TARGETS ${tn})
          break()
        endif()
      endforeach()
      add_executable(${tn} ${t})
      target_link_libraries(${tn} PRIVATE pgrig_${name} ${ARG_TEST_DEPS}
                            GTest::gmock GTest::gtest_main)
      target_compile_definitions(${tn} PRIVATE
          PGRIG_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
          PGRIG_BINARY_DIR="${PROJECT_BINARY_DIR}")
      if(tn MATCHES "_itest$")
        target_link_libraries(${tn} PRIVATE pgrig_test_support)
        # Integration tests also run the pgrig executable (see the top level).
        set_property(GLOBAL APPEND PROPERTY PGRIG_ITESTS ${tn})
        # *_serial_itest.cc: tests that load the whole machine run alone.
        if(tn MATCHES "_serial_itest$")
          set(serial TRUE)
        else()
          set(serial FALSE)
        endif()
        gtest_discover_tests(${tn} DISCOVERY_TIMEOUT 60
                             PROPERTIES LABELS "integration${tsan}" TIMEOUT 900
                             FIXTURES_REQUIRED embedded_cluster RUN_SERIAL ${serial})
      else()
        gtest_discover_tests(${tn} DISCOVERY_TIMEOUT 60
                             PROPERTIES LABELS "unit${tsan}" TIMEOUT 300)
      endif()
    endforeach()
  endif()
endfunction()
