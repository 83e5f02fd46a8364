// The engine in a Web Worker, so the page never freezes while the model computes. It loads the
// module built for what the page may use: pthreads where the page is cross-origin isolated
// (threads/: Q, K and V on three threads, the matmuls on the thread pool), otherwise one thread
// (single/: the same code, the tasks one after another). Messages from the page:
//   {cmd: 'start', args: [...]}      a run, given as llama-walkthrough's own options
//   {cmd: 'stop'}                    end the run at its next stage (threads only)
//   {cmd: 'files', files: [File...]} the reader's own model: mounted read-only at /user
//   {cmd: 'pageData'} / {cmd: 'export'}
// and to the page: ready, text (streamed), done (the run's result), page, export, error.
'use strict';

const variant = self.crossOriginIsolated && typeof SharedArrayBuffer === 'function' ? 'threads' : 'single';
importScripts(variant + '/llama-walkthrough.js');

// The bundled model, read into the module's memory file system where --model assets/model finds it.
const BUNDLED = ['consolidated.00.pth', 'params.json', 'tokenizer.model'];
// wasm32 addresses 4 GB; the weights are read into it, with room left for the run.
const MAX_MODEL_BYTES = 3 * 1024 ** 3;

let moduleReady = null;

async function loadModule() {
  const Module = await createLlamaModule({
    locateFile: f => variant + '/' + f,
    // The threads' workers load the module by this address, from their own folder: absolute.
    mainScriptUrlOrBlob: new URL(variant + '/llama-walkthrough.js', self.location.href).href,
    printErr: text => self.postMessage({ kind: 'log', text }),
  });
  Module.FS.mkdirTree('/assets/model');
  Module.FS.mkdir('/user');
  await Promise.all(BUNDLED.map(async name => {
    const response = await fetch('model/' + name);
    if (!response.ok) throw new Error(`the bundled model's ${name} could not be fetched (HTTP ${response.status})`);
    Module.FS.writeFile('/assets/model/' + name, new Uint8Array(await response.arrayBuffer()));
  }));
  return Module;
}

function mountUserFiles(Module, files) {
  const total = files.reduce((sum, f) => sum + f.size, 0);
  if (total > MAX_MODEL_BYTES)
    throw new Error(`these files hold ${(total / 1024 ** 3).toFixed(2)} GB; the browser build addresses at most 4 GB ` +
                    `(the weights must fit in about 3 GB with room for the run), so they were not read. ` +
                    `A 1.1B model quantized to Q4_K_M (about 0.7 GB) fits; run larger models with the native llama-walkthrough.`);
  try { Module.FS.unmount('/user'); } catch (e) { /* nothing mounted yet */ }
  // WORKERFS reads the File objects in place, as the engine asks for bytes: nothing is copied
  // or uploaded.
  Module.FS.mount(Module.FS.filesystems.WORKERFS, { files }, '/user');
  const names = files.map(f => f.name);
  // What --model names: a single file (GGUF, a llama2.c .bin with its tokenizer.bin beside it) or
  // the folder (Meta's or Hugging Face's layout).
  const gguf = names.find(n => /\.gguf$/i.test(n));
  const bin = names.find(n => /\.bin$/i.test(n) && n !== 'tokenizer.bin');
  return gguf ? '/user/' + gguf : bin ? '/user/' + bin : '/user';
}

self.onmessage = async event => {
  const m = event.data;
  try {
    const Module = await moduleReady;
    if (m.cmd === 'start') Module.start(JSON.stringify(m.args));
    else if (m.cmd === 'stop') Module.stop();
    else if (m.cmd === 'files') self.postMessage({ kind: 'files', model: mountUserFiles(Module, m.files), names: m.files.map(f => f.name) });
    else if (m.cmd === 'pageData') self.postMessage({ kind: 'page', text: Module.pageData() });
    else if (m.cmd === 'export') {
      const result = JSON.parse(Module.exportPage('/tmp/live.html'));
      if (!result.ok) throw new Error(result.error);
      const info = JSON.parse(Module.buildInfo());
      self.postMessage({ kind: 'export', html: Module.FS.readFile('/tmp/live.html', { encoding: 'utf8' }), trace: Module.FS.readFile(info.tracePath) });
    }
  } catch (e) {
    self.postMessage({ kind: 'error', text: e && e.message ? e.message : String(e) });
  }
};

moduleReady = loadModule();
moduleReady.then(Module => self.postMessage({ kind: 'ready', variant, info: JSON.parse(Module.buildInfo()), cores: self.navigator.hardwareConcurrency }),
                 e => self.postMessage({ kind: 'error', fatal: true, text: 'the engine could not start: ' + (e && e.message ? e.message : e) }));
