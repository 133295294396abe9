# leakray top-level Makefile: thin wrapper over CMake + ctest.
#   make            build (CLI at build/leakray; JVM agent build/libleakray_agent.so and
#                   build/leakray-watcher.jar when a JDK is installed)
#   make demo       build, write a real heap dump of a leaking Java program, analyse it
#   make test       unit + end-to-end tests, in a normal build and an ASan+UBSan build
#                   (developer flags: tests registered, -Werror)
#   make bench      side-by-side benchmarks against peers (bench/*.sh)
#   make fuzz       run the libFuzzer targets for FUZZ_SECONDS each (clang)
#   make install PREFIX=/usr/local
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Processors the tests share: each test takes the quarters of one it uses (scripts/run-tests.sh,
# tests/costs.txt); more tests than that made JVM tests miss their timed stages.
TEST_JOBS ?= $(JOBS)
FUZZ_SECONDS ?= 60
BUILD := build
ASAN := build-asan
TESTS := build-tests
CMAKE_FLAGS ?=
# Developer and CI builds: tests registered, warnings are errors. A user's `make` has neither.
DEV_FLAGS := -DLEAKRAY_TESTS=ON -DLEAKRAY_WERROR=ON

.PHONY: all build deps demo test test-release test-asan bench fuzz install clean

all: build

deps:
	@scripts/deps.sh build

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target leakray leakray_agent_all

demo: build
	@scripts/deps.sh demo
	@scripts/demo.sh $(BUILD)/leakray

test:
	@scripts/deps.sh test
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(DEV_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target all lr_tests
	@cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DLEAKRAY_SANITIZE=ON $(DEV_FLAGS) >/dev/null
	@cmake --build $(ASAN) -j $(JOBS) --target all lr_tests
	@scripts/check-layers.sh
	@echo "== tests (release build, and NAME@asan: ASan + UBSan build) =="
	@scripts/run-tests.sh $(TESTS) $(TEST_JOBS) $(BUILD) $(ASAN)

bench: build
	@scripts/deps.sh bench
	@for b in bench/*.sh; do [ "$$b" = bench/lib.sh ] && continue; echo "== $$b =="; bash $$b $(BUILD)/leakray || exit 1; done

fuzz:
	@scripts/deps.sh fuzz
	@CC=clang-14 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DLEAKRAY_FUZZ=ON -DLEAKRAY_SANITIZE=ON >/dev/null
	@cmake --build build-fuzz -j $(JOBS)
	@for t in build-fuzz/fuzz_*; do n=$${t#build-fuzz/fuzz_}; mkdir -p build-fuzz/corpus-$$n; \
	  echo "== fuzz $$n for $(FUZZ_SECONDS)s =="; \
	  $$t -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -max_len=1048576 -timeout=30 \
	      -artifact_prefix=build-fuzz/$$n- build-fuzz/corpus-$$n tests/fuzz/corpus/$$n || exit 1; done

install: build
	@cmake --build $(BUILD) -j $(JOBS)
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(ASAN) $(TESTS) build-fuzz
