# Entry points for people and CI.  Everything goes through scripts/setup.sh
# (packages) and CMake (build); see README.md.
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
ARM64_BUILD ?= build-arm64
ARM64_SYSROOT ?= build-arm64-sysroot
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# -Werror (CMake option PGRIG_WERROR): off for everyday builds, on for every
# build that `make test` (and so CI) makes; `make test WERROR=OFF` turns it off.
WERROR ?= OFF

.PHONY: all setup build run test test-unit test-asan test-tsan format-check clean sysroot-arm64 build-arm64 test-arm64 package package-arm64

all: build

setup:
	@scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPGRIG_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The main job: embedded cluster, pgbench data at scale 10, a short benchmark.
run: build
	$(BUILD)/pgrig run

# The whole suite: unit, integration and packaging tests; the arm64 build's
# tests under qemu-user; then everything again under ASan+UBSan; then the
# engine's tests under ThreadSanitizer.  The arm64 sysroot comes first so
# that the native run also checks the LSE detection on Debian's arm64
# postgres.  Every build here has -Werror, and the sources must be as
# clang-format leaves them (format-check, first: it takes seconds).
test: WERROR = ON
test: format-check build sysroot-arm64
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory test-arm64 WERROR=$(WERROR)
	@$(MAKE) --no-print-directory test-asan WERROR=$(WERROR)
	@$(MAKE) --no-print-directory test-tsan WERROR=$(WERROR)

test-unit: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L unit

test-asan: setup
	@cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DPGRIG_SANITIZE=address,undefined \
	  -DPGRIG_BUILD_BENCH=OFF -DPGRIG_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

# ThreadSanitizer over the tests labelled "tsan" (PGRIG_TSAN_TESTS in
# CMakeLists.txt: the engine's, script's and pg's unit tests and the bench and
# compat tests, unit and integration), with pgrig itself built with TSan.
# Only the target tsan_suite is built.  Any report fails the test
# (halt_on_error); tsan.supp lists the known, explained exceptions.  The
# thousand-client test is left out: its 100 MB RSS bound cannot hold under
# TSan's shadow memory (266 MB measured), though TSan reports nothing there.
test-tsan: setup
	@cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPGRIG_SANITIZE=thread \
	  -DPGRIG_BUILD_BENCH=OFF -DPGRIG_WERROR=$(WERROR) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(TSAN_BUILD) -j $(JOBS) --target tsan_suite
	cd $(TSAN_BUILD) && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(abspath tsan.supp)" \
	  ctest --output-on-failure -j $(JOBS) -L tsan

# clang-format --dry-run over the tracked C++ files; `make test` runs it.
# `clang-format -i FILE` fixes a file it names.
format-check: setup
	@scripts/format-check.sh

# Arm64: Debian's arm64 libraries unpacked into $(ARM64_SYSROOT) (nothing is
# installed), a cross build with cmake/toolchain-aarch64.cmake, and its tests
# run under qemu-user: the unit tests, the comparisons with the native build
# (label arm64: facts on the fixture trees; init, bench and script values
# against a server the native pgrig starts) and the arm64 .deb (label package).
sysroot-arm64: setup
	@scripts/arm64-sysroot.sh $(ARM64_SYSROOT)

build-arm64: sysroot-arm64
	@cmake -S . -B $(ARM64_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPGRIG_BUILD_BENCH=OFF -DPGRIG_WERROR=$(WERROR) \
	  -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake -DPGRIG_ARM64_SYSROOT=$(abspath $(ARM64_SYSROOT)) \
	  -DPGRIG_NATIVE_BUILD_DIR=$(abspath $(BUILD)) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(ARM64_BUILD) -j $(JOBS) --target unit_tests

test-arm64: build build-arm64
	cd $(ARM64_BUILD) && ctest --output-on-failure -j $(JOBS) -L 'unit|arm64|package'

# Debian packages: $(BUILD)/pgrig_<version>_amd64.deb and pgrig-pgbench_<version>_amd64.deb
# (the pgbench -> pgrig link, in /usr/lib/pgrig/bin); package-arm64 makes the arm64 ones.
package: build
	cd $(BUILD) && cpack -G DEB

package-arm64: build-arm64
	cd $(ARM64_BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(ARM64_BUILD)
