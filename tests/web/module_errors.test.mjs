// The page's modules report bad input as the CLI does, whichever way they carry C++ exceptions
// (web/wasm_deps.cmake: the threaded SIMD128 module by Emscripten's JavaScript emulation, the
// others by WebAssembly's own exception handling): under Node, each of the four modules is given a
// command the CLI refuses, a model that is not there and a truncated GGUF file, and must answer
// each with the CLI's message, then run the bundled model.
//   node --experimental-wasm-relaxed-simd tests/web/module_errors.test.mjs BUILD/web ASSETS_DIR
// (Node 20 runs the relaxed-SIMD modules with that flag; its int8 dot product is not browsers', and
// no check here looks at numbers.)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const [web, assets] = process.argv.slice(2).map(p => resolve(p));
const require = createRequire(import.meta.url);
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures++;
};

let onDone = null;
globalThis.self = { postMessage: m => { if (m.kind === 'done' && onDone) onDone(JSON.parse(m.text)); } };
for (const variant of ['threads', 'single', 'threads-relaxed', 'single-relaxed']) {
  const dir = join(web, variant);
  // Node 20 cannot fetch() the .wasm by path: the bytes are given (as web/bench.mjs does).
  const M = await require(join(dir, 'llama-walkthrough.js'))({ wasmBinary: readFileSync(join(dir, 'llama-walkthrough.wasm')),
                                                                mainScriptUrlOrBlob: join(dir, 'llama-walkthrough.js') });
  M.FS.mkdirTree('/model');
  for (const f of ['consolidated.00.pth', 'params.json', 'tokenizer.model']) M.FS.writeFile('/model/' + f, readFileSync(join(assets, 'model', f)));
  // GGUF's magic and version 3, then 2 of the tensor count's 8 bytes.
  M.FS.writeFile('/truncated.gguf', new Uint8Array([0x47, 0x47, 0x55, 0x46, 3, 0, 0, 0, 1, 2]));
  // An exception that no catch matches ends the module: no answer, which fails the check.
  const run = args => Promise.race([new Promise(ok => { onDone = ok; M.start(JSON.stringify(args), false, false); }),
                                    new Promise(ok => setTimeout(() => ok({ ok: false, error: 'no answer in 60 s' }), 60000).unref())]);
  for (const [args, expected] of [
    [['--model', '/model', '-n', 'abc'], "--max-tokens: expected a token count from 0 to 16777216, got 'abc'"],
    [['--model', '/nowhere'], "model path '/nowhere' does not exist"],
    [['--model', '/truncated.gguf'], '/truncated.gguf: GGUF offset 8: tensor count: needs 8 bytes but the file ends after 2 (truncated?)'],
  ]) {
    const r = await run(args);
    check(!r.ok && r.error === expected, `${variant}: ${args.join(' ')} -> ${r.ok ? 'ran' : r.error}`);
  }
  const r = await run(['--model', '/model', '--prompt', 'In the beginning', '-n', '3']);
  check(r.ok && r.decodeSteps === 2, `${variant}: after them the bundled model runs (${r.ok ? r.decodeSteps + ' decode steps' : r.error})`);
  if (variant.startsWith('threads')) M.PThread.terminateAllThreads();
}
console.log(failures ? `${failures} failed` : 'all passed');
process.exit(failures ? 1 : 0);
