# Arm64 support in the build (included at the end of the top-level CMakeLists.txt).
#
# - Target `unit_tests`: pgrig, every unit test program (<module>_tests,
#   <module>_tsan_tests) and the fuzz corpus replays (*_replay, CTest label
#   unit too), not the
#   integration tests, benchmarks or fuzz targets: what `make test-arm64`
#   builds in the cross build.
# - The LSE detection test's input: the arm64 `postgres` of Debian's
#   postgresql-15 in the sysroot (scripts/arm64-sysroot.sh).  Required in the
#   cross build; in a native build used when present.
# - In the cross build (CMAKE_CROSSCOMPILING), tests labelled "arm64" that run
#   the arm64 pgrig under qemu-user and compare it with the native build
#   (PGRIG_NATIVE_BUILD_DIR, default <source>/build): `facts` on the fixture
#   trees, and `init`/`bench`/scripts against a server the native pgrig starts.

set(PGRIG_ARM64_POSTGRES
    "${PROJECT_SOURCE_DIR}/build-arm64-sysroot/usr/lib/postgresql/15/bin/postgres"
    CACHE FILEPATH "an arm64 postgres binary for the LSE detection test")
if(CMAKE_CROSSCOMPILING AND PGRIG_ARM64_SYSROOT)
  set(PGRIG_ARM64_POSTGRES "${PGRIG_ARM64_SYSROOT}/usr/lib/postgresql/15/bin/postgres")
endif()

if(PGRIG_BUILD_TESTS)
  get_property(pgrig_unit_test_targets GLOBAL PROPERTY PGRIG_UNIT_TEST_TARGETS)
  get_property(pgrig_replay_targets GLOBAL PROPERTY PGRIG_FUZZ_REPLAY_TARGETS)
  add_custom_target(unit_tests DEPENDS pgrig ${pgrig_unit_test_targets} ${pgrig_replay_targets})

  # arm_atomics_test.cc is part of the host module's unit test program.
  if(TARGET host_tests)
    target_compile_definitions(host_tests PRIVATE PGRIG_ARM64_POSTGRES="${PGRIG_ARM64_POSTGRES}")
    if(CMAKE_CROSSCOMPILING)
      target_compile_definitions(host_tests PRIVATE PGRIG_ARM64_POSTGRES_REQUIRED=1)
    endif()
  endif()

  if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
    set(PGRIG_NATIVE_BUILD_DIR "${PROJECT_SOURCE_DIR}/build" CACHE PATH
        "the native build whose pgrig the arm64 one is compared with")
    add_test(NAME arm64_facts_match_native
             COMMAND ${PROJECT_SOURCE_DIR}/tests/arm64/facts_match.sh
                     ${PGRIG_NATIVE_BUILD_DIR}/pgrig $<TARGET_FILE:pgrig>
                     ${PROJECT_SOURCE_DIR}/tests/data/hosts ${CMAKE_CROSSCOMPILING_EMULATOR})
    add_test(NAME arm64_bench_matches_native
             COMMAND ${PROJECT_SOURCE_DIR}/tests/arm64/bench_match.sh
                     ${PGRIG_NATIVE_BUILD_DIR}/pgrig $<TARGET_FILE:pgrig> ${PGRIG_ARM64_SYSROOT}
                     ${CMAKE_CROSSCOMPILING_EMULATOR})
    set_tests_properties(arm64_facts_match_native arm64_bench_matches_native PROPERTIES
                         LABELS arm64 TIMEOUT 900)
  endif()
endif()
