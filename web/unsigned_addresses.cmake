# Run after linking the module (cmake -DJS=<its .js> -DTHREADS=ON|OFF -DJS_EXCEPTIONS=ON|OFF -P):
# Emscripten 3.1.6's runtime given unsigned addresses wherever it still shifts one signed, so that
# the module's memory can be used past 2 GB (docs/web.md, "What fits").
#
# An address past 2 GB reaches JavaScript as a negative 32-bit number. Linked to grow past 2 GB
# (MAXIMUM_MEMORY=4GB), Emscripten makes its heap indices unsigned itself (its CAN_ADDRESS_2GB pass:
# HEAP32[p >> 2] becomes HEAP32[p >>> 2]) and its file system unsigns buffer offsets (FS.read,
# FS.write); 3.1.6 has no further setting. The pass does not reach an address shifted before it
# indexes the heap, nor Atomics calls: those read the wrong place, and an out-of-bounds typed-array
# read gives undefined and a write is dropped, silently. They are:
#   var b=args>>3          (threads) a call proxied to the main thread reads its arguments from the
#                          calling thread's stack: the engine thread's fd_write (a trace's writes)
#                          and EM_ASM calls (its messages to the page), from past 2 GB once its
#                          stack is allocated after a large model; both ends of the call
#   buf>>=2                EM_ASM's arguments
#   handle=handle>>2       a typed_memory_view handed to JavaScript (pageBytes)
#   (firstElement>>2)      embind's lists of argument types
#   idx=endPtr>>1          a UTF-16 string
#   a=attributes>>2        (threads) WebGL's context attributes (not used by the engine)
#   Atomics.add/sub(HEAP32,p>>2,1)  (threads) C++ exceptions' reference counts: an exception made
#                          past 2 GB ended the worker with "Invalid atomic access index"; only
#                          where JavaScript emulates the exceptions (JS_EXCEPTIONS, wasm_deps.cmake)
# A --js-library of our own could replace those functions, but only by copying each whole, with
# its dependencies, to change one character; the shifts are made unsigned here instead. Each is
# expected an exact number of times, and afterwards only the signed shifts known not to be of an
# address may be left (a code point's bits, u and ch; a device number, dev; a string's length): any
# other count or shift means the runtime changed, and the build stops rather than ship it unfixed.
file(READ ${JS} text)

function(unsign pattern replacement in_threads in_single)
  if(THREADS)
    set(expected ${in_threads})
  else()
    set(expected ${in_single})
  endif()
  string(REGEX MATCHALL "${pattern}" found "${text}")
  list(LENGTH found count)
  if(NOT count EQUAL expected)
    message(FATAL_ERROR "${JS}: expected Emscripten 3.1.6's signed address shift '${pattern}' ${expected} times, found ${count}")
  endif()
  string(REGEX REPLACE "${pattern}" "${replacement}" text "${text}")
  set(text "${text}" PARENT_SCOPE)
endfunction()

# The relaxed-SIMD module is linked at -O0 (web/CMakeLists.txt), whose runtime is not minified: the
# patterns allow a space around each operator (" ?"), and the shift is made unsigned in place.
unsign("(var b ?= ?args ?)>>( ?3)" "\\1>>>\\2" 2 0)
unsign("(buf ?)>>=( ?2)" "\\1>>>=\\2" 1 1)
unsign("(handle ?= ?handle ?)>>( ?2)" "\\1>>>\\2" 1 1)
unsign("(\\(firstElement ?)>>( ?2\\))" "\\1>>>\\2" 1 1)
unsign("(idx ?= ?endPtr ?)>>( ?1)" "\\1>>>\\2" 1 1)
unsign("(a ?= ?attributes ?)>>( ?2)" "\\1>>>\\2" 1 0)
if(JS_EXCEPTIONS)
  unsign("(Atomics\\.(add|sub)\\((GROWABLE_HEAP_I32\\(\\)|HEAP32), ?[^,;>]*)>>( ?2, ?1\\))" "\\1>>>\\4" 2 0)
endif()

# The relaxed-SIMD modules are linked with WASM_BIGINT (web/CMakeLists.txt): their runtime reads
# and writes 64-bit integers through HEAP64 and HEAPU64 (a file's size and offset in stat, lseek and
# getdents; setValue and getValue; the 64-bit arguments of calls proxied to the main thread), which
# 3.1.6 does not unsign and, with threads and memory growth, does not refresh after another thread
# grew the memory (it does both for the other views, GROWABLE_HEAP_F64 and the like): an access past
# the size the memory had when the view was made reads undefined and drops a write. In the threaded
# module each such access goes through a refreshing function of the same kind, with its address
# shifted unsigned; in the single-threaded one, where only its own growth (which refreshes every
# view) can grow the memory, the address is only shifted unsigned.
if(text MATCHES "HEAP64 = new BigInt64Array")
  if(THREADS)
    foreach(kind I U)
      set(view HEAP64)
      if(kind STREQUAL "U")
        set(view HEAPU64)
      endif()
      string(REPLACE "function GROWABLE_HEAP_F64() {"
             "function GROWABLE_HEAP_${kind}64() {\n if (wasmMemory.buffer != buffer) {\n  updateGlobalBufferAndViews(wasmMemory.buffer);\n }\n return ${view};\n}\n\nfunction GROWABLE_HEAP_F64() {"
             text "${text}")
      string(REGEX REPLACE "([^A-Za-z0-9_$\"])${view}\\[" "\\1GROWABLE_HEAP_${kind}64()[" text "${text}")
    endforeach()
    unsign("(GROWABLE_HEAP_[IU]64\\(\\)\\[[^]>]*)>>( 3\\])" "\\1>>>\\2" 9 9)
    string(REGEX MATCHALL "[^A-Za-z0-9_$\"]HEAPU?64\\[" raw "${text}")
    if(raw)
      message(FATAL_ERROR "${JS}: HEAP64 or HEAPU64 still indexed directly: ${raw}")
    endif()
  else()
    unsign("([^A-Za-z0-9_$\"]HEAPU?64\\[[^]>]*)>>( 3\\])" "\\1>>>\\2" 9 9)
  endif()
endif()

# What is left shifted signed: a name or a parenthesis before >> or >>= (not >>>), with what it is
# shifted by, spaces dropped. (The patterns above have no ';': a match's list would split at one.)
string(REGEX MATCHALL "[A-Za-z_$)][A-Za-z0-9_$]* ?>>=? ?[^>= ][A-Za-z0-9_$]*" signed "${text}")
list(TRANSFORM signed REPLACE " " "")
# In the unminified runtime also base64's bits (enc2, enc3) and a 64-bit offset's high word.
list(FILTER signed EXCLUDE REGEX "^(u>>(6|12|18)|ch>>10|dev>>8|length>>shift|enc2>>4|enc3>>2|offset_bigint>>BigInt)$")
if(signed)
  message(FATAL_ERROR "${JS}: signed shifts not known to be of something other than an address: ${signed}")
endif()
file(WRITE ${JS} "${text}")
