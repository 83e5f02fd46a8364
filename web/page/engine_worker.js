// The engine in a Web Worker, so the page never freezes while the model computes. It loads the
// module built for what the page may use: pthreads where the page is cross-origin isolated
// (threads/: the matmuls on the thread pool), otherwise one thread (single/: the same code); in
// both, Q, K and V's tasks run one after another (ml/task_launch.h). Where the browser has relaxed
// SIMD, the one of the two built with it (threads-relaxed/, single-relaxed/: the same numbers, the
// K-quants' dot products on its int8 dot instruction), unless the page's address asks for SIMD128
// (?simd=simd128, which the page passes on as this script's own query). Messages from the page:
//   {cmd: 'start', args: [...]}      a run, given as llama-walkthrough's own options, or as
//   {cmd: 'start', form, more}       the form's options and the "more options" text (commandLine),
//                                    or a batch, patch or tokenize command typed there (live_views.js);
//                                    recorded for the panels (record: false times the engine
//                                    alone); step: true holds it at its first stage (threads only)
//   {cmd: 'step', kind}              a held run on to its next stage, layer, token or the end
//   {cmd: 'stop'}                    end the run at its next stage (threads only)
//   {cmd: 'files', files: [File...]} the reader's own model: read into the module's memory once
//                                    (heap_files.js), at /user/N
//   {cmd: 'part', how}               the panels' next part (web/module/run_page_feed.h): 'held'
//                                    (a held run's stages since the last part), 'all' (on to the
//                                    finished run's end), or a reveal of a finished run ('first',
//                                    'stage', 'layer', 'token', 'end'); its float arrays come as
//                                    one ArrayBuffer, handed over (transferred), not copied again
//   {cmd: 'arith', id, step, layer}  the arithmetic of the panels' attention at step and layer (made
//                                    when the reader opens one of its cells), its arrays as bytes
//   {cmd: 'pageData'}                the run's whole page data made at once (the test compares)
//   {cmd: 'export'}
//   {cmd: 'memory'}                  the module's memory: its size, its limit and what is in use
//                                    (web/memory.mjs and the page's test measure one copy with it)
//   {cmd: 'train', request, text | file}  the Train panel (web/module/live_training.h): request
//                                    is {cmd: 'start', settings}, {cmd: 'steps', count},
//                                    {cmd: 'sample', ...} or {cmd: 'record'}; a start's text (a
//                                    string, or the reader's File) is copied to /train first
// and to the page: ready, text (streamed), held (the engine waits at a stage), progress (a batch or
// patch command's), done (the run's result), part, arith, page, export, train (a training request's
// result), memory, error.
'use strict';

const variant = self.crossOriginIsolated && typeof SharedArrayBuffer === 'function' ? 'threads' : 'single';
// Relaxed SIMD, tested by validating a module of one function that returns
// i16x8.relaxed_dot_i8x16_i7x16_s of two v128 constants: only an engine that has the instruction
// accepts it.
const RELAXED_DOT_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // "\0asm", version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,        // types: () -> v128
  0x03, 0x02, 0x01, 0x00,                          // one function of type 0
  0x0a, 0x2b, 0x01, 0x29, 0x00,                    // its code: 41 bytes, no locals
  0xfd, 0x0c, ...new Array(16).fill(0),            // v128.const 0
  0xfd, 0x0c, ...new Array(16).fill(0),            // v128.const 0
  0xfd, 0x92, 0x02,                                // i16x8.relaxed_dot_i8x16_i7x16_s (0xfd 274)
  0x0b,                                            // end
]);
const hasRelaxedSimd = WebAssembly.validate(RELAXED_DOT_PROBE);
// WebAssembly's exception handling, which every module but threads/ is built with
// (web/wasm_deps.cmake: the bad-input messages are C++ exceptions), tested by validating one
// function holding an empty `try` block: a browser without it is told so, not shown a compile error.
const TRY_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // "\0asm", version 1
  0x01, 0x04, 0x01, 0x60, 0x00, 0x00,              // types: () -> ()
  0x03, 0x02, 0x01, 0x00,                          // one function of type 0
  0x0a, 0x07, 0x01, 0x05, 0x00,                    // its code: 5 bytes, no locals
  0x06, 0x40, 0x0b,                                // try (no result) end
  0x0b,                                            // end
]);
const hasExceptions = WebAssembly.validate(TRY_PROBE);
const simd128Asked = new URLSearchParams(self.location.search).get('simd') === 'simd128';
// The module's folder, and what the page says of its SIMD.
const relaxed = hasRelaxedSimd && !simd128Asked;
const moduleDir = relaxed ? `${variant}-relaxed` : variant;
const simd = relaxed ? 'relaxed' : hasRelaxedSimd ? 'simd128 asked' : 'simd128 only';
importScripts(moduleDir + '/llama-walkthrough.js', 'heap_files.js');

// The bundled model, read into the module's memory where --model assets/model finds it.
const BUNDLED = ['consolidated.00.pth', 'params.json', 'tokenizer.model'];
// What a run needs beside the weights: a 1.1B model's KV cache at its 2,048 positions (46 MB) and
// the run's working memory (activations, logits, the trace's records), with room to spare. The
// engine checks the KV cache of the context asked for itself, once the model's shapes are known.
const RUN_RESERVE_BYTES = 256 * 1024 ** 2;

let moduleReady = null;
let userLoads = 0;

async function loadModule() {
  if (moduleDir !== 'threads' && !hasExceptions)
    throw new Error("this browser's WebAssembly has no exception handling, which the engine needs (Chrome and Edge 95, Firefox 100, Safari 15.2 and later have it)");
  const Module = await createLlamaModule({
    locateFile: f => moduleDir + '/' + f,
    // The threads' workers load the module by this address, from their own folder: absolute.
    mainScriptUrlOrBlob: new URL(moduleDir + '/llama-walkthrough.js', self.location.href).href,
    printErr: text => self.postMessage({ kind: 'log', text }),
  });
  Module.FS.mkdir('/user');
  Module.FS.mkdir('/train');
  await holdBundled(Module);
  return Module;
}

// The bundled model is let go while a reader's model is open (its 20 MB then serve the run's
// memory: the module's memory never shrinks, docs/web.md, What fits) and read in again, from the
// browser's cache, before a command that may use it: one that names no file of the reader's or
// names the bundled model's, and training (its tokenizer).
let bundledHeld = false;
async function holdBundled(Module) {
  if (bundledHeld) return;
  await mountHeapFiles(Module, '/assets/model', await Promise.all(BUNDLED.map(async name => {
    const response = await fetch('model/' + name).catch(e => {
      throw new Error(`the bundled model's ${name} could not be fetched (${e.message}): is the page's host reachable?`);
    });
    if (!response.ok) throw new Error(`the bundled model's ${name} could not be fetched (HTTP ${response.status})`);
    return { name, blob: await response.blob() };
  })));
  bundledHeld = true;
}
function releaseBundled(Module) {
  if (!bundledHeld) return;
  unmountHeapFiles(Module, '/assets/model');
  bundledHeld = false;
}
const usesBundled = args => !args.some(w => w.startsWith('/user/')) || args.some(w => w.includes('assets/model'));

// The reader's files, read into the module's memory once (heap_files.js): the engine's loaders use
// their bytes there in place. Files that cannot fit beside what the module holds and a run's
// reserve are refused by their size before any byte is read. Nothing leaves the tab.
async function loadUserFiles(Module, files) {
  const total = files.reduce((sum, f) => sum + f.size, 0);
  const lastDir = Module.FS.readdir('/user').find(n => n !== '.' && n !== '..');
  // The last model goes now (a Run makes it again from its files); its files are counted free:
  // they go too if these are read. The bundled model's go now.
  Module.unloadModel();
  releaseBundled(Module);
  const memory = JSON.parse(Module.memoryInfo());
  const last = lastDir ? Module.FS.readdir('/user/' + lastDir).filter(n => n !== '.' && n !== '..')
                                 .reduce((sum, n) => sum + Module.FS.stat(`/user/${lastDir}/${n}`).size, 0) : 0;
  const room = memory.limitBytes - memory.inUseBytes + last - RUN_RESERVE_BYTES;
  if (total > room) {
    const gb = n => (n / 1e9).toFixed(2) + ' GB';
    throw new Error(`${files.length === 1 ? files[0].name + ' holds' : 'these files hold'} ${gb(total)}; the browser build's engine holds a model's files ` +
                    `once in its memory, which is limited to ${gb(memory.limitBytes)} (${memory.limitReason}): with ${gb(memory.inUseBytes - last)} ` +
                    `in use and ${gb(RUN_RESERVE_BYTES)} kept for the run (its KV cache and working memory), at most ${gb(Math.max(room, 0))} ` +
                    `of model files fit, so nothing was read. A 1.1B model fits in any of its file types (BF16 is 2.2 GB); ` +
                    `run larger models with the native llama-walkthrough.`);
  }
  // A llama2.c checkpoint is the largest .bin; its tokenizer (tokenizer.bin, or under a name of its
  // own such as tok512.bin) is the other one, written as tokenizer.bin beside it, where the engine
  // looks. Without one the reader is told now, not when Run cannot find it.
  const bins = files.filter(f => /\.bin$/i.test(f.name)).sort((a, b) => b.size - a.size);
  const named = bins.find(f => f.name === 'tokenizer.bin'), others = bins.filter(f => f !== named);
  const checkpoint = files.some(f => /\.gguf$/i.test(f.name)) ? null : others[0];
  const tokenizer = checkpoint && (named || others[1]);
  if (checkpoint && (bins.length > 2 || !tokenizer))
    throw new Error(bins.length > 2 ? `${bins.length} .bin files were opened (${bins.map(f => f.name).join(', ')}): open one llama2.c checkpoint with its tokenizer`
                                    : `${checkpoint.name} is opened alone: a llama2.c checkpoint needs its tokenizer (tokenizer.bin, or another name such as tok512.bin); open both files together`);
  // A folder of its own each time: the engine keeps a loaded model by its path, and the reader may
  // open another file of the same name. The last files go first.
  if (lastDir) unmountHeapFiles(Module, '/user/' + lastDir);
  const dir = '/user/' + ++userLoads;
  await mountHeapFiles(Module, dir, files.map(f => ({ name: f === tokenizer ? 'tokenizer.bin' : f.name, blob: f })));
  // What --model names: a single file (GGUF, a llama2.c checkpoint) or the folder (Meta's or
  // Hugging Face's layout).
  const gguf = files.find(f => /\.gguf$/i.test(f.name));
  return gguf ? dir + '/' + gguf.name : checkpoint ? dir + '/' + checkpoint.name : dir;
}

// A training start's text, written where the engine reads it as train --text reads a file: the
// reader's file byte for byte (so a file that is not UTF-8 is refused by name), or the box's text
// as UTF-8. The last text is replaced.
async function trainingRequest(Module, m) {
  if (m.request.cmd !== 'start') return m.request;
  for (const name of Module.FS.readdir('/train')) if (name !== '.' && name !== '..') Module.FS.unlink('/train/' + name);
  const path = '/train/' + (m.file ? m.file.name.replace(/\//g, '_') : 'pasted text');
  Module.FS.writeFile(path, m.file ? new Uint8Array(await m.file.arrayBuffer()) : m.text);
  return { ...m.request, text: path };
}

// A start's command line: a course link's exact words, or the form's options and the "more options"
// field's words, split as the Try-its' shell splits them (the module's splitter, which refuses what
// it cannot split exactly). An option the field also gives is taken from the field: its words are
// the CLI's, as a chapter's Try-it writes them. Each form option lists the flags that replace it,
// the one it is written as last.
function commandLine(Module, m) {
  if (m.args) return { args: m.args };
  const split = JSON.parse(Module.shellWords(m.more));
  if (split.refusal) return { error: `"more options" cannot be read as the CLI's words: ${split.refusal}` };
  // A batch, patch or tokenize command (the program's name before it or not) is run as it is
  // written, on the form's model unless it names one.
  const words = split.words[0] === 'llama-walkthrough' ? split.words.slice(1) : split.words;
  if (['batch', 'patch', 'tokenize'].includes(words[0])) {
    const model = m.form.find(o => o.flags.includes('--model')).values[0];
    const named = words.some(w => ['--model', '--synthetic'].includes(w) || w.startsWith('--model=') || w.startsWith('--synthetic='));
    return { args: named || model === 'assets/model' ? words : [words[0], '--model', model, ...words.slice(1)] };
  }
  const given = flags => flags.some(f => split.words.includes(f));
  const args = [];
  for (const o of m.form) if (o.repeated || !given(o.flags)) args.push(o.flags[o.flags.length - 1], ...o.values);
  return { args: args.concat(split.words) };
}

self.onmessage = async event => {
  const m = event.data;
  try {
    const Module = await moduleReady;
    if (m.cmd === 'start') {
      const line = commandLine(Module, m);
      if (line.error) self.postMessage({ kind: 'done', text: JSON.stringify({ ok: false, error: line.error }) });
      else {
        if (usesBundled(line.args)) await holdBundled(Module);
        Module.start(JSON.stringify(line.args), m.record !== false, variant === 'threads' && !!m.step);
      }
    }
    else if (m.cmd === 'step') Module.stepRun(m.kind);
    else if (m.cmd === 'stop') Module.stop();
    else if (m.cmd === 'files') self.postMessage({ kind: 'files', model: await loadUserFiles(Module, m.files), names: m.files.map(f => f.name) });
    else if (m.cmd === 'train') {
      await holdBundled(Module);
      Module.train(JSON.stringify(await trainingRequest(Module, m)));
    }
    else if (m.cmd === 'part') {
      const t0 = performance.now();
      const text = Module.pagePart(m.how);
      const bytes = Module.pageBytes().slice().buffer;  // out of the module's memory, once
      self.postMessage({ kind: 'part', text, bytes, moduleMs: performance.now() - t0 }, [bytes]);
    }
    else if (m.cmd === 'arith') {
      const text = Module.attentionArithmetic(m.step, m.layer);
      const bytes = Module.pageBytes().slice().buffer;
      self.postMessage({ kind: 'arith', id: m.id, text, bytes }, [bytes]);
    }
    else if (m.cmd === 'memory') self.postMessage({ kind: 'memory', ...JSON.parse(Module.memoryInfo()), heapBytes: heapBytes(Module).length });
    else if (m.cmd === 'pageData') self.postMessage({ kind: 'page', text: Module.pageData() });
    else if (m.cmd === 'export') {
      const result = JSON.parse(Module.exportPage());
      if (!result.ok) throw new Error(result.error);
      self.postMessage({ kind: 'export', html: Module.FS.readFile(result.page, { encoding: 'utf8' }), trace: Module.FS.readFile(result.trace) });
    }
  } catch (e) {
    self.postMessage({ kind: 'error', text: e && e.message ? e.message : String(e) });
  }
};

moduleReady = loadModule();
moduleReady.then(Module => self.postMessage({ kind: 'ready', variant, simd, info: JSON.parse(Module.buildInfo()), cores: self.navigator.hardwareConcurrency }),
                 e => self.postMessage({ kind: 'error', fatal: true, text: 'the engine could not start: ' + (e && e.message ? e.message : e) }));
