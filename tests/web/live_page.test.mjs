// The live page (make web) in Debian's chromium: served by web/serve.mjs on 127.0.0.1, once
// cross-origin isolated by its headers (the threaded engine), once as a plain host (isolated by the
// service worker after one reload: the threaded engine), inside a frame where the service worker
// cannot help and in a browser without service workers (the single-threaded one), its text checked
// against the native CLI's on the same model, prompt and options, and its top-10 logits at every
// greedy step against the CLI's trace of the same run, bit for bit (checkTopLogits).
//   node live_page.test.mjs WEB_DIR LLAMA_WALKTHROUGH ASSETS_DIR SCREENSHOT_DIR LLAMA_SITE CHAPTERS_DIR
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdirSync, readFileSync, readdirSync, rmSync, truncateSync, copyFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, screenshotStats, check, done, serve as serveWeb } from './browser.mjs';
import { openLive, moduleMemory, run } from './live_session.mjs';
import { nativeTopOf, pageTop, topDifference } from './top_logits.mjs';

const [webDir, cli, assets, shots, siteTool, chapters] = process.argv.slice(2);
mkdirSync(shots, { recursive: true });
const scratch = join(shots, 'scratch');
mkdirSync(scratch, { recursive: true });
const model = join(assets, 'model');

// The native CLI's greedy text (-q prints the text, a blank line, then the summary; a what-if
// run says so on a line of its own first).
function nativeText(args, modelPath = model) {
  const out = execFileSync(cli, ['--model', modelPath, '-q', ...args], { encoding: 'utf8' }).replace(/^What-if experiment[^\n]*\n/, '');
  return out.slice(0, out.lastIndexOf('\n\nPrompt tokens:'));
}

const serve = (plain, dir = webDir) => serveWeb(dir, plain);

const buildLine = page => page.$eval('#build', e => e.textContent);

// Counts the key and address handlers added to the document and the window as the page adds them.
const countHandlers = page => page.evaluateOnNewDocument(() => {
  window.handlersAdded = { keydown: 0, hashchange: 0 };
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, ...rest) {
    if ((this === document || this === window) && type in window.handlersAdded) window.handlersAdded[type]++;
    return add.call(this, type, ...rest);
  };
});

// Presses a step button of a run being stepped and waits for the stage it leads to (a held engine
// computes it first) or for the run's end.
async function stepOn(page, button) {
  const before = await page.evaluate(() => document.body.dataset.revealed);
  await page.$eval(button, e => e.click());
  await page.waitForFunction(b => ['done', 'error'].includes(document.body.dataset.run) ||
                                  (document.body.dataset.run === 'stepping' && document.body.dataset.revealed !== b), { timeout: 60000 }, before);
}

// ---- the top logits, value for value (issue 43: every kernel path gives the same bits) -------------
// Greedy runs whose top-10 candidates the page must show exactly as the native CLI computes them
// (the page's WebAssembly SIMD path against the CLI's native one), at every step.
const topRuns = [['The cat sat on the mat', 32], ['In the beginning God created', 16]];

// The CLI's candidates for a run of a model (the bundled one unless said), each run once.
const nativeTopRuns = new Map();
function nativeTop(prompt, tokens, modelPath = model) {
  const key = `${modelPath}|${prompt}|${tokens}`;
  if (!nativeTopRuns.has(key)) nativeTopRuns.set(key, nativeTopOf(cli, modelPath, prompt, tokens, join(scratch, `top-${nativeTopRuns.size}.trace`)));
  return nativeTopRuns.get(key);
}

// Greedy runs of `runs` on `page`, whose open model is `modelPath`: every step's top-10 candidates
// (token ids, logit bits) equal the native CLI's for the same run, and so does the text.
async function checkTopLogits(page, where, modelPath = model, runs = topRuns) {
  for (const [prompt, tokens] of runs) {
    const native = nativeTop(prompt, tokens, modelPath);
    check(native.steps.length >= 16 && native.steps.every(s => s.top.length === 10), `${where}: the CLI's trace of "${prompt}" has 10 candidates at each of at least 16 steps`,
          `${native.steps.length} steps`);
    const r = await run(page, prompt, `-n ${tokens} --temperature 0`);
    if (r.state !== 'done') { check(false, `${where}: greedy run of "${prompt}" for the top logits`, `${r.state} ${r.error}`); continue; }
    const steps = await pageTop(page);
    const difference = topDifference(steps, native.steps);
    check(difference === null, `${where}: "${prompt}", ${tokens} greedy steps: the page's top-10 logits at every step equal the native CLI's, bit for bit`,
          difference || `${steps.length} steps, ${steps.reduce((n, s) => n + s.top.length, 0)} values`);
    check(r.text === native.text, `${where}: and its text is the CLI's`, `${JSON.stringify(r.text)} vs ${JSON.stringify(native.text)}`);
  }
}

const prompts = ['In the beginning God created', 'And the LORD said unto Moses', 'Blessed are the', 'The', 'Thou shalt not'];
const browser = await launch();
const servers = [];
try {
  // ---- cross-origin isolated: the threaded build ------------------------------------------------
  const isolated = await serve(false);
  servers.push(isolated.child);
  const { page, log, t0 } = await openLive(browser, isolated.origin, undefined, countHandlers);
  check(await page.evaluate(() => document.body.dataset.variant) === 'threads', 'an isolated page runs the threaded build', await buildLine(page));
  check(/threaded build \(isolated by the server's headers/.test(await buildLine(page)) && log.loads === 1,
        'isolated by the headers, the page loads once', `${await buildLine(page)}, ${log.loads} loads`);
  check(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length) === 0, 'and registers no service worker');
  // The time to the first generated token, as a reader who presses Run at once sees it (README figure).
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('output').textContent.length > 0, { timeout: 60000 });
  console.log(`info first token ${Date.now() - t0} ms after the page opened (engine ready after ${log.readyMs} ms)`);
  await page.waitForFunction(() => document.body.dataset.run === 'done', { timeout: 60000 });

  for (const prompt of prompts) {
    const r = await run(page, prompt, '-n 12');
    const expected = nativeText(['--prompt', prompt, '-n', '12']);
    check(r.text === expected, `greedy text of "${prompt}" equals the native CLI's`, `${JSON.stringify(r.text)} vs ${JSON.stringify(expected)}`);
  }
  await checkTopLogits(page, 'isolated by the headers (threads)');

  // Save trace / Save page: the finished run as export-html's page and as its trace, twice (a second
  // run writes the same files in the module's memory again).
  for (let i = 0; i < 2; i++) {
    await run(page, prompts[i], '-n 4');
    const saved = await page.evaluate(() => new Promise(ok => {
      live.worker.addEventListener('message', function once(e) {
        if (e.data.kind !== 'export' && e.data.kind !== 'error') return;
        live.worker.removeEventListener('message', once);
        ok(e.data.kind === 'export' ? { html: e.data.html.length, page: e.data.html.startsWith('<!DOCTYPE html>'), trace: e.data.trace.length } : { error: e.data.text });
      });
      live.worker.postMessage({ cmd: 'export' });
    }));
    check(saved.page && saved.trace > 1000, `run ${i + 1}: Save page and Save trace give export-html's page and the trace`, JSON.stringify(saved));
  }

  // Stepping: the threaded engine is held at its first stage of a long run (it waits there, nothing
  // generated yet); three stages show the native --debug-log's first lines, in order, and nothing
  // later; going on to the end gives the CLI's text.
  {
    const debugLog = join(scratch, 'debug.log');
    const long = ['--prompt', prompts[0], '-n', '64'];
    const expected = nativeText([...long, '--debug-log', debugLog]);
    // The log's lines without their "[DEBUG]time " and " (seconds)" frame.
    const lines = readFileSync(debugLog, 'utf8').split('\n').map(l => l.replace(/^\[DEBUG\]\S+ /, '').replace(/ \([0-9.]+ secs\)$/, ''));
    const stepped = await run(page, prompts[0], '-n 64', '#step-stage');
    check(stepped.state === 'stepping', 'Step stage holds the run at its first stage', stepped.state);
    const heldState = () => page.evaluate(() => ({ held: live.held, shown: document.body.dataset.held, revealed: document.body.dataset.revealed,
                                                   finished: !!live.result, text: RunPage.data().run.text }));
    const first = await heldState();
    await new Promise(ok => setTimeout(ok, 1500));  // a run that was not held would end meanwhile (64 tokens take < 1 s here)
    const later = await heldState();
    check(first.held && first.held.stage === 1 && first.shown === '1' && first.revealed === '1' && !first.finished && first.text === '' &&
          JSON.stringify(later) === JSON.stringify(first),
          'the worker reports the engine waiting at stage 1, the page shows that stage, and the run goes no further by itself', JSON.stringify([first, later]));
    const shown = [];
    for (let i = 0; i < 3; i++) {
      shown.push(await page.$eval('#stage-message', e => e.textContent));
      if (i < 2) await stepOn(page, '#step-stage');
    }
    let at = 0;
    const inOrder = shown.every(message => message.split('\n').every(line => {
      const found = lines.indexOf(line, at);
      if (found < 0) return false;
      at = found;
      return true;
    }));
    check(inOrder, 'the three stages\' log lines are the native debug log\'s, in order', JSON.stringify(shown).slice(0, 300));
    check(await page.evaluate(() => document.body.dataset.revealed) === '3', 'three stages are revealed');
    check(await page.$$eval('#timeline li', l => l.length) === 3, 'the timeline lists only the stages reached');
    const shapes = await page.$eval('#shapes', e => e.textContent);
    check(/\[6\]|\[6 256\]/.test(shapes), 'the stage shows its tensors\' shapes', shapes.slice(0, 120));
    // Every run and every step so far redrew the one run page in place: its handlers were added
    // once (a second set would move two stages a key press), none assigned as a property.
    const panel = await page.evaluateHandle(() => document.getElementById('stage'));
    await page.keyboard.press('ArrowLeft');
    const moved = await page.$eval('#position', e => e.textContent);
    const handlers = await page.evaluate(() => ({ ...window.handlersAdded, properties: [document.onkeydown, window.onhashchange].filter(Boolean).length }));
    check(handlers.keydown === 1 && handlers.hashchange === 1 && handlers.properties === 0 && /record 2 of 3$/.test(moved),
          'the run page\'s key and address handlers are added once however many runs and steps it shows; ← goes back one stage', `${JSON.stringify(handlers)}, ${moved}`);
    await stepOn(page, '#step-stage');
    check(await page.evaluate(p => p === document.getElementById('stage'), panel), 'a step redraws the same panels, not a new page');
    await stepOn(page, '#step-token');
    check(await page.evaluate(() => document.body.dataset.stage) === 'sample', 'Step token holds at the next sampling stage', await page.$eval('#stage-title', e => e.textContent));
    check(await page.evaluate(() => live.held && live.held.stage === 20 && !live.result), 'held at the sampling stage, the run not finished');
    await stepOn(page, '#run-to-end');
    check(await page.evaluate(() => document.body.dataset.run) === 'done', 'Run to end runs the whole run');
    const finished = await page.evaluate(() => ({ text: live.result && live.result.text, stages: RunPage.data().stages.length, output: document.getElementById('output').textContent }));
    check(finished.text === expected && finished.output.endsWith(expected), 'the held run, let go, gives the CLI\'s text', JSON.stringify(finished.text));
  }

  // Stop ends a held run, as docs/web.md says: the button is live while the engine waits, and the
  // run ends there, drawn as stopped.
  {
    const held = await run(page, prompts[0], '-n 64', '#step-stage');
    const stoppable = await page.$eval('#stop', e => !e.disabled);
    check(held.state === 'stepping' && stoppable, 'Stop is enabled while a run is held', JSON.stringify({ held, stoppable }));
    await page.evaluate(() => { document.body.dataset.run = ''; });
    await page.$eval('#stop', e => e.click());
    await page.waitForFunction(() => ['done', 'error'].includes(document.body.dataset.run), { timeout: 60000 });
    const ended = await page.evaluate(() => ({ state: document.body.dataset.run, reason: live.result && live.result.stopReason, held: live.held,
                                               stop: document.getElementById('stop').disabled }));
    check(ended.state === 'done' && ended.reason === 'stopped' && !ended.held && ended.stop, 'Stop ends the held run, which is drawn as stopped', JSON.stringify(ended));
  }

  // A what-if switch changes the run as the CLI's does.
  {
    await page.$eval('#skip-layers', e => { e.value = '3'; });
    const r = await run(page, prompts[0], '-n 12');
    await page.$eval('#skip-layers', e => { e.value = ''; });
    const expected = nativeText(['--prompt', prompts[0], '-n', '12', '--skip-layer', '3']);
    check(r.text === expected && r.text !== nativeText(['--prompt', prompts[0], '-n', '12']), 'skip layer 3 gives the CLI\'s what-if text, not the model\'s', JSON.stringify(r.text));
    check(await page.$eval('#what-if', e => !e.hidden && /skip/i.test(e.textContent)), 'the what-if banner names the experiment', await page.$eval('#what-if', e => e.textContent));
  }

  // A GGUF chosen through the file input runs, with the CLI's text on the same file, and is held
  // in the module's memory once: opening it adds its bytes, running it adds far less than a second
  // copy (the memory file system and the engine's mapping of it held two before). The bundled
  // model's files are let go meanwhile (docs/web.md, What fits): they count as given back.
  {
    const f32 = join(scratch, 'bundled-f32.gguf');
    execFileSync(cli, ['convert', '--model', model, '--to', 'gguf-f32', '--out', f32], { stdio: 'ignore' });
    const size = statSync(f32).size;
    // Measured after the same command on the open model: the page keeps the last run's panels
    // (what of it was revealed), so both readings hold one whole run of the same shapes.
    await run(page, prompts[1], '-n 12');
    const before = await moduleMemory(page);
    await (await page.$('#model-files')).uploadFile(f32);
    await page.waitForFunction(() => /bundled-f32/.test(document.getElementById('model-name').textContent), { timeout: 20000 });
    const r = await run(page, prompts[1], '-n 12');
    const after = await moduleMemory(page);
    const bundled = readdirSync(model).reduce((sum, f) => sum + statSync(join(model, f)).size, 0);
    const added = after.inUseBytes - before.inUseBytes + bundled;
    check(r.text === nativeText(['--prompt', prompts[1], '-n', '12'], f32), 'a GGUF (F32) opened from the file input gives the CLI\'s text', JSON.stringify(r.text));
    check(added > 0.9 * size && added < 1.5 * size, `the model is held once: its file and run add ${(added / 1e6).toFixed(1)} MB to the module's memory ` +
          `for a ${(size / 1e6).toFixed(1)} MB file, the bundled model's ${(bundled / 1e6).toFixed(1)} MB given back (two copies would add twice the file)`,
          JSON.stringify({ before, after }));
  }
  // A file above the module's limit is refused by its size and the limit before any byte is read
  // (a sparse file: nothing on the disk either); the model open before stays.
  {
    const huge = join(scratch, 'huge.gguf');
    rmSync(huge, { force: true });
    writeFileSync(huge, '');
    truncateSync(huge, 4.5e9);
    const before = await moduleMemory(page);
    await page.$eval('#live-error', e => { e.textContent = ''; });
    await (await page.$('#model-files')).uploadFile(huge);
    await page.waitForFunction(() => document.getElementById('live-error').textContent, { timeout: 20000 });
    const message = await page.$eval('#live-error', e => e.textContent);
    const after = await moduleMemory(page);
    check(/huge\.gguf holds 4\.50 GB.*limited to 4\.29 GB \(all that a 32-bit WebAssembly module can address\).*at most [34]\.[0-9]{2} GB of model files fit, so nothing was read/.test(message) &&
          after.inUseBytes <= before.inUseBytes + 1e6,
          'a file above the limit is refused with its size and the limit, before it is read', message.slice(0, 400));
    rmSync(huge);
  }
  const gguf = join(scratch, 'bundled-q8_0.gguf');
  execFileSync(cli, ['convert', '--model', model, '--to', 'gguf-q8_0', '--out', gguf], { stdio: 'ignore' });
  {
    const input = await page.$('#model-files');
    await input.uploadFile(gguf);
    await page.waitForFunction(() => /bundled-q8_0/.test(document.getElementById('model-name').textContent), { timeout: 20000 });
    const r = await run(page, prompts[1], '-n 12');
    const expected = nativeText(['--prompt', prompts[1], '-n', '12'], gguf);
    check(r.text === expected, 'a GGUF (Q8_0) opened from the file input gives the CLI\'s text', `${JSON.stringify(r.text)} vs ${JSON.stringify(expected)}`);
  }
  // The two SIMD modules of the threaded build (issue 50): a browser with relaxed SIMD (chromium 156)
  // runs the one built with it, whose Q4_K and Q6_K dot products use its int8 dot instruction; the
  // page's address can ask for the SIMD128 one (?simd=simd128), which browsers without relaxed SIMD
  // run. The bundled model as a Q4_K and as a Q6_K GGUF, opened in each, gives the CLI's top-10
  // logits at every greedy step, bit for bit.
  {
    check(await page.evaluate(() => document.body.dataset.simd) === 'relaxed' && /with relaxed SIMD \(this browser has it.*, relaxed-simd kernels\.$/.test(await buildLine(page)),
          'a browser with relaxed SIMD runs the relaxed-SIMD module, and the page says so', await buildLine(page));
    const fallback = await openLive(browser, isolated.origin + '/?simd=simd128');
    check(await fallback.page.evaluate(() => document.body.dataset.simd) === 'simd128 asked' &&
          /threaded build .*with SIMD128 \(asked for by \?simd=simd128.*, simd128 kernels\.$/.test(await buildLine(fallback.page)),
          '?simd=simd128 runs the SIMD128 module, threaded, and the page says so', await buildLine(fallback.page));
    for (const type of ['q4_k', 'q6_k']) {
      const file = join(scratch, `bundled-${type}.gguf`);
      execFileSync(cli, ['convert', '--model', model, '--to', `gguf-${type}`, '--out', file], { stdio: 'ignore' });
      for (const [p, where] of [[page, 'relaxed SIMD'], [fallback.page, 'SIMD128']]) {
        await p.bringToFront();  // a tab in the background is throttled by chromium
        await (await p.$('#model-files')).uploadFile(file);
        await p.waitForFunction(t => document.getElementById('model-name').textContent.includes(`bundled-${t}`), { timeout: 20000 }, type);
        await checkTopLogits(p, `${where} module, ${type.toUpperCase()} GGUF`, file, [['The cat sat on the mat', 16]]);
      }
    }
    check(fallback.log.errors.length === 0 && fallback.log.outside.length === 0, 'the SIMD128 page: no console error, no request outside its server',
          JSON.stringify([fallback.log.errors, fallback.log.outside]));
    await fallback.page.close();
    await page.bringToFront();
  }
  // A damaged file: its message names it; the page stays usable.
  {
    const cut = join(scratch, 'cut.gguf');
    copyFileSync(gguf, cut);
    truncateSync(cut, Math.floor(statSync(gguf).size / 2));
    const input = await page.$('#model-files');
    await input.uploadFile(cut);
    await page.waitForFunction(() => /cut\.gguf/.test(document.getElementById('model-name').textContent), { timeout: 20000 });
    const r = await run(page, prompts[1], '-n 4');
    check(r.state === 'error' && /cut\.gguf/.test(r.error), 'a cut GGUF gets a message naming the file', r.error.slice(0, 200));
    await page.$eval('#bundled', e => e.click());  // inside the closed "Model" section
    const again = await run(page, prompts[0], '-n 12');
    check(again.text === nativeText(['--prompt', prompts[0], '-n', '12']), 'after the error a new run works without reloading');
  }
  // A prompt longer than the context; a bad option value: the CLI's messages.
  {
    const r = await run(page, 'And God said, Let there be light: and there was light. And God saw the light', '--max-seq-len 8');
    check(r.state === 'error' && /context|max-seq-len|positions/i.test(r.error), 'a prompt longer than the context is refused with a message', r.error.slice(0, 200));
    const bad = await run(page, prompts[0], '--temperature -1');
    check(bad.state === 'error' && /temperature/.test(bad.error), 'a bad option value gets the CLI\'s message', bad.error.slice(0, 200));
  }
  // "more options" is split as the Try-its' shell splits it (the course site's splitter): quotes and
  // backslashes as sh reads them, and what sh would expand or run is refused with the reason.
  {
    const quoted = await run(page, 'ignored', `-n 6 --prompt "The \\"cat\\" sat" --temperature 0`);
    check(quoted.state === 'done' && quoted.text === nativeText(['--prompt', 'The "cat" sat', '-n', '6', '--temperature', '0']),
          '"more options" words are the shell\'s: a quoted prompt with escaped quotes', JSON.stringify([quoted.state, quoted.error.slice(0, 200)]));
    for (const [line, why] of [['-n 4 --prompt "$(cat /etc/passwd)"', /\$/], ['-n 4 --prompt "unclosed', /quote/], ['-n 4 | head', /\|/]]) {
      const r = await run(page, prompts[0], line);
      check(r.state === 'error' && /more options/.test(r.error) && why.test(r.error), `"more options" a shell would read otherwise is refused with the reason: ${line}`, r.error.slice(0, 200));
    }
  }
  // A model that does not fit: the engine's message with its size and the limit, before any weight
  // is made (docs/web.md, "What fits").
  for (const [preset, size] of [['llama3.1-8b', '16.1']]) {
    const r = await run(page, prompts[0], `--synthetic ${preset} -n 2`);
    check(r.state === 'error' && new RegExp(`'${preset}' needs ${size} GB .* more than the [0-9.]+ GB`).test(r.error),
          `a model too large for the tab (${preset}) is refused with its size and the limit`, r.error.slice(0, 200));
  }
  check((await run(page, prompts[0], '-n 4')).state === 'done', 'after the refusals a run works without reloading');
  check(log.errors.length === 0, 'no console error on the isolated page', log.errors.join(' | ').slice(0, 400));

  // A chapter's "Run it here" link (llama-site --live): that exact command, the recorded output beside it.
  {
    const words = ['-q', '--prompt', 'The cat', '-n', '6', '--temperature', '0'];
    const course = await openLive(browser, isolated.origin + `/#cmd=${encodeURIComponent(JSON.stringify(words))}&expect=${encodeURIComponent('recorded line\n')}`);
    check(await course.page.$eval('#course-command', e => !e.hidden), 'a course link shows its command', await course.page.$eval('#course-line', e => e.textContent));
    check(await course.page.$eval('#course-expected', e => e.textContent) === 'recorded line\n', 'and the output the chapter recorded');
    const r = await run(course.page, 'ignored: the command is used as it is');
    check(r.text === nativeText(words.slice(1)), 'the course command runs exactly, not the form', JSON.stringify(r.text) + ' ' + r.error);
    await course.page.close();
  }
  check(log.outside.length === 0, 'no request outside the page\'s own server', log.outside.join(' '));

  // Screenshots as a student sees them, a laptop and a phone, stepped into layer 1.
  for (const [name, viewport] of [['live-page-1366x768', { width: 1366, height: 768 }], ['live-page-phone', { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true }]]) {
    await page.setViewport(viewport);
    // A phone's viewport (isMobile) reloads the page (puppeteer's setViewport): its engine starts
    // again. A run pressed before it is ready used to wait out run()'s 120 s unanswered.
    await page.waitForFunction(() => document.body.dataset.engine, { timeout: 60000 });
    const finished = await run(page, prompts[0], '-n 8');  // finished: the next Step stage starts a new run
    check(finished.state === 'done', `${name}: a run finishes`, finished.state + ' ' + finished.error);
    const r = await run(page, prompts[0], '-n 8', '#step-stage');
    check(r.state === 'stepping', `${name}: stepping`, r.state + ' ' + r.error);
    // The run page's own "next layer" button steps the run on (a stage's panels are in view there).
    await stepOn(page, '#next-layer');
    check(Number(await page.evaluate(() => document.body.dataset.revealed)) > 1, `${name}: the run page's layer button steps the run on`);
    const png = await page.screenshot({ path: join(shots, name + '.png') });
    const s = await screenshotStats(browser, png);
    check(s.colours > 40 && s.dominant < 0.9, `screenshot ${name} is not blank`, `${s.width}x${s.height}, ${s.colours} colours`);
    const widths = await page.evaluate(() => [window.innerWidth, document.documentElement.scrollWidth]);
    check(widths[1] <= widths[0], `${name}: no sideways scrolling`, `window ${widths[0]}px, page ${widths[1]}px`);
  }
  await page.close();

  // ---- the course site with the live page (llama-site --live): a chapter's "Run it here" ---------
  {
    const trace = join(scratch, 'site-run.trace'), site = join(scratch, 'site');
    rmSync(site, { recursive: true, force: true });
    execFileSync(cli, ['--model', model, '--prompt', 'In the beginning God created', '-n', '4', '-q', '--trace', trace, '--trace-presoftmax'], { stdio: 'ignore' });
    execFileSync(siteTool, ['--chapters', chapters, '--trace', trace, '--live', webDir, '--out', site], { stdio: 'ignore' });
    const pages = readdirSync(site).filter(f => /^\d\d-.*\.html$/.test(f));
    const links = pages.flatMap(f => [...readFileSync(join(site, f), 'utf8').matchAll(/href="(live\/index\.html#cmd=[^"]+)"/g)].map(m => m[1]));
    const notes = pages.reduce((n, f) => n + (readFileSync(join(site, f), 'utf8').match(/Runs in a terminal only: /g) || []).length, 0);
    check(links.length > 0 && notes > 0, 'the site\'s Try-its link to the live page or say why they run in a terminal', `${links.length} links, ${notes} notes`);
    const served = await serve(false, site);
    servers.push(served.child);
    const course = await openLive(browser, `${served.origin}/${links[0].replace(/&amp;/g, '&')}`);
    const words = await course.page.evaluate(() => live.exactArgs);
    const r = await run(course.page, 'ignored');
    check(r.text === nativeText(words.filter(w => w !== '-q')), 'the first "Run it here" gives the CLI\'s text for its command', `${JSON.stringify(words)}: ${JSON.stringify(r.text)} ${r.error}`);
    await course.page.close();
  }

  // ---- a plain host (no COOP/COEP headers): the service worker isolates the page, one reload -------
  // Each host below is a server of its own (its own origin), so no service worker carries over.
  const since = t => `${((Date.now() - t) / 1000).toFixed(1)} s`;
  const tWorker = Date.now();
  {
    const plain = await serve(true);
    servers.push(plain.child);
    const viaWorker = await openLive(browser, plain.origin);
    const p = viaWorker.page;
    const state = await p.evaluate(() => ({ isolated: self.crossOriginIsolated, variant: document.body.dataset.variant,
                                            how: document.body.dataset.isolation, controlled: !!navigator.serviceWorker.controller }));
    check(state.isolated && state.controlled && state.how === 'service worker' && state.variant === 'threads',
          'a plain host: the page is isolated by the service worker and runs the threaded build', JSON.stringify(state));
    check(viaWorker.log.loads === 2, 'the page loaded twice: once to register the service worker, once under it', `${viaWorker.log.loads} loads`);
    check(/threaded build \(isolated by the service worker/.test(await buildLine(p)), 'the page says the service worker isolated it', await buildLine(p));
    for (const prompt of prompts.slice(0, 2)) {
      const r = await run(p, prompt, '-n 12');
      check(r.text === nativeText(['--prompt', prompt, '-n', '12']), `isolated by the service worker: "${prompt}" gives the CLI's text`, JSON.stringify(r.text));
    }
    await checkTopLogits(p, 'isolated by the service worker (threads)');
    const workers = (await browser.targets()).filter(t => t.type() === 'service_worker').map(t => t.url());
    check(workers.includes(plain.origin + '/coi-serviceworker.js'), 'the service worker is the page\'s own file, from its server', workers.join(' '));
    check(viaWorker.log.outside.length === 0, 'no request outside the plain host', viaWorker.log.outside.join(' '));
    check(viaWorker.log.errors.length === 0, 'no console error on the plain host', viaWorker.log.errors.join(' | ').slice(0, 400));
    await p.close();
  }

  console.log(`info the plain host isolated by the service worker: ${since(tWorker)}`);

  // ---- a host where the service worker cannot help: the page inside a frame of a page that is not
  // isolated stays so (a frame is isolated only with its top page). One reload, then the
  // single-threaded build, not a reload loop.
  const tFramed = Date.now();
  {
    const framed = await serve(true);
    servers.push(framed.child);
    const outer = http.createServer((req, res) => res.writeHead(200, { 'Content-Type': 'text/html' })
      .end(`<!DOCTYPE html><title>A page that frames the live page</title><iframe src="${framed.origin}/" width="1300" height="700"></iframe>`));
    await new Promise(ok => outer.listen(0, '127.0.0.1', ok));
    const page = await browser.newPage();
    const errors = [];
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    let loads = 0;
    page.on('framenavigated', f => { if (f.url().startsWith(framed.origin + '/')) loads++; });
    await page.goto(`http://127.0.0.1:${outer.address().port}/`);
    const frame = () => page.frames().find(f => f.url().startsWith(framed.origin + '/'));
    const ready = await (async () => {
      for (const until = Date.now() + 60000; Date.now() < until; await new Promise(ok => setTimeout(ok, 200)))
        if (await frame()?.evaluate(() => document.body.dataset.engine).catch(() => null)) return true;
      return false;
    })();
    // Time for a loop to show itself: a reloading page would load again within this.
    await new Promise(ok => setTimeout(ok, 3000));
    const f = frame();
    const state = ready && await f.evaluate(() => ({ isolated: self.crossOriginIsolated, variant: document.body.dataset.variant, how: document.body.dataset.isolation }));
    check(ready && !state.isolated && state.variant === 'single' && state.how === 'not helped',
          'framed by a page that is not isolated: the single-threaded build', JSON.stringify(state));
    check(loads === 2, 'the framed page reloaded once for the service worker, not in a loop', `${loads} loads`);
    if (ready) {
      check(/single-threaded build \(the service worker did not make this page cross-origin isolated/.test(await buildLine(f)), 'the page says the service worker could not isolate it', await buildLine(f));
      const r = await run(f, prompts[0], '-n 12');
      check(r.text === nativeText(['--prompt', prompts[0], '-n', '12']), 'framed, single-threaded: the CLI\'s text', JSON.stringify(r.text));
    }
    check(errors.length === 0, 'no console error in the frame', errors.join(' | ').slice(0, 400));
    await page.close();
    outer.close();
  }

  console.log(`info the framed page: ${since(tFramed)}`);

  // ---- a browser without service workers: the single-threaded build gives the same text ------------
  const tSingle = Date.now();
  {
    const plain = await serve(true);
    servers.push(plain.child);
    const single = await openLive(browser, plain.origin, undefined,
                                  page => page.evaluateOnNewDocument(() => { delete Navigator.prototype.serviceWorker; }));
    check(await single.page.evaluate(() => document.body.dataset.variant) === 'single', 'without service workers a plain host runs the single-threaded build');
    check(/single-threaded build \(this page is not cross-origin isolated/.test(await buildLine(single.page)), 'and says the page is not isolated', await buildLine(single.page));
    check(single.log.loads === 1, 'without service workers the page does not reload', `${single.log.loads} loads`);
    for (const prompt of prompts.slice(0, 2)) {
      const r = await run(single.page, prompt, '-n 12');
      check(r.text === nativeText(['--prompt', prompt, '-n', '12']), `single-threaded: "${prompt}" gives the CLI's text`, JSON.stringify(r.text));
    }
    await checkTopLogits(single.page, 'single-threaded');
    check(single.log.errors.length === 0, 'no console error on the plain page', single.log.errors.join(' | ').slice(0, 400));
    // Its two SIMD modules, as the threaded build's above: relaxed SIMD where the browser has it,
    // SIMD128 when the address asks; the K-quants' top-10 logits bit for bit in each.
    check(await single.page.evaluate(() => document.body.dataset.simd) === 'relaxed' &&
          /single-threaded build .*with relaxed SIMD \(this browser has it.*, relaxed-simd kernels\.$/.test(await buildLine(single.page)),
          'single-threaded: a browser with relaxed SIMD runs the relaxed-SIMD module, and the page says so', await buildLine(single.page));
    const fallback = await openLive(browser, plain.origin + '/?simd=simd128', undefined,
                                    page => page.evaluateOnNewDocument(() => { delete Navigator.prototype.serviceWorker; }));
    check(await fallback.page.evaluate(() => document.body.dataset.simd) === 'simd128 asked' &&
          /single-threaded build .*with SIMD128 \(asked for by \?simd=simd128.*, simd128 kernels\.$/.test(await buildLine(fallback.page)),
          'single-threaded: ?simd=simd128 runs the SIMD128 module, and the page says so', await buildLine(fallback.page));
    for (const type of ['q4_k', 'q6_k']) {
      const file = join(scratch, `bundled-${type}.gguf`);
      for (const [p, where] of [[single.page, 'relaxed SIMD'], [fallback.page, 'SIMD128']]) {
        await p.bringToFront();
        await (await p.$('#model-files')).uploadFile(file);
        await p.waitForFunction(t => document.getElementById('model-name').textContent.includes(`bundled-${t}`), { timeout: 20000 }, type);
        await checkTopLogits(p, `single-threaded ${where} module, ${type.toUpperCase()} GGUF`, file, [['The cat sat on the mat', 16]]);
      }
    }
    check(fallback.log.errors.length === 0, 'no console error on the plain SIMD128 page', fallback.log.errors.join(' | ').slice(0, 400));
  }
  console.log(`info the plain host without service workers: ${since(tSingle)}`);
} finally {
  await browser.close();
  for (const child of servers) child.kill();
}
done();
