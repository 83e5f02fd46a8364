// Clang 19 (the relaxed-SIMD module's compiler) names a main that takes arguments
// __main_argc_argv, as newer Emscripten expects; Emscripten 3.1.6 calls and exports `main`. This
// gives the test program's main (tests/test_main.cpp) that name too, so 3.1.6 finds and calls it.
extern "C" int __main_argc_argv(int argc, char** argv);
extern "C" int mainAsEmscripten316CallsIt(int argc, char** argv) __asm__("main");
extern "C" int mainAsEmscripten316CallsIt(int argc, char** argv) { return __main_argc_argv(argc, argv); }
