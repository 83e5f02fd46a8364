# The engine's dependencies for the WebAssembly build, as the same target names the native build
# gets from Debian's packages: header-only libraries and PCRE2 compiled for wasm32 by
# web/build-deps.sh into LLAMA_WEB_DEPS (one prefix per thread model: objects built with and
# without shared memory cannot be linked together).
set(LLAMA_WEB_DEPS "" CACHE PATH "web/build-deps.sh's prefix for this build")
option(LLAMA_WEB_THREADS "pthreads (needs a cross-origin isolated page) or one thread" ON)
if(NOT EXISTS ${LLAMA_WEB_DEPS}/lib/libpcre2-8.a)
  message(FATAL_ERROR "LLAMA_WEB_DEPS='${LLAMA_WEB_DEPS}' has no lib/libpcre2-8.a: run web/build-deps.sh first (make web does)")
endif()

add_library(Threads::Threads INTERFACE IMPORTED)
if(LLAMA_WEB_THREADS)
  target_compile_options(Threads::Threads INTERFACE -pthread)
  target_link_options(Threads::Threads INTERFACE -pthread)
else()
  # No threads: std::async tasks run deferred, one after another (ml/task_launch.h), the thread
  # pool has one thread, the trace recorder writes on the engine's thread.
  target_compile_definitions(Threads::Threads INTERFACE LLAMA_NO_THREADS)
endif()
# C++ exceptions carry every bad-input message: they must be caught, not abort the module. By
# WebAssembly's own exception handling (every browser since 2022 has it; the page says so where one
# has not): -fexceptions's JavaScript emulation calls every function that may unwind through a
# JavaScript stub, 12% of the bundled model's decode under Node, which went from 470-550 to 600-695
# tok/s without them. Except in the threaded module compiled by Emscripten 3.1.6's own clang 14:
# with -pthread no catch matches there (a 10-line program's `catch (std::exception&)` of the
# std::runtime_error it throws ends it, uncaught; 3.1.6's threaded libunwind keeps the landing pad's
# context thread-local, which clang 14's code does not write; clang 19's does), so it keeps the
# emulation. The relaxed-SIMD modules are clang 19's.
if(LLAMA_WEB_THREADS AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 15)
  set(LLAMA_WEB_EXCEPTIONS -fexceptions)
else()
  set(LLAMA_WEB_EXCEPTIONS -fwasm-exceptions)
endif()
add_compile_options(${LLAMA_WEB_EXCEPTIONS})
add_link_options(${LLAMA_WEB_EXCEPTIONS})

add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${LLAMA_WEB_DEPS}/include)
add_library(fmt::fmt INTERFACE IMPORTED)
target_include_directories(fmt::fmt INTERFACE ${LLAMA_WEB_DEPS}/include)
target_compile_definitions(fmt::fmt INTERFACE FMT_HEADER_ONLY)
add_library(CLI11::CLI11 INTERFACE IMPORTED)
target_include_directories(CLI11::CLI11 INTERFACE ${LLAMA_WEB_DEPS}/include)
add_library(PkgConfig::PCRE2 STATIC IMPORTED)
set_target_properties(PkgConfig::PCRE2 PROPERTIES IMPORTED_LOCATION ${LLAMA_WEB_DEPS}/lib/libpcre2-8.a
                                                  INTERFACE_INCLUDE_DIRECTORIES ${LLAMA_WEB_DEPS}/include
                                                  INTERFACE_COMPILE_DEFINITIONS PCRE2_STATIC)
