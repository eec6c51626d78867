# Entry points for people and CI.  Everything goes through scripts/setup.sh
# (packages) and CMake (build); see README.md and docs/testing.md.
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
ARM64_BUILD ?= build-arm64
ARM64_SYSROOT ?= build-arm64-sysroot
JOBS ?= $(shell nproc)
# The native tests spend most of their time waiting on servers, sshd and
# each other (about 30% CPU at -j2 on 2 cores): twice as many at once, but
# no more than 4 beyond JOBS (they share one embedded cluster).
TEST_JOBS ?= $(shell n=$(JOBS); t=$$((2 * n)); [ $$t -gt 4 ] && t=4; [ $$t -lt $$n ] && t=$$n; echo $$t)
CMAKE_FLAGS ?=
# -Werror (CMake option PGRIG_WERROR): off for everyday builds, on for every
# build that `make test` (and so CI) makes; `make test WERROR=OFF` turns it off.
WERROR ?= OFF

# The four builds.  The native one keeps full debug information for pgrig
# (the build people debug and profile; `pgrig` itself is stripped into
# pgrig.debug) and line tables (-g1) for the test programs; the test-only
# builds keep line tables everywhere, which is all that sanitizer reports
# and backtraces read (PGRIG_DEBUG_INFO in CMakeLists.txt).
NATIVE_CMAKE = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPGRIG_DEBUG_INFO=mixed
ASAN_CMAKE = -DCMAKE_BUILD_TYPE=Debug -DPGRIG_SANITIZE=address,undefined -DPGRIG_BUILD_BENCH=OFF \
  -DPGRIG_DEBUG_INFO=lines
TSAN_CMAKE = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPGRIG_SANITIZE=thread -DPGRIG_BUILD_BENCH=OFF \
  -DPGRIG_DEBUG_INFO=lines
ARM64_CMAKE = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPGRIG_BUILD_BENCH=OFF -DPGRIG_DEBUG_INFO=lines \
  -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake -DPGRIG_ARM64_SYSROOT=$(abspath $(ARM64_SYSROOT)) \
  -DPGRIG_NATIVE_BUILD_DIR=$(abspath $(BUILD))
configure = cmake -S . -B $(1) -G Ninja $(2) -DPGRIG_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null

# `make test` runs in stages, each timed against a budget by scripts/stage.sh:
# a stage may use what the stages before it left of theirs (and is named when
# it does); one that runs past its budget and that is stopped and fails,
# saying so, before CI's 90-minute limit.  Seconds; set for a 2-core machine with an
# empty compiler cache (measured times and how they were set: docs/testing.md,
# "Stage budgets").  They add up to 87 minutes 40 seconds.
BUDGET_SETUP ?= 180
BUDGET_FORMAT ?= 20
BUDGET_ARM64_SYSROOT ?= 30
BUDGET_NATIVE_BUILD ?= 750
BUDGET_NATIVE_TESTS ?= 880
BUDGET_ARM64_BUILD ?= 470
BUDGET_ARM64_TESTS ?= 180
BUDGET_ASAN_BUILD ?= 710
BUDGET_ASAN_TESTS ?= 650
BUDGET_TSAN_BUILD ?= 310
BUDGET_TSAN_TESTS ?= 290
BUDGET_PG_BUILD ?= 790
STAGE = scripts/stage.sh
export PGRIG_STAGE_LOG ?= $(abspath $(BUILD))/stages.log

# PostgreSQL compiled for real twice (src/pgbuild/real_build_serial_itest.cc):
# CPU-bound for 11 to 14 minutes on two cores, so it is a stage of its own,
# the last (it may use whatever the stages before it left of their budgets),
# and the native run leaves it out.
REAL_PG_BUILD_TEST = ^RealPostgresBuild\.
NATIVE_CTEST = cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS) -E "$(REAL_PG_BUILD_TEST)"
PG_BUILD_CTEST = cd $(BUILD) && ctest --output-on-failure -R "$(REAL_PG_BUILD_TEST)"
ARM64_CTEST = cd $(ARM64_BUILD) && ctest --output-on-failure -j $(JOBS) -L "unit|arm64|package"
# The fault matrix, the fleet's integration tests (ssh to test hosts in
# network namespaces), the build clusters' (a dozen pgrig commands on
# clusters of their own) and the plans with builds (suites over two clusters
# of their own) run in the native build only: under ASan they took a fifth
# of the stage, which on session 22's slow guest ended 12 s inside its
# budget (docs/testing.md).  So do pgbench init's comparisons with pgbench
# (PgbenchInitITest.SameAsPgbench*: most of 200 s of ASan test time in
# session 24, the servers loading twice; pgrig's loader runs under ASan in
# the other init tests) and the suites killed mid-run (SettingsRecordTest:
# 120 s of servers restarting; the restore code they reach runs under ASan
# in CellSettingsServerTest), to make room for the PostgreSQL builds' stage.
# Nor do the sanitizers run the compatibility cases that check one
# expression, one \set or one refused option each against pgbench (a single
# client on a single thread; 232 tests, a fifth of the ASan and a quarter of
# the TSan tests' time in session 22's run): the expression, \set and option
# code runs under both in its unit tests and fuzz corpus replays, and the
# script, multi-client and debug-trace cases stay.  ASan leaves out the
# statistical instrument's Monte-Carlo simulations too (Instrument, RulesGrid:
# pure arithmetic, 300 s of ASan test time; their functions' unit tests stay).
SANITIZER_SKIPS = ^Compat/(ExprTest|DefineTest|OptionTest)\.
# The TPC-C transactions' effects are checked under ASan with prepared
# statements only: the simple protocol and stored procedures run the same
# C++ (the engine's libpq path, already covered) with other SQL, at ~40 s each.
# The signal test's C++ paths are the short run's; the runner's tpcc suite
# test (~30 s) runs the Measurer the cli's short run covers.
ASAN_TPCC_SKIPS = ^Ways/TpccTransactionsITest\..*/(simple|procedures)|^TpccRunCli\.AnInterrupted|^RunTpccSuiteTest\.
# The integration tests mostly wait (on servers, ssh, timers: a quarter of
# the CPU at -j4), so the ASan run uses the native run's parallelism.
ASAN_CTEST = cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(TEST_JOBS) \
  -E "FaultMatrixTest|^(FleetRun|FleetCheck|FleetHooks|ClientModeTest|SshTransportReal|NetnsHosts|RealPostgresBuild|BuildClusterTest|RunBuildsTest|Instrument|RulesGrid|SettingsRecordTest)\.|^PgbenchInitITest\.SameAsPgbench|$(ASAN_TPCC_SKIPS)|$(SANITIZER_SKIPS)"
TSAN_CTEST = cd $(TSAN_BUILD) && \
  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(abspath tsan.supp)" \
  ctest --output-on-failure -j $(JOBS) -L tsan -E "$(SANITIZER_SKIPS)"

.PHONY: all setup setup-run build build-pgrig run test test-pg-build test-unit test-asan test-tsan format-check clean \
  sysroot-arm64 build-arm64 test-arm64 package package-arm64 \
  native-build asan-build tsan-build arm64-build

all: build

setup:
	@scripts/setup.sh

# Everything of the native build: pgrig, the tests, the benchmarks.
build: setup native-build

# The main job: embedded cluster, pgbench data at scale 10, a short suite.
# Builds pgrig and nothing else.
run: setup-run build-pgrig
	$(BUILD)/pgrig run

setup-run:
	@scripts/setup.sh run

build-pgrig:
	@$(call configure,$(BUILD),$(NATIVE_CMAKE))
	@cmake --build $(BUILD) -j $(JOBS) --target pgrig

# The whole suite, in timed stages: the packages; the format check (seconds);
# the arm64 sysroot (so that the native run also checks the LSE detection on
# Debian's arm64 postgres); the native build and every CTest test (unit,
# integration on the embedded cluster, packaging, fuzz corpus replays); the
# arm64 build's tests under qemu-user; everything again under ASan+UBSan;
# the engine's tests under TSan.  Every build here has -Werror, and the
# sources must be as clang-format leaves them.  The stage times are printed
# at the end, whatever happened.
test: WERROR = ON
test:
	@rm -f $(PGRIG_STAGE_LOG); status=0; \
	{ $(STAGE) setup $(BUDGET_SETUP) scripts/setup.sh && \
	  $(STAGE) format-check $(BUDGET_FORMAT) scripts/format-check.sh && \
	  $(STAGE) arm64-sysroot $(BUDGET_ARM64_SYSROOT) scripts/arm64-sysroot.sh $(ARM64_SYSROOT) && \
	  $(STAGE) native-build $(BUDGET_NATIVE_BUILD) $(MAKE) --no-print-directory native-build WERROR=$(WERROR) && \
	  $(STAGE) native-tests $(BUDGET_NATIVE_TESTS) sh -c '$(NATIVE_CTEST)' && \
	  $(STAGE) arm64-build $(BUDGET_ARM64_BUILD) $(MAKE) --no-print-directory arm64-build WERROR=$(WERROR) && \
	  $(STAGE) arm64-tests $(BUDGET_ARM64_TESTS) sh -c '$(ARM64_CTEST)' && \
	  $(STAGE) asan-build $(BUDGET_ASAN_BUILD) $(MAKE) --no-print-directory asan-build WERROR=$(WERROR) && \
	  $(STAGE) asan-tests $(BUDGET_ASAN_TESTS) sh -c '$(ASAN_CTEST)' && \
	  $(STAGE) tsan-build $(BUDGET_TSAN_BUILD) $(MAKE) --no-print-directory tsan-build WERROR=$(WERROR) && \
	  $(STAGE) tsan-tests $(BUDGET_TSAN_TESTS) sh -c '$(TSAN_CTEST)' && \
	  $(STAGE) pg-build $(BUDGET_PG_BUILD) sh -c '$(PG_BUILD_CTEST)'; \
	} || status=$$?; \
	$(STAGE) --summary; exit $$status

# PostgreSQL built twice from the installed server's release tarball and run
# with --pg (issue 29; docs/pg-build.md): `make test`'s last stage, alone.
test-pg-build: build
	$(PG_BUILD_CTEST)

test-unit: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L unit

native-build:
	@$(call configure,$(BUILD),$(NATIVE_CMAKE))
	@cmake --build $(BUILD) -j $(JOBS)

asan-build:
	@$(call configure,$(ASAN_BUILD),$(ASAN_CMAKE))
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

test-asan: setup asan-build
	$(ASAN_CTEST)

# ThreadSanitizer over the tests labelled "tsan" (PGRIG_TSAN_TESTS in
# CMakeLists.txt: the engine's, script's and pg's unit tests and the bench and
# compat tests, unit and integration), with pgrig itself built with TSan.
# Only the target tsan_suite is built.  Any report fails the test
# (halt_on_error); tsan.supp lists the known, explained exceptions.  The
# thousand-client test is left out: its 100 MB RSS bound cannot hold under
# TSan's shadow memory (266 MB measured), though TSan reports nothing there.
tsan-build:
	@$(call configure,$(TSAN_BUILD),$(TSAN_CMAKE))
	@cmake --build $(TSAN_BUILD) -j $(JOBS) --target tsan_suite

test-tsan: setup tsan-build
	$(TSAN_CTEST)

# clang-format --dry-run over the tracked C++ files; `make test` runs it.
# `clang-format -i FILE` fixes a file it names.
format-check: setup
	@scripts/format-check.sh

# Arm64: Debian's arm64 libraries unpacked into $(ARM64_SYSROOT) (nothing is
# installed; any path: ARM64_SYSROOT=/elsewhere), a cross build with
# cmake/toolchain-aarch64.cmake, and its tests run under qemu-user: the unit
# tests, the comparisons with the native build (label arm64: facts on the
# fixture trees; init, bench and script values against a server the native
# pgrig starts) and the arm64 .deb (label package).
sysroot-arm64: setup
	@scripts/arm64-sysroot.sh $(ARM64_SYSROOT)

arm64-build:
	@$(call configure,$(ARM64_BUILD),$(ARM64_CMAKE))
	@cmake --build $(ARM64_BUILD) -j $(JOBS) --target unit_tests

build-arm64: sysroot-arm64 arm64-build

test-arm64: build build-arm64
	$(ARM64_CTEST)

# Debian packages: $(BUILD)/pgrig_<version>_amd64.deb, pgrig-pgbench_<version>_amd64.deb
# (the pgbench -> pgrig link, in /usr/lib/pgrig/bin) and pgrig-dbg_<version>_amd64.deb
# (the debug information); package-arm64 makes the arm64 ones.
package: build
	cd $(BUILD) && cpack -G DEB

package-arm64: build-arm64
	cd $(ARM64_BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(ARM64_BUILD)
