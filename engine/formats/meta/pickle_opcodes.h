#pragma once
// The pickle opcodes torch.save's protocol-2 pickles use, plus the protocol-4 framing and short
// forms that newer writers emit: read by pickle.cpp, written by state_dict_pickle.cpp.
// Names as in Python's pickletools.
#include <cstdint>

namespace llama::pickle {

enum Op : uint8_t {
    PROTO = 0x80, FRAME = 0x95, STOP = '.',
    MARK = '(', EMPTY_TUPLE = ')', EMPTY_LIST = ']', EMPTY_DICT = '}',
    TUPLE = 't', TUPLE1 = 0x85, TUPLE2 = 0x86, TUPLE3 = 0x87,
    NONE = 'N', NEWTRUE = 0x88, NEWFALSE = 0x89,
    BININT = 'J', BININT1 = 'K', BININT2 = 'M', LONG1 = 0x8a, BINFLOAT = 'G',
    BINUNICODE = 'X', SHORT_BINUNICODE = 0x8c, BINBYTES = 'B', SHORT_BINBYTES = 'C',
    BINPUT = 'q', LONG_BINPUT = 'r', MEMOIZE = 0x94, BINGET = 'h', LONG_BINGET = 'j',
    GLOBAL = 'c', STACK_GLOBAL = 0x93, REDUCE = 'R', BUILD = 'b', BINPERSID = 'Q',
    SETITEM = 's', SETITEMS = 'u', APPEND = 'a', APPENDS = 'e',
};

}  // namespace llama::pickle
