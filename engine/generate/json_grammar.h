#pragma once
// The grammar --json stands for: a JSON object (RFC 8259's grammar, written here in GBNF), as the
// JSON modes of chat APIs ask for. Whitespace between tokens is bounded (a newline or a space, then
// at most 15 spaces), so a small model cannot spend its tokens on blanks forever.
namespace llama {

inline constexpr const char* kJsonGrammar = R"(# JSON (RFC 8259): an object at the top
root    ::= object
value   ::= object | array | string | number | ("true" | "false" | "null") ws
object  ::= "{" ws ( member ( "," ws member )* )? "}" ws
member  ::= string ":" ws value
array   ::= "[" ws ( value ( "," ws value )* )? "]" ws
string  ::= "\"" char* "\"" ws
char    ::= [^"\\\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" hex hex hex hex )
hex     ::= [0-9a-fA-F]
number  ::= "-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )? ws
ws      ::= [ \n]? " "{0,15}
)";

}  // namespace llama
