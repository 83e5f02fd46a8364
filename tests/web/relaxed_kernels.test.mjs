// The relaxed-SIMD module's kernel tests in Debian's chromium (Node 20 computes relaxed SIMD's int8
// dot product otherwise than browsers do, so they cannot run under Node as the SIMD128 builds'
// do): served cross-origin isolated by web/serve.mjs, the engine's kernel and bit-identity tests
// compiled with the module's flags (web_relaxed_kernel_tests) run every kernel path the module
// has, relaxed-simd among them, against the generic path's bits and the native generic path's
// goldens. Passes only if Catch2 ran them all and they passed.
//   node relaxed_kernels.test.mjs TESTS_DIR (build/wasm-relaxed/tests-relaxed) [CATCH2_TEST_SPEC]
import { launch, check, done, serve } from './browser.mjs';

const [dir] = process.argv.slice(2);
const browser = await launch();
const server = await serve(dir, false);
try {
  const page = await browser.newPage();
  const lines = [];
  page.on('console', m => lines.push(m.text()));
  page.on('pageerror', e => lines.push('page error: ' + e));
  const tests = process.argv[3] || '[kernels],[bitidentity],[plan]';
  await page.goto(`${server.origin}/?arg=${encodeURIComponent(tests)}&arg=--use-colour&arg=no`);
  const relaxed = await page.evaluate(() => WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 43, 1, 41, 0,
    253, 12, ...new Array(16).fill(0), 253, 12, ...new Array(16).fill(0), 253, 146, 2, 11])));
  check(relaxed, 'this chromium validates relaxed SIMD (i16x8.relaxed_dot_i8x16_i7x16_s)');
  await page.waitForFunction(() => document.body.dataset.exit !== undefined, { timeout: 600000, polling: 1000 });
  const exit = await page.evaluate(() => document.body.dataset.exit);
  const text = lines.join('\n');
  // Catch2's report: every failure's section and its expansion, then the totals.
  console.log(exit === '0' ? text.split('\n').slice(-4).join('\n') : text);
  const summary = text.match(/All tests passed \((\d+) assertions? in (\d+) test cases?\)/);
  check(exit === '0' && summary !== null, 'the module\'s kernel and bit-identity tests pass in chromium', summary ? summary[0] : `exit ${exit}`);
  check(summary !== null && Number(summary[2]) >= 10, 'and they are the whole selection (at least 10 test cases)', summary ? summary[2] + ' test cases' : '');
} finally {
  server.child.kill();
  await browser.close();
}
done();
