// The live page: a form that becomes llama-walkthrough's own options, the engine in a worker
// (engine_worker.js), and the finished run drawn by the run page's script (run_page.js, the
// same panels export-html writes). Stepping reveals the run stage by stage: the engine runs the
// generation, and the panels show only what it had computed up to the stage the reader is at.
'use strict';

const live = {
  worker: null,
  variant: '',
  ready: false,
  running: false,
  data: null,      // the finished run's page data, decoded
  limit: 0,        // stages revealed
  pending: null,   // what to do once a run's data arrives: 'all' or 'step'
  model: null,     // --model of the reader's own files, or null for the bundled model
  runPageMarkup: null,
};

function setBuild(text) { $('build').textContent = text; }
function showLiveError(text) {
  const box = $('live-error');
  box.hidden = !text;
  box.textContent = text || '';
}
function setRunning(running) {
  live.running = running;
  $('stop').disabled = !running;
  for (const id of ['run', 'run-to-end', 'bundled']) $(id).disabled = running || !live.ready;
  $('model-files').disabled = running || !live.ready;
  const stepping = !!live.data && live.limit < live.data.stages.length;
  for (const id of ['step-stage', 'step-layer', 'step-token']) $(id).disabled = (running || !live.ready) && !stepping;
  $('save-trace').disabled = $('save-page').disabled = running || !live.data;
  document.body.dataset.running = running ? '1' : '0';
}

// ---- the worker -----------------------------------------------------------------------------

function startWorker() {
  if (live.worker) live.worker.terminate();
  live.ready = false;
  live.worker = new Worker('engine_worker.js');
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

function onWorkerMessage(m) {
  if (m.kind === 'ready') {
    live.ready = true;
    live.variant = m.variant;
    setBuild(m.variant === 'threads'
      ? `Engine ready: the threaded build (Q, K and V on three threads, ${m.cores} compute threads), ${m.info.kernels} kernels.`
      : `Engine ready: the single-threaded build (this page is not cross-origin isolated: Q, K and V run one after another, the same numbers), ${m.info.kernels} kernels.`);
    document.body.dataset.variant = m.variant;
    document.body.dataset.engine = 'ready';
    setRunning(false);
  } else if (m.kind === 'text') {
    if (live.pending === 'all') $('output').append(m.text);
  } else if (m.kind === 'done') {
    const r = JSON.parse(m.text);
    if (!r.ok) {
      live.pending = null;
      setRunning(false);
      showLiveError(r.error);
      document.body.dataset.run = 'error';
      return;
    }
    live.result = r;
    live.worker.postMessage({ cmd: 'pageData' });
  } else if (m.kind === 'page') {
    const p = JSON.parse(m.text);
    setRunning(false);
    if (!p.ok) { showLiveError(p.error); return; }
    try {
      live.data = decodeRunData(p.data);
    } catch (e) {
      showLiveError('the run data could not be read: ' + e.message);
      return;
    }
    live.limit = live.pending === 'step' ? 1 : live.data.stages.length;
    live.pending = null;
    showRun();
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

// Shell-like words of the "more options" field: spaces separate, quotes group.
function words(text) {
  const out = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m; (m = re.exec(text));) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

function runArgs() {
  const args = ['--model', live.model || 'assets/model', '--prompt', $('prompt').value];
  const value = id => $(id).value.trim();
  if ($('chat').checked) args.push('--chat', '--system', $('system').value);
  const numbers = { 'max-tokens': '--max-tokens', temperature: '--temperature', seed: '--seed', 'top-k': '--top-k', 'top-p': '--top-p',
                    'min-p': '--min-p', 'repeat-penalty': '--repeat-penalty', 'frequency-penalty': '--frequency-penalty',
                    'presence-penalty': '--presence-penalty', 'rope-theta': '--rope-theta' };
  for (const [id, flag] of Object.entries(numbers)) if (value(id) !== '') args.push(flag, value(id));
  for (const id of ['no-mask', 'no-kv-cache', 'no-rope']) if ($(id).checked) args.push('--' + id);
  for (const l of value('skip-layers').split(/[\s,]+/).filter(Boolean)) args.push('--skip-layer', l);
  for (const h of value('ablate-heads').split(/[\s,]+/).filter(Boolean)) args.push('--ablate-head', h);
  return args.concat(words($('extra').value));
}

function startRun(mode) {
  if (!live.ready || live.running) return;
  showLiveError('');
  live.data = null;
  live.pending = mode;
  $('output').textContent = '';
  $('summary').textContent = mode === 'step' ? 'Computing the run; the first stage follows…' : '';
  $('run-view').hidden = mode !== 'step' && $('run-view').hidden;
  document.body.dataset.run = 'running';
  setRunning(true);
  live.worker.postMessage({ cmd: 'start', args: runArgs() });
}

// ---- stepping -------------------------------------------------------------------------------

// The run as the engine had it after `limit` stages: later stages, the tokens not sampled yet and
// the attention, masks and lens of stages not reached are left out, so no panel shows the future.
function revealed(data, limit) {
  if (limit >= data.stages.length) return data;
  const shown = data.stages.slice(0, limit);
  const last = shown[shown.length - 1];
  const sampled = new Set(shown.filter(s => s.key === 'sample').map(s => s.step));
  const masked = new Set(shown.filter(s => s.key === 'mask').map(s => s.step));
  const promptCount = data.tokens.filter(t => !t.generated).length;
  const tokens = data.tokens.filter((t, i) => !t.generated || sampled.has(i - promptCount));
  const text = tokens.filter(t => t.generated).map(t => t.piece).join('');
  return {
    ...data,
    stages: shown,
    tokens,
    steps: data.steps.filter(s => s.step <= last.step).map(s => (sampled.has(s.step) ? s : { ...s, sampled: -1, sampledP: 0 })),
    attention: data.attention.filter(a => a.stage < limit),
    masks: data.masks.filter(m => masked.has(m.step)),
    lens: data.lens.filter(l => l.step < last.step),
    map: { ...data.map, views: data.map.views.filter(v => v.step <= last.step) },
    run: { ...data.run, text, stopReason: 'stepping: stage ' + limit + ' of ' + data.stages.length },
  };
}

function nextLimit(kind) {
  const stages = live.data.stages, cur = live.limit - 1;
  if (kind === 'stage') return live.limit + 1;
  if (kind === 'end') return stages.length;
  const from = stages[cur];
  for (let j = cur + 1; j < stages.length; j++)
    if (kind === 'layer' ? stages[j].layer !== from.layer : stages[j].key === 'logits') return j + 1;
  return stages.length;
}

function step(kind) {
  if (live.data && live.limit < live.data.stages.length) {
    live.limit = Math.min(nextLimit(kind), live.data.stages.length);
    showRun();
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

async function showRun() {
  const view = $('run-view');
  if (!view.dataset.filled) {
    view.innerHTML = await runPageMarkup();
    view.prepend(el('div', { id: 'error', class: 'error', hidden: '' }));
    view.dataset.filled = '1';
  }
  view.hidden = false;
  const data = revealed(live.data, live.limit);
  const done = live.limit >= live.data.stages.length;
  $('output').textContent = '';
  $('output').append(el('span', { class: 'prompt-text', text: live.data.run.prompt }), data.run.text);
  const r = live.result;
  $('summary').textContent = done
    ? `Prompt tokens: ${r.promptTokens} | generated tokens: ${r.generatedTokens} | prefill: ${(r.promptTokens / r.prefillSeconds).toFixed(1)} tok/s | ` +
      `decode: ${r.decodeSteps ? (r.decodeSteps / r.decodeSeconds).toFixed(1) : '-'} tok/s | stopped by: ${r.stopReason}`
    : `Stepping: stage ${live.limit} of ${live.data.stages.length}. Step stage, layer or token, or run to the end.`;
  history.replaceState(null, '', location.pathname + location.search);  // the last run's address names nothing here
  RunPage(data, { start: live.limit - 1, pastEnd: done ? null : () => step('stage') });
  document.body.dataset.run = done ? 'done' : 'stepping';
  document.body.dataset.revealed = String(live.limit);
  setRunning(false);
}

// ---- the reader's model files ---------------------------------------------------------------

function openFiles(files) {
  if (!files.length || !live.ready || live.running) return;
  live.worker.postMessage({ cmd: 'files', files: [...files] });
}

$('run-form').onsubmit = e => { e.preventDefault(); startRun('all'); };
$('run-to-end').onclick = () => (live.data && live.limit < live.data.stages.length ? step('end') : startRun('all'));
$('step-stage').onclick = () => step('stage');
$('step-layer').onclick = () => step('layer');
$('step-token').onclick = () => step('token');
$('stop').onclick = () => {
  if (live.variant === 'threads') live.worker.postMessage({ cmd: 'stop' });
  else restartAfter('Stopped: the single-threaded engine cannot take a message while it computes, so it was ended and started again.');
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

startWorker();
