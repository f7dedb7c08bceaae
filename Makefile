# Thin wrapper around CMake so the README's commands stay short.
#   make        build everything; the CLI lands in build/lwt
#   make demo   the main job: surface filtration of a synthetic 4096^2 milled surface, or
#               of FILE=scan.x3p (CUDA when a GPU is present, else the CPU)
#   make test   every test (installs what it needs), then the ASan+UBSan suite, the fuzz
#               harnesses (corpus replay + 10 s of fuzzing each) and the ThreadSanitizer tests
#   make install PREFIX=/opt/lwt   build, then install headers, liblwt, the CLI, lwt.pc and
#               the CMake package under PREFIX (default /usr/local)
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build install demo test test-fast test-asan fuzz-build test-fuzz test-tsan clean
all: build

deps:
	@scripts/install-deps.sh build

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

demo: build
	@scripts/demo.sh $(BUILD)/lwt $(FILE)

test-fast: build
	@scripts/install-deps.sh test
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	@scripts/install-deps.sh test
	@cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DLWT_SANITIZE=ON -DLWT_WITH_CUDA=OFF >/dev/null
	@cmake --build $(BUILD)-asan -j $(JOBS)
	@cd $(BUILD)-asan && LWT_QUICK=1 ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

# tests/fuzz: libFuzzer harnesses of every file reader (clang, ASan+UBSan): the committed corpus
# replayed, then FUZZ_SECONDS of fuzzing per harness (scripts/fuzz.sh: longer runs by hand).
FUZZ_SECONDS ?= 10
CPU_ONLY = -DLWT_WITH_CUDA=OFF -DLWT_WITH_MPI=OFF -DLWT_BUILD_BENCH=OFF -DLWT_BUILD_PYTHON=OFF
fuzz-build: deps
	@scripts/install-deps.sh test
	@CC=clang cmake -S . -B $(BUILD)-fuzz -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DLWT_FUZZ=ON \
	  -DLWT_FUZZ_SECONDS=$(FUZZ_SECONDS) $(CPU_ONLY) >/dev/null
	@cmake --build $(BUILD)-fuzz -j $(JOBS) --target lwt_fuzzers

test-fuzz: fuzz-build
	@cd $(BUILD)-fuzz && ctest -L fuzz --output-on-failure -j $(JOBS)

# ThreadSanitizer over the threaded tests only (scheduler, stream CPU workers, one plan from many
# threads, the workspace cache), CPU only; clang's libomp with Archer (tests/CMakeLists.txt).
test-tsan: deps
	@scripts/install-deps.sh test
	@CC=clang cmake -S . -B $(BUILD)-tsan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DLWT_TSAN=ON \
	  $(CPU_ONLY) >/dev/null
	@cmake --build $(BUILD)-tsan -j $(JOBS) --target lwt_tsan_tests
	@cd $(BUILD)-tsan && ctest -L tsan --output-on-failure -j $(JOBS)

test: test-fast test-asan test-fuzz test-tsan

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-fuzz $(BUILD)-tsan
