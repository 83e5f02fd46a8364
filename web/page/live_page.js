// The live page: a form that becomes llama-walkthrough's own options, the engine in a worker
// (engine_worker.js), and the finished run drawn by the run page's script (run_page.js, the
// same panels export-html writes). Stepping holds the engine at a stage where it runs on a thread
// of its own (the threaded build): the panels show the run recorded so far. The single-threaded
// build cannot wait, so there the engine runs the generation and the panels reveal it stage by
// stage, showing only what it had computed up to the stage the reader is at. Either way each step
// brings only the stages since the last one (the module's RunPageFeed, web/module/run_page_feed.h),
// their numbers as typed arrays, and the run page adds them to what it shows (RunPage.apply).
'use strict';

const live = {
  worker: null,
  variant: '',
  ready: false,
  running: false,
  shown: false,    // the panels show a run (RunPage.data())
  limit: 0,        // stages shown
  total: 0,        // stages recorded so far
  t0: 0,           // when the step or run being drawn was asked for (performance.now())
  doneAt: 0,       // when the engine said the run was done
  partAt: 0,       // when the last part arrived
  heldAt: 0,       // when the engine said it was held at a stage
  moduleMs: 0,     // the worker's time making the last part (the module's pagePart and its bytes copied out)
  stepParts: null, // where the last step's time went (web/bench-steps.mjs prints it): engine, module, messages, page
  arithmetic: new Map(),  // the attention arithmetic asked of the module, by request id: its promise's resolve and reject
  arithmeticAsked: 0,
  pending: null,   // what to do once a run's data arrives: 'all' or 'step'
  held: null,      // where the engine waits (threaded build, stepping): the 'held' message
  restart: null,   // a run to start once the held one has ended: its mode
  model: null,     // --model of the reader's own files, or null for the bundled model
  runPageMarkup: null,
  isolation: '',   // how the page came to be isolated or not: a key of WHY
  isolationError: '',
  training: false,      // the Train panel's loop is asking for steps
  trainStopped: false,  // Stop was pressed: no more steps are asked for
  trainModel: null,     // the model being trained (the module's 'start' answer), or null
  trainFile: null,      // a file dropped or chosen for the Train panel (its bytes are trained on)
  trainLosses: [],      // every step's loss, in order
  trainingStep: false,  // the panels show a recorded training step
};

function setBuild(text) { $('build').textContent = text; }
function showLiveError(text) {
  const box = $('live-error');
  box.hidden = !text;
  box.textContent = text || '';
}
function setRunning(running) {
  live.running = running;
  $('stop').disabled = !running && !live.held;  // a held run waits for the reader, and Stop ends it
  const busy = running || live.training;
  for (const id of ['run', 'run-to-end', 'bundled']) $(id).disabled = busy || !live.ready;
  $('train-start').disabled = $('train-step').disabled = busy || !live.ready;
  $('train-stop').disabled = !live.training;
  $('model-files').disabled = running || !live.ready;
  const stepping = (live.shown && live.limit < live.total) || !!live.held;
  for (const id of ['step-stage', 'step-layer', 'step-token']) $(id).disabled = (busy || !live.ready) && !stepping;
  $('save-trace').disabled = $('save-page').disabled = running || !live.shown || !!live.held;  // a held run is not saved yet
  document.body.dataset.running = running ? '1' : '0';
}

// ---- the worker -----------------------------------------------------------------------------

function startWorker() {
  if (live.worker) live.worker.terminate();
  live.ready = false;
  // ?simd=simd128 in the page's address: the SIMD128 module even where relaxed SIMD is there (the
  // worker reads it from its own address).
  const simd = new URLSearchParams(location.search).get('simd');
  live.worker = new Worker('engine_worker.js' + (simd ? '?simd=' + encodeURIComponent(simd) : ''));
  live.worker.onmessage = e => onWorkerMessage(e.data);
  // An engine that ran out of memory or crashed: say so, and start a fresh one so the page stays usable.
  live.worker.onerror = e => {
    e.preventDefault();
    restartAfter('The engine stopped: ' + (e.message || 'an error in the worker') + '. It was started again; run once more.');
  };
  setRunning(false);
}

function restartAfter(message) {
  showLiveError(message);
  live.model = null;
  $('model-name').textContent = 'Bundled model (9.7M parameters, King James Bible)';
  startWorker();
}

// ---- cross-origin isolation ------------------------------------------------------------------

// The threaded build needs the page cross-origin isolated (COOP/COEP headers). Where the host does
// not send them (GitHub Pages, a plain static server), coi-serviceworker (npm, copied next to this
// page by make web) answers the page's requests with both headers added: once registered, the page
// loads once more under it and is isolated. The page registers the worker itself (not through the
// package's page script) so it knows whether that reload is coming before it starts an engine, and
// reloads at most once a tab session: where the worker cannot help (say, inside a frame of a page
// that is not isolated) the page stays single-threaded instead of reloading forever.
const RELOADED_KEY = 'llama-walkthrough: reloaded for the service worker';
// Which module's SIMD runs (engine_worker.js: m.simd), the same numbers in each.
const SIMD = {
  relaxed: 'with relaxed SIMD (this browser has it: the K-quants\' int8 dot products in one instruction each)',
  'simd128 asked': 'with SIMD128 (asked for by ?simd=simd128; this browser has relaxed SIMD too)',
  'simd128 only': 'with SIMD128 (this browser has no relaxed SIMD)',
};
const WHY = {
  headers: 'isolated by the server\'s headers',
  'service worker': 'isolated by the service worker',
  'no service worker': 'this page is not cross-origin isolated',
  'not helped': 'the service worker did not make this page cross-origin isolated, as in a frame of a page that is not',
  'not registered': 'the service worker that isolates this page could not start',
};

function sessionFlag(set) {
  try {
    if (set === undefined) return sessionStorage.getItem(RELOADED_KEY) !== null;
    if (set) sessionStorage.setItem(RELOADED_KEY, '1'); else sessionStorage.removeItem(RELOADED_KEY);
    return true;
  } catch (e) {
    return null;  // no storage here: no reload either, since a loop could not be stopped
  }
}

async function isolation() {
  const workers = navigator.serviceWorker;
  if (self.crossOriginIsolated) {
    sessionFlag(false);
    return workers && workers.controller ? 'service worker' : 'headers';
  }
  // file://, a page not served securely, a browser (or private mode) without service workers.
  if (!workers || !self.isSecureContext) return 'no service worker';
  // Already under the worker, or reloaded for it once: it cannot isolate this page.
  if (workers.controller || sessionFlag() !== false) return 'not helped';
  setBuild('Making this page cross-origin isolated with a service worker, for the threaded engine: it loads once more…');
  try {
    await workers.register('coi-serviceworker.js');
    await Promise.race([workers.ready, new Promise((_, fail) => setTimeout(() => fail(new Error('not active after 10 s')), 10000))]);
  } catch (e) {
    live.isolationError = e && e.message ? e.message : String(e);
    return 'not registered';
  }
  if (!sessionFlag(true)) return 'not helped';
  location.reload();
  return 'reloading';
}

function onWorkerMessage(m) {
  if (LiveViews.onMessage(m)) return;  // a batch, patch or tokenize command's (live_views.js)
  if (m.kind === 'ready') {
    live.ready = true;
    live.variant = m.variant;
    const why = WHY[live.isolation] + (live.isolation === 'not registered' ? ': ' + live.isolationError : '');
    setBuild(m.variant === 'threads'
      ? `Engine ready: the threaded build (${why}: the matrix products on ${m.cores} compute threads, Q, K and V one after another as natively), ${SIMD[m.simd]}, ${m.info.kernels} kernels.`
      : `Engine ready: the single-threaded build (${why}: one compute thread, Q, K and V one after another, the same numbers), ${SIMD[m.simd]}, ${m.info.kernels} kernels.`);
    document.body.dataset.variant = m.variant;
    document.body.dataset.simd = m.simd;
    document.body.dataset.isolation = live.isolation;
    document.body.dataset.engine = 'ready';
    setRunning(false);
  } else if (m.kind === 'text') {
    if (live.pending === 'all') $('output').append(m.text);
  } else if (m.kind === 'held') {
    // The engine waits at a stage: the panels get the stages recorded since the last part.
    live.held = JSON.parse(m.text);
    live.heldAt = performance.now();
    live.worker.postMessage({ cmd: 'part', how: 'held' });
  } else if (m.kind === 'done') {
    live.held = null;
    if (live.restart) {
      const mode = live.restart;
      live.restart = null;
      setRunning(false);
      startRun(mode);
      return;
    }
    const r = JSON.parse(m.text);
    if (!r.ok) {
      live.pending = null;
      setRunning(false);
      showLiveError(r.error);
      document.body.dataset.run = 'error';
      return;
    }
    live.result = r;
    live.doneAt = performance.now();
    // A finished run is revealed from its first stage when stepping without holding (the
    // single-threaded build); a held run's panels go on to its end.
    live.worker.postMessage({ cmd: 'part', how: live.pending === 'step' && live.variant !== 'threads' ? 'first' : 'all' });
  } else if (m.kind === 'part') {
    live.partAt = performance.now();
    live.moduleMs = m.moduleMs;
    const p = JSON.parse(m.text);
    setRunning(false);
    if (!p.ok) { showLiveError(p.error); return; }
    live.limit = p.revealed;
    live.total = p.total;
    if (!p.held && live.limit >= live.total) live.pending = null;
    showRun(p.data, m.bytes).catch(e => showLiveError('the run data could not be read: ' + e.message));
  } else if (m.kind === 'arith') {
    const asked = live.arithmetic.get(m.id);
    live.arithmetic.delete(m.id);
    const r = JSON.parse(m.text);
    if (!r.ok) asked.reject(new Error(r.error));
    else if (r.trace !== RunPage.data().trace) asked.reject(new Error('the run shown is no longer the module\'s'));
    else asked.resolve({ arith: r.arith, bytes: m.bytes });
  } else if (m.kind === 'page') {
    // The whole page data made at once (the test compares the parts with it).
    live.whole = JSON.parse(m.text);
  } else if (m.kind === 'train') {
    onTrained(JSON.parse(m.text));
  } else if (m.kind === 'files') {
    live.model = m.model;
    $('model-name').textContent = 'Your model: ' + m.names.join(', ');
    showLiveError('');
  } else if (m.kind === 'export') {
    if (live.exportWhat === 'page') download('live-run.html', new Blob([m.html], { type: 'text/html' }));
    else download('live-run.trace', new Blob([m.trace], { type: 'application/octet-stream' }));
  } else if (m.kind === 'error') {
    setRunning(false);
    if (m.fatal) { setBuild(m.text); document.body.dataset.engine = 'error'; }
    showLiveError(m.text);
  }
}

function download(name, blob) {
  const a = el('a', { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

// ---- the run's options ----------------------------------------------------------------------

// The run's command line as the worker builds it (engine_worker.js, commandLine): a course link's
// exact words, or the form's fields as llama-walkthrough's options beside the "more options" text.
function runCommand() {
  if (live.exactArgs) return { args: live.exactArgs };
  const form = [];
  const add = (flags, ...values) => form.push({ flags, values });
  add(['--synthetic', '--model'], live.model || 'assets/model');  // a synthetic model replaces it
  add(['-p', '--prompt'], $('prompt').value);
  const value = id => $(id).value.trim();
  if ($('chat').checked) { add(['--chat']); add(['--system'], $('system').value); }
  const numbers = { 'max-tokens': ['-n', '--max-tokens'], temperature: ['--temperature'], seed: ['--seed'], 'top-k': ['--top-k'],
                    'top-p': ['--top-p'], 'min-p': ['--min-p'], 'repeat-penalty': ['--repeat-penalty'],
                    'frequency-penalty': ['--frequency-penalty'], 'presence-penalty': ['--presence-penalty'], 'rope-theta': ['--rope-theta'] };
  for (const [id, flags] of Object.entries(numbers)) if (value(id) !== '') add(flags, value(id));
  for (const id of ['no-mask', 'no-kv-cache', 'no-rope']) if ($(id).checked) add(['--' + id]);
  for (const l of value('skip-layers').split(/[\s,]+/).filter(Boolean)) form.push({ flags: ['--skip-layer'], values: [l], repeated: true });
  for (const h of value('ablate-heads').split(/[\s,]+/).filter(Boolean)) form.push({ flags: ['--ablate-head'], values: [h], repeated: true });
  return { form, more: $('extra').value };
}

// A form field the browser finds invalid (a number out of its range, a letter in a number): its
// folded section opened, the browser's message shown at the field (focused), and the field named
// in the error box. The form is `novalidate`: the browser's own check cannot point into a closed
// section, and Run would do nothing, silently.
function invalidField() {
  if (live.exactArgs) return null;  // a course link's command does not use the form
  const field = $('run-form').querySelector(':invalid');
  if (!field) return null;
  for (let d = field.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
  field.reportValidity();
  const name = (field.labels[0] ? field.labels[0].textContent : field.id).trim();
  return `${name}: ${field.validationMessage} The run was not started.`;
}

function startRun(mode) {
  if (!live.ready || live.running) return;
  const invalid = invalidField();
  if (invalid) {
    showLiveError(invalid);
    document.body.dataset.run = 'invalid';
    return;
  }
  if (live.held) {
    // A run held at a stage ends first; its 'done' starts this one.
    live.held = null;
    live.restart = mode;
    setRunning(true);
    live.worker.postMessage({ cmd: 'stop' });
    return;
  }
  showLiveError('');
  live.shown = false;
  live.result = null;
  live.t0 = performance.now();
  live.trainingStep = false;
  live.pending = mode;
  $('output').textContent = '';
  $('summary').textContent = mode === 'step' ? 'Computing the run; the first stage follows…' : '';
  $('run-view').hidden = mode !== 'step' && $('run-view').hidden;
  document.body.dataset.run = 'running';
  setRunning(true);
  live.worker.postMessage({ cmd: 'start', ...runCommand(), step: mode === 'step' });
}

// ---- stepping -------------------------------------------------------------------------------

function step(kind) {
  live.t0 = performance.now();
  if (live.held) {
    // The engine goes on to where --step's key would hold it; the text streams if to the end.
    live.held = null;
    if (kind === 'end') live.pending = 'all';
    $('summary').textContent = kind === 'end' ? 'Running to the end…' : 'Computing the next ' + kind + '…';
    document.body.dataset.run = 'running';
    setRunning(true);
    live.worker.postMessage({ cmd: 'step', kind });
  } else if (live.shown && live.limit < live.total) {
    // The finished run's next stage, layer or token, from the module (the stages since the last).
    setRunning(true);
    live.worker.postMessage({ cmd: 'part', how: kind });
  } else if (kind !== 'end') {
    startRun('step');
  }
}

// ---- drawing --------------------------------------------------------------------------------

async function runPageMarkup() {
  if (live.runPageMarkup) return live.runPageMarkup;
  // The run page's own markup (viewer/web/run_page.html), so its panels are defined once.
  const response = await fetch('run_page.html');
  const doc = new DOMParser().parseFromString(await response.text(), 'text/html');
  doc.querySelectorAll('script, noscript, #error').forEach(e => e.remove());
  live.runPageMarkup = doc.body.innerHTML;
  return live.runPageMarkup;
}

// The run page's panels in the page, once.
async function fillRunView() {
  const view = $('run-view');
  if (view.dataset.filled) return;
  view.innerHTML = await runPageMarkup();
  view.prepend(el('div', { id: 'error', class: 'error', hidden: '' }));
  view.dataset.filled = '1';
}

// An attention's arithmetic (every cell's q · k and its rows' softmax terms), made by the module
// when the reader first opens one of its cells: the parts leave it out, so a step costs the same
// however long the prompt (a 150-token prompt's prefill holds 150 x 150 cells a head and layer).
function askArithmetic(a) {
  return new Promise((resolve, reject) => {
    const id = ++live.arithmeticAsked;
    live.arithmetic.set(id, { resolve, reject });
    live.worker.postMessage({ cmd: 'arith', id, step: a.step, layer: a.layer });
  });
}

async function showRun(part, bytes) {
  await fillRunView();
  $('run-view').hidden = false;
  document.body.dataset.view = '';
  const done = !live.held && live.limit >= live.total;
  history.replaceState(null, '', location.pathname + location.search);  // the last run's address names nothing here
  // Added to what the panels show and redrawn in place. A step (the form's buttons, the run
  // page's, a key) brings the stage's panel into view, as the run page's own steps do: on a laptop
  // the map fills the first screen.
  RunPage.apply(part, bytes, { start: live.limit - 1, pastEnd: done ? null : kind => step(kind), reveal: !done, arithmetic: askArithmetic });
  live.shown = true;
  const data = RunPage.data();
  $('output').textContent = '';
  const r = live.result;
  if (live.trainingStep) {
    // The window the step's first pass read: its tokens are the "prompt", nothing is generated.
    $('output').append(el('span', { class: 'prompt-text', text: r.window }));
    $('summary').textContent = done
      ? `Training step ${r.step}: loss ${r.losses[0].toFixed(4)} over its ${live.trainModel.batch} windows; the panels show its first window, ` +
        `forward, loss and backward (${live.total} stages).`
      : `Stepping through training step ${r.step}'s first window: stage ${live.limit} of ${live.total} ` +
        `(${data.stages[live.limit - 1].key}). Step stage or layer, or run to the end.`;
  } else {
    $('output').append(el('span', { class: 'prompt-text', text: data.run.prompt }), data.run.text);
    // The speeds are this tab's (a chapter's recorded line has its own machine's), timed by the
    // engine without the time the reader held the run at a stage (the module leaves it out).
    const held = done && r.heldSeconds > 0.05 ? `; the ${r.heldSeconds.toFixed(1)} s the run was held at stages not counted` : '';
    $('summary').textContent = done
      ? `Prompt tokens: ${r.promptTokens} | generated tokens: ${r.generatedTokens} | prefill: ${(r.promptTokens / r.prefillSeconds).toFixed(1)} tok/s | ` +
        `decode: ${r.decodeSteps ? (r.decodeSteps / r.decodeSeconds).toFixed(1) : '-'} tok/s ` +
        `(in this browser tab, the ${live.variant === 'threads' ? 'threaded' : 'single-threaded'} WebAssembly build${held}) | stopped by: ${r.stopReason}`
      : live.held ? `The engine waits at stage ${live.held.stage} (record ${live.limit} of the run so far), as --step holds it. Step stage, layer or token, or run to the end.`
      : `Stepping: stage ${live.limit} of ${live.total}. Step stage, layer or token, or run to the end. ` +
        // Why this build reveals instead of holding, and what to do for the other.
        'This single-threaded build cannot hold the engine at a stage (WebAssembly without threads cannot wait for the reader), so it ran ' +
        'the whole generation first and shows it stage by stage, each panel only as far as the engine had computed. The threaded build holds ' +
        'the engine itself: it runs where the page is cross-origin isolated (served with the COOP and COEP headers, or by make serve-web).';
  }
  document.body.dataset.run = done ? 'done' : 'stepping';
  document.body.dataset.revealed = String(live.limit);
  document.body.dataset.held = live.held ? '1' : '0';
  setRunning(false);
  // How long the step (or, once the engine was done, the panels) took to be drawn: measured after
  // the next frame, so style, layout and paint are in it (web/bench-steps.mjs reads these).
  const asked = live.t0, doneAt = done ? live.doneAt : 0, applied = performance.now();
  // Where it went: the engine (to the 'held' message, or to 'done'), the module making the part,
  // the messages between (the page's request, the part's transfer), the page applying and drawing
  // the part, and style, layout and paint to the frame.
  const engineAt = doneAt || (live.heldAt > asked ? live.heldAt : asked), partAt = live.partAt, moduleMs = live.moduleMs;
  requestAnimationFrame(() => setTimeout(() => {
    const now = performance.now();
    live.stepParts = { engine: engineAt - asked, module: moduleMs, messages: partAt - engineAt - moduleMs, page: applied - partAt, frame: now - applied };
    live.stepMs = now - asked;
    if (doneAt) live.panelsMs = now - doneAt;
    document.body.dataset.drawn = String((Number(document.body.dataset.drawn) || 0) + 1);
  }));
}

// ---- the Train panel -------------------------------------------------------------------------

// The panel's settings as LiveTrainingSettings::fromJson reads them.
function trainSettings() {
  const int = id => Number.parseInt($(id).value, 10);
  const settings = { dim: int('train-dim'), n_layers: int('train-layers'), seq_len: int('train-seq-len'), batch: int('train-batch'),
                     steps: int('train-steps'), lr: Number($('train-lr').value) };
  if ($('train-seed').value.trim() !== '') settings.seed = Number($('train-seed').value);
  return settings;
}

function trainRequest(request) { live.worker.postMessage({ cmd: 'train', request, text: $('train-text').value, file: live.trainFile }); }

// A new model on the panel's text; `then`: 'steps' (Start) or 'record' (one recorded step).
function startTraining(then) {
  if (!live.ready || live.running || live.training) return;
  showLiveError('');
  live.training = true;
  live.trainStopped = false;
  live.trainThen = then;
  live.trainModel = null;
  live.trainLast = null;
  live.trainLosses = [];
  $('train-samples').textContent = '';
  drawLossCurve();
  $('train-status').textContent = 'Drawing the initial weights…';
  document.body.dataset.training = 'starting';
  setRunning(false);
  trainRequest({ cmd: 'start', settings: trainSettings() });
}

function stopTraining(status) {
  live.training = false;
  document.body.dataset.training = 'stopped';
  $('train-status').textContent = status ?? live.trainLast ?? '';
  setRunning(false);
}

// Steps are asked for a few at a time (about a quarter of a second's worth), so the curve moves
// and Stop takes effect between two requests, in either build.
function askForSteps() {
  const perStep = live.trainSecondsPerStep || 0.1;
  live.worker.postMessage({ cmd: 'train', request: { cmd: 'steps', count: Math.max(1, Math.min(50, Math.round(0.25 / perStep))) } });
}

function samplePrompt() {
  const given = $('train-prompt').value;
  return given || $('train-text').value.trim().split(/\s+/).slice(0, 3).join(' ');
}

function askForSample() {
  const m = live.trainModel;
  live.worker.postMessage({ cmd: 'train', request: { cmd: 'sample', prompt: samplePrompt(), maxTokens: Math.min(40, Math.floor(m.seqLen * 0.75)), temperature: 0, seed: '1' } });
}

function trainStatus(r) {
  const m = live.trainModel, last = live.trainLosses[live.trainLosses.length - 1];
  return `Step ${live.trainLosses.length} of ${m.steps} | loss ${last.toFixed(3)} nats/token (from ${live.trainLosses[0].toFixed(3)}) | ` +
    `${r.tokensPerSecond.toFixed(0)} tokens/s | ${m.parameters.toLocaleString('en')} parameters: dim ${m.dim}, ${m.nLayers} layers, ` +
    `${m.nHeads}/${m.nKVHeads} heads, FFN ${m.ffn}, windows of ${m.seqLen} tokens x ${m.batch}, ${m.tokens.toLocaleString('en')} tokens of text`;
}

function onTrained(r) {
  if (!r.ok) {
    showLiveError('Training: ' + r.error);
    if (r.cmd === 'start') live.trainModel = live.trainLast = null;
    stopTraining(null);
    document.body.dataset.training = 'error';
    return;
  }
  if (r.cmd === 'start') {
    live.trainModel = r;
    $('train-status').textContent = `A new model: ${r.parameters.toLocaleString('en')} parameters, ${r.tokens.toLocaleString('en')} tokens to learn.`;
    $('train-command').textContent = `The same training in a terminal (the same losses): ${r.command} --text FILE --out DIR`;
    document.body.dataset.training = 'running';
    if (live.trainThen === 'record') live.worker.postMessage({ cmd: 'train', request: { cmd: 'record' } });
    else askForSteps();
  } else if (r.cmd === 'steps' || r.cmd === 'record') {
    const before = live.trainLosses.length;
    live.trainLosses.push(...r.losses);
    if (r.losses.length) live.trainSecondsPerStep = r.seconds / r.losses.length;
    drawLossCurve();
    live.trainLast = $('train-status').textContent = trainStatus(r);
    document.body.dataset.trainSteps = String(live.trainLosses.length);
    if (r.cmd === 'record') {
      // The recorded window's panels, revealed from its first stage.
      stopTraining(null);
      live.trainingStep = true;
      live.result = r;
      live.pending = 'step';
      live.shown = false;
      live.worker.postMessage({ cmd: 'part', how: 'first' });
      return;
    }
    const every = Math.max(1, Number.parseInt($('train-sample-every').value, 10) || 25);
    const sampleNow = Math.floor(live.trainLosses.length / every) > Math.floor(before / every) || r.step >= live.trainModel.steps;
    if (sampleNow) askForSample();
    else if (live.trainStopped || r.step >= live.trainModel.steps) stopTraining(null);
    else askForSteps();
  } else if (r.cmd === 'sample') {
    const item = el('li', {}, el('span', { class: 'sample-step', text: 'step ' + live.trainLosses.length }),
                    el('span', { class: 'prompt-text', text: r.prompt }), r.text);
    $('train-samples').prepend(item);
    document.body.dataset.trainSamples = String($('train-samples').children.length);
    if (live.trainStopped || live.trainLosses.length >= live.trainModel.steps || !live.training) stopTraining(null);
    else askForSteps();
  }
}

// The loss by step as an SVG polyline, drawn to the element's own width (a phone's or a desktop's).
function drawLossCurve() {
  const svg = $('train-curve');
  const W = svg.clientWidth || 600, H = svg.clientHeight || 180;
  const ns = 'http://www.w3.org/2000/svg';
  const node = (tag, attrs, text) => {
    const n = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  };
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.textContent = '';
  const losses = live.trainLosses;
  const left = 40, right = 10, top = 10, bottom = 22;
  svg.append(node('line', { class: 'axis', x1: left, y1: H - bottom, x2: W - right, y2: H - bottom }),
             node('line', { class: 'axis', x1: left, y1: top, x2: left, y2: H - bottom }));
  if (!losses.length) {
    svg.append(node('text', { x: left + 8, y: H / 2 }, 'the loss by step appears here'));
    return;
  }
  const hi = Math.max(...losses), lo = Math.min(...losses), span = Math.max(hi - lo, 1e-6);
  const n = Math.max(losses.length - 1, 1);
  const x = i => left + (W - left - right) * i / n, y = v => top + (H - top - bottom) * (hi - v) / span;
  svg.append(node('polyline', { class: 'loss', points: losses.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ') }),
             node('text', { x: 2, y: top + 10 }, hi.toFixed(2)),
             node('text', { x: 2, y: H - bottom }, lo.toFixed(2)),
             node('text', { x: left, y: H - 6 }, 'step 1'),
             node('text', { x: W - right, y: H - 6, 'text-anchor': 'end' }, `step ${losses.length}, loss ${losses[losses.length - 1].toFixed(3)}`));
}

$('train-start').onclick = () => startTraining('steps');
$('train-stop').onclick = () => {
  live.trainStopped = true;
  $('train-status').textContent += ' | stopping after this request…';
};
// One step recorded: on the model being trained, else on a new one.
$('train-step').onclick = () => {
  if (!live.ready || live.running || live.training) return;
  if (!live.trainModel) { startTraining('record'); return; }
  showLiveError('');
  live.training = true;
  setRunning(false);
  $('train-status').textContent = 'Recording one training step…';
  live.worker.postMessage({ cmd: 'train', request: { cmd: 'record' } });
};
$('train-text').oninput = () => { live.trainFile = null; $('train-file').textContent = ''; live.trainModel = null; };
for (const id of ['train-dim', 'train-layers', 'train-seq-len', 'train-batch', 'train-lr', 'train-steps', 'train-seed'])
  $(id).onchange = () => { live.trainModel = null; };  // the next Start or Step makes a model with these
// A text file dropped on the panel is the text to learn (a model file dropped elsewhere is a model).
function useTrainingFile(file) {
  live.trainFile = file;
  live.trainModel = null;
  $('train-file').textContent = `Learning the file ${file.name} (${file.size.toLocaleString('en')} bytes), byte for byte; type in the box to learn its text instead.`;
  file.slice(0, 20000).text().then(t => { $('train-text').value = t; });
}
$('train-panel').ondragover = e => { e.preventDefault(); e.stopPropagation(); };
$('train-panel').ondrop = e => {
  e.preventDefault();
  e.stopPropagation();
  document.body.classList.remove('dragging');
  if (e.dataTransfer.files.length) useTrainingFile(e.dataTransfer.files[0]);
  else if (e.dataTransfer.getData('text')) { $('train-text').value = e.dataTransfer.getData('text'); $('train-text').oninput(); }
};
addEventListener('resize', () => drawLossCurve());
$('train-panel').ontoggle = () => drawLossCurve();

// ---- the reader's model files ---------------------------------------------------------------

function openFiles(files) {
  if (!files.length || !live.ready || live.running) return;
  live.worker.postMessage({ cmd: 'files', files: [...files] });
}

$('run-form').onsubmit = e => { e.preventDefault(); startRun('all'); };
$('run-to-end').onclick = () => (live.held || (live.shown && live.limit < live.total) ? step('end') : startRun('all'));
$('step-stage').onclick = () => step('stage');
$('step-layer').onclick = () => step('layer');
$('step-token').onclick = () => step('token');
$('stop').onclick = () => {
  if (live.variant === 'threads') {
    // A held run ends where it waits; its 'done' draws what it computed, as a run stopped mid-way.
    if (live.held) {
      live.held = null;
      live.pending = 'all';
      $('summary').textContent = 'Stopping…';
      setRunning(true);
    }
    live.worker.postMessage({ cmd: 'stop' });
  } else restartAfter('Stopped: the single-threaded engine cannot take a message while it computes, so it was ended and started again.');
};
// The run as a trace (for the viewer, `diff`, export-html) or as export-html's self-contained page.
$('save-trace').onclick = () => { live.exportWhat = 'trace'; live.worker.postMessage({ cmd: 'export' }); };
$('save-page').onclick = () => { live.exportWhat = 'page'; live.worker.postMessage({ cmd: 'export' }); };
$('chat').onchange = () => { $('system-label').hidden = !$('chat').checked; };
$('model-files').onchange = e => openFiles(e.target.files);
$('bundled').onclick = () => { live.model = null; $('model-name').textContent = 'Bundled model (9.7M parameters, King James Bible)'; };
document.body.ondragover = e => { e.preventDefault(); document.body.classList.add('dragging'); };
document.body.ondragleave = () => document.body.classList.remove('dragging');
document.body.ondrop = e => { e.preventDefault(); document.body.classList.remove('dragging'); openFiles(e.dataTransfer.files); };

// A chapter's "Run it here" link: #cmd=<the command's words, JSON>&expect=<the recorded output>.
function readCourseCommand() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (!p.has('cmd')) return;
  let args;
  try { args = JSON.parse(p.get('cmd')); } catch (e) { showLiveError('The link\'s command is damaged: ' + e.message); return; }
  if (!Array.isArray(args) || !args.every(a => typeof a === 'string')) { showLiveError('The link\'s command is not a list of words.'); return; }
  live.exactArgs = args;
  // Shown as a shell would read it back: single quotes keep every character but ' itself.
  const quoted = args.map(a => (/^[\w.,:/=+-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
  $('course-line').textContent = '$ llama-walkthrough ' + quoted;
  $('course-expected').textContent = p.get('expect') || '';
  $('course-command').hidden = false;
  $('run-form').classList.add('from-course');
}
$('use-form').onclick = () => { live.exactArgs = null; $('course-command').hidden = true; };

readCourseCommand();
isolation().then(how => {
  live.isolation = how;
  if (how !== 'reloading') startWorker();
});
