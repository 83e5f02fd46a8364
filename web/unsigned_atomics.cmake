# Run after linking the threaded module (cmake -DJS=<its .js> -P): Emscripten 3.1.6's C++ exceptions
# count an exception's references with Atomics.add/sub at (address >> 2), a signed shift, so an
# exception made past 2 GB of the heap fails ("Invalid atomic access index") and ends the engine's
# worker. Its own pass that makes the runtime's addresses unsigned (CAN_ADDRESS_2GB) fixes
# HEAP32[...] but not these two calls: they are given the unsigned shift here. Any other count of
# them than two means the runtime changed, and the build stops rather than ship it unfixed.
file(READ ${JS} text)
set(signed "Atomics\\.(add|sub)\\((GROWABLE_HEAP_I32\\(\\)|HEAP32),([^,;>]*)>>2,1\\)")
string(REGEX MATCHALL "${signed}" found "${text}")
list(LENGTH found count)
if(NOT count EQUAL 2)
  message(FATAL_ERROR "${JS}: expected Emscripten's two reference counts of C++ exceptions (Atomics.add/sub at a signed >>2), found ${count}")
endif()
string(REGEX REPLACE "${signed}" "Atomics.\\1(\\2,\\3>>>2,1)" text "${text}")
file(WRITE ${JS} "${text}")
