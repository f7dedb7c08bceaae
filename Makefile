# Thin wrapper around CMake so the README's commands stay short.
#   make        build everything; the CLI lands in build/lwt
#   make demo   the main job: surface filtration of a synthetic 4096^2 milled surface, or
#               of FILE=scan.x3p (CUDA when a GPU is present, else the CPU)
#   make test   every test (installs what it needs), then the ASan+UBSan suite
#   make install PREFIX=/opt/lwt   build, then install headers, liblwt, the CLI, lwt.pc and
#               the CMake package under PREFIX (default /usr/local)
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build install demo test test-fast test-asan clean
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

test: test-fast test-asan

clean:
	rm -rf $(BUILD) $(BUILD)-asan
