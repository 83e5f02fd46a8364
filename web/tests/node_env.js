// The module's tests under Node see the process's environment (the suite's fixtures are named by
// environment variables, as for the native tests), which Emscripten does not pass by default.
Module.preRun = (Module.preRun || []).concat(() => { Object.assign(ENV, process.env); });
