# Run after linking the module (cmake -DJS=<its .js> -DTHREADS=ON|OFF -P): Emscripten 3.1.6's
# runtime given unsigned addresses wherever it still shifts one signed, so that the module's memory
# can be used past 2 GB (docs/web.md, "What fits").
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
#                          past 2 GB ended the worker with "Invalid atomic access index"
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

unsign("var b=args>>3" "var b=args>>>3" 2 0)
unsign("buf>>=2" "buf>>>=2" 1 1)
unsign("handle=handle>>2" "handle=handle>>>2" 1 1)
unsign("\\(firstElement>>2\\)" "(firstElement>>>2)" 1 1)
unsign("idx=endPtr>>1" "idx=endPtr>>>1" 1 1)
unsign("a=attributes>>2" "a=attributes>>>2" 1 0)
unsign("Atomics\\.(add|sub)\\((GROWABLE_HEAP_I32\\(\\)|HEAP32),([^,;>]*)>>2,1\\)" "Atomics.\\1(\\2,\\3>>>2,1)" 2 0)

# What is left shifted signed: a name or a parenthesis before >> or >>= (not >>>), with what it is
# shifted by. (The patterns above have no ';': a match's list would split at one.)
string(REGEX MATCHALL "[A-Za-z_$)][A-Za-z0-9_$]*>>=?[^>=][A-Za-z0-9_$]*" signed "${text}")
list(FILTER signed EXCLUDE REGEX "^(u>>(6|12|18)|ch>>10|dev>>8|length>>shift)$")
if(signed)
  message(FATAL_ERROR "${JS}: signed shifts not known to be of something other than an address: ${signed}")
endif()
file(WRITE ${JS} "${text}")
