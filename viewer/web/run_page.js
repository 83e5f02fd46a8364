// The page of one recorded run (llama-walkthrough export-html). Every number shown was computed in
// C++ (viewer/page/run_page_data.cpp) and embedded as JSON with base64 float32 (or bfloat16)
// arrays; this script decodes, draws and navigates, and finishes the shown attention cell's
// arithmetic from the C++'s q · k and row terms (a division, the mask, one exp). Plain DOM and canvas, no library: the drawings are a few
// boxes, bars and one heatmap of at most a few hundred cells per side, which a charting library
// (D3 alone is ~280 KB) would not make simpler.
'use strict';

class DataError extends Error {}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

// A base64 float32 array of the embedded data, checked against its stated length; "bf16" arrays
// hold the high halves of float32 numbers whose low halves are zero (bfloat16 values, exactly).
function floats(a, where) {
  if (!a || (a.dtype !== 'f32' && a.dtype !== 'bf16') || typeof a.b64 !== 'string' || !Number.isInteger(a.n))
    throw new DataError(where + ' is not an embedded float array');
  let bin;
  try { bin = atob(a.b64); } catch (e) { throw new DataError(where + ': its base64 text is damaged'); }
  const width = a.dtype === 'bf16' ? 2 : 4;
  if (bin.length !== a.n * width)
    throw new DataError(`${where}: expected ${a.n} ${a.dtype} numbers (${a.n * width} bytes), found ${bin.length} bytes`);
  if (width === 2) {
    const bits = new Uint32Array(a.n);
    for (let i = 0; i < a.n; i++) bits[i] = ((bin.charCodeAt(2 * i + 1) << 8) | bin.charCodeAt(2 * i)) << 16;
    return new Float32Array(bits.buffer);
  }
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  if (littleEndian) return new Float32Array(bytes.buffer);
  const view = new DataView(bytes.buffer), out = new Float32Array(a.n);
  for (let i = 0; i < a.n; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

// JSON numbers, or "inf"/"-inf"/"nan" as the trace writes them.
function num(v) {
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  if (v === 'nan') return NaN;
  return v;
}

function fmt(v, digits = 5) {
  v = num(v);
  if (v === -Infinity) return '-inf';
  if (v === Infinity) return 'inf';
  if (Number.isNaN(v)) return 'nan';
  if (v === 0) return '0';
  return Number(v.toPrecision(digits)).toString();
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function $(id) { return document.getElementById(id); }

function showError(message) {
  const box = $('error');
  box.hidden = false;
  box.textContent = 'This page cannot show its run: ' + message;
  for (const id of ['header', 'controls', 'main']) { const e = $(id); if (e) e.hidden = true; }
}

// ---- data --------------------------------------------------------------------------------------

// FNV-1a (32 bits) of a text's UTF-8 bytes, as viewer/page/run_page.cpp's dataChecksum.
function checksum(text) {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) h = Math.imul(h ^ byte, 16777619) >>> 0;
  return h.toString(16).padStart(8, '0');
}

function loadData() {
  const element = $('run-data');
  let data;
  try {
    data = JSON.parse(element.textContent);
  } catch (e) {
    throw new DataError('the embedded run data is damaged (' + e.message + ')');
  }
  data = decodeRunData(data);
  // What still parses and decodes can hold a changed number: the checksum the export wrote says.
  const expected = element.dataset.checksum, found = checksum(element.textContent);
  if (expected && expected !== found)
    throw new DataError(`the embedded run data was damaged after the export: its checksum is ${found}, the export wrote ${expected}. Export or download the page again.`);
  return data;
}

// Checks the run data's format and decodes its arrays: damage shows at load, not on some later
// click. The live page (web/page) gives it the data the engine module made.
function decodeRunData(data) {
  if (!data || data.format !== 1 || !Array.isArray(data.stages) || !Array.isArray(data.catalog))
    throw new DataError('the embedded run data is not a run of this page\'s format (format 1)');
  data.attention.forEach((a, i) => {
    a.probsF = floats(a.probs, `attention[${i}].probs`);
    if (a.probsF.length !== a.heads * a.rows * a.cols) throw new DataError(`attention[${i}]: ${a.probsF.length} values for ${a.heads}x${a.rows}x${a.cols}`);
    if (a.arith) for (const k of ['dot', 'rowMax', 'sumExp', 'visible'])
      a.arith[k + 'F'] = floats(a.arith[k], `attention[${i}].arith.${k}`);
  });
  data.masks.forEach((m, i) => { m.valuesF = floats(m.values, `masks[${i}].values`); });
  return data;
}

// ---- drawing helpers: no run, no reader's choices ----------------------------------------------

// A patch cell's colour: the share of the logit difference recovered, -1 blue, 0 white, 1 red.
function patchColour(v) {
  const t = Math.max(-1, Math.min(1, v)), k = Math.round(255 * (1 - Math.abs(t)));
  return t >= 0 ? `rgb(255,${k},${k})` : `rgb(${k},${k},255)`;
}

// An element of the map's SVG.
const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// Each shape label where it neither covers nor touches a box or a label placed before it: its
// own place first, then a row above or below, then (an arrow across) just above the box it
// enters (ffnUpX would otherwise end at softmax's edge). Measured as drawn (getBBox).
const LABEL_MARGIN = 0.035;  // map units: a little over 2 px at 1366x768
function placeLabels(root, labels, boxes) {
  const placed = boxes.map(b => ({ x: b.x, y: b.y, width: b.w, height: b.h }));
  const clear = r => placed.every(o => r.x + r.width + LABEL_MARGIN <= o.x || o.x + o.width + LABEL_MARGIN <= r.x ||
                                      r.y + r.height + LABEL_MARGIN <= o.y || o.y + o.height + LABEL_MARGIN <= r.y);
  for (const { el: l, above } of labels) {
    root.append(l);
    const own = { x: l.getAttribute('x'), y: Number(l.getAttribute('y')), anchor: l.getAttribute('text-anchor') };
    const places = [0, -0.2, 0.2, -0.4, 0.4].map(dy => ({ ...own, y: own.y + dy }));
    if (above) places.push({ x: above.x, y: above.y, anchor: 'start' }, { x: above.x, y: above.y - 0.1, anchor: 'start' });
    const at = p => { l.setAttribute('x', p.x); l.setAttribute('y', p.y); l.setAttribute('text-anchor', p.anchor); return l.getBBox(); };
    let box = null;
    for (const p of places) if (clear(box = at(p))) break;
    if (!clear(box)) box = at(own);  // nowhere clear: where the arrow is
    placed.push(box);
  }
}

// A colour from near white (0) to deep blue (1); masked cells are drawn grey.
function colour(p) {
  const t = Math.max(0, Math.min(1, p));
  const u = Math.sqrt(t);  // small probabilities stay visible
  return `rgb(${Math.round(250 - 220 * u)},${Math.round(250 - 170 * u)},${Math.round(255 - 95 * u)})`;
}

// One bar of a chart: its length is `fraction` of a track every row of the chart shares (the
// rows are one grid, .bars), whatever the label or the number beside it.
function barRow(attrs, label, fraction, value) {
  return el('div', attrs, el('span', { class: 'bar-label', text: label }),
    el('span', { class: 'bar-track' }, el('span', { class: 'bar', style: `width:${(100 * Math.max(0, Math.min(1, fraction))).toFixed(2)}%` })),
    el('span', { class: 'bar-value', text: value }));
}

// Tokens' probabilities as bars, the sampled one marked.
function bars(box, tokens, sampled) {
  box.textContent = '';
  const most = Math.max(1e-9, ...tokens.map(t => num(t.p)));
  tokens.forEach((t, rank) => box.append(barRow({ class: 'bar-row' + (t.id === sampled ? ' lit' : ''), 'data-rank': rank + 1, 'data-p': num(t.p) },
    (t.id === sampled ? '▶ ' : '') + JSON.stringify(t.piece), num(t.p) / most, `p ${fmt(t.p, 4)} · logit ${fmt(t.logit, 4)} · #${t.id}`)));
}

// A batch's KV cell, coloured by its sequence (several: shared; none: free).
function colourOf(b, seqIds) {
  if (!seqIds.length) return b.colours.free;
  return seqIds.length > 1 ? b.colours.shared : b.colours[String(seqIds[0])];
}
function cellBox(b, c, j, attrs = {}) {
  const box = el('span', { class: 'cell' + (c.pos < 0 ? ' free' : ''), 'data-cell': j, 'data-pos': c.pos, 'data-seqs': c.seqIds.join(','),
    style: `background:${colourOf(b, c.seqIds)}`, title: c.pos < 0 ? `cell ${j}: free` : `cell ${j}: pos ${c.pos}, seq ${c.seqIds.join(',')}`, ...attrs },
    el('span', { text: String(j) }), el('span', { text: c.pos < 0 ? '·' : String(c.pos) }));
  return box;
}

// ---- the page ----------------------------------------------------------------------------------

// The run page, one per document: RunPage.show(data, opts) draws a run and navigates it. The live
// page (web/page) calls it again at every step with the run recorded so far: the same page is
// redrawn in place, keeping what the reader chose (the head, the zoom, the folded tokens, the
// temperature), with the key, address and button handlers installed by the first show.
// opts.start: the stage to show first when the address names none (default: the first);
// opts.pastEnd(kind): called when the next stage, layer or token step is past the stages shown
// ('stage', 'layer', 'token'): the live page steps its run on.
const RunPage = (() => {
  // The run shown and its indexes, replaced by each show.
  let data, pageOpts, catalog, stages, byPlace, steps, attention, masks, lens, mapViews;
  // What the reader chose, kept from one show to the next.
  const state = { i: 0, head: 0, cell: null, sweep: 4 };

  function setRun(run, opts) {
    data = run;
    pageOpts = opts;
    catalog = new Map(data.catalog.map(c => [c.key, c]));
    stages = data.stages;
    byPlace = new Map();  // "step|layer|key" -> first stage index
    stages.forEach((s, i) => {
      const k = `${s.step}|${s.layer}|${s.key}`;
      if (!byPlace.has(k)) byPlace.set(k, i);
    });
    steps = new Map(data.steps.map(s => [s.step, s]));
    attention = new Map(data.attention.map(a => [`${a.step}|${a.layer}`, a]));
    masks = new Map(data.masks.map(m => [m.step, m]));
    lens = new Map(data.lens.map(l => [l.step, l]));
    mapViews = new Map(data.map.views.map(v => [`${v.step}|${v.layer}`, v]));
  }

  const stepLabel = step => step === 0 ? 'step 0 (prefill)' : `step ${step}`;
  const tokenAt = pos => data.tokens[pos];
  const pieceAt = pos => (tokenAt(pos) ? tokenAt(pos).piece : '?');

  // ---- navigation ----
  function go(i, opts = {}) {
    if (i === stages.length && pageOpts.pastEnd) return pageOpts.pastEnd('stage');  // the live page steps the run on
    if (!(i >= 0 && i < stages.length)) return;
    state.i = i;
    const a = attention.get(`${stages[i].step}|${stages[i].layer}`);
    if (a && state.head >= a.heads) state.head = 0;
    if (!opts.keepCell) state.cell = null;
    if (!opts.fromHash) $('link-note').hidden = true;  // a link's note holds until the reader moves on
    render();
    if (!opts.fromHash) writeHash();
    if (opts.reveal) revealStage();
  }
  // A step by key or button shows the stage's panel: if its title is out of sight (the map fills a
  // laptop's first screen), the page scrolls to it, below the sticky controls.
  function revealStage() {
    const title = $('stage-title');
    if (!title || !title.getClientRects().length) return;
    const top = title.getBoundingClientRect().top, controls = $('controls').getBoundingClientRect().bottom;
    if (top < controls || top > window.innerHeight - 80) window.scrollBy(0, top - controls - 8);
  }
  function findIn(step, layer, key) {
    const i = byPlace.get(`${step}|${layer}|${key}`);
    return i === undefined ? -1 : i;
  }
  function moveLayer(dir) {
    const s = stages[state.i];
    const nLayers = data.model.nLayers;
    for (let l = s.layer + dir; l >= -1 && l <= nLayers; l += dir) {
      if (l < 0 || l >= nLayers) break;
      const j = findIn(s.step, l, s.key);
      if (j >= 0) return go(j, { reveal: true });
      const first = stages.findIndex(t => t.step === s.step && t.layer === l);
      if (first >= 0) return go(first, { reveal: true });
    }
    if (dir > 0 && pageOpts.pastEnd) pageOpts.pastEnd('layer');
  }
  function moveStep(dir) {
    const s = stages[state.i];
    const target = data.steps.map(t => t.step).concat([...new Set(stages.map(t => t.step))]).filter(t => (dir > 0 ? t > s.step : t < s.step));
    if (!target.length) return dir > 0 && pageOpts.pastEnd ? pageOpts.pastEnd('token') : undefined;
    const step = dir > 0 ? Math.min(...target) : Math.max(...target);
    const j = findIn(step, s.layer, s.key);
    go(j >= 0 ? j : stages.findIndex(t => t.step === step), { reveal: true });
  }

  // The address names the place shown. A new stage is a new history entry (Back returns to the
  // stage before); a head or a cell chosen on the same stage replaces the entry.
  function writeHash() {
    const s = stages[state.i];
    const p = new URLSearchParams();
    p.set('step', s.step);
    if (s.layer >= 0) p.set('layer', s.layer + 1);
    p.set('stage', s.key);
    if (attention.has(`${s.step}|${s.layer}`)) p.set('head', state.head + 1);
    if (state.cell) { p.set('q', state.cell.q); p.set('k', state.cell.k); }
    const hash = '#' + p.toString();
    if (location.hash === hash) return;
    const sameStage = new URLSearchParams(location.hash.slice(1));
    const same = sameStage.get('step') === String(s.step) && sameStage.get('stage') === s.key && (sameStage.get('layer') || '') === (s.layer >= 0 ? String(s.layer + 1) : '');
    if (same || !location.hash) history.replaceState(null, '', hash);
    else history.pushState(null, '', hash);
  }
  // Opens the place the address names. What the run does not have (a step, layer, stage, head or
  // cell) is said above the page, with where it went instead.
  function readHash() {
    const p = new URLSearchParams(location.hash.slice(1));
    if (![...p.keys()].length) return false;
    const problems = [];
    const whole = (name, min, max) => {
      if (!p.has(name)) return null;
      const v = Number(p.get(name));
      if (!Number.isInteger(v) || v < min || v > max) {
        problems.push(`${name}=${p.get(name)} (this run has ${name} ${min} to ${max})`);
        return undefined;
      }
      return v;
    };
    const stepsHere = [...new Set(stages.map(s => s.step))];
    let step = whole('step', Math.min(...stepsHere), Math.max(...stepsHere));
    if (step === null || step === undefined) step = 0;
    const key = p.get('stage');
    const info = key ? catalog.get(key) : null;
    if (key && !info) problems.push(`stage=${key} (no stage has that name; stage names are as the log and the timeline write them, e.g. scores_softmax)`);
    const layerNumber = whole('layer', 1, data.model.nLayers);
    let layer = layerNumber ? layerNumber - 1 : (info && info.inBlock ? 0 : -1);
    if (info && !info.inBlock && layerNumber) { problems.push(`layer=${layerNumber} with stage ${key}, which runs outside the layers`); layer = -1; }
    let i = info ? findIn(step, layer, key) : -1;
    if (i < 0 && info) {
      const elsewhere = stages.findIndex(s => s.step === step && s.key === key);
      problems.push(`stage ${key} at ${stepLabel(step)}${layer >= 0 ? ', layer ' + (layer + 1) : ''} (this run did not record it there${elsewhere >= 0 ? '' : ' at that step'})`);
      i = elsewhere;
    }
    if (i < 0) i = stages.findIndex(s => s.step === step && (layer < 0 || s.layer === layer));
    if (i < 0) i = 0;
    const a = attention.get(`${stages[i].step}|${stages[i].layer}`);
    state.head = 0;
    if (p.has('head')) {
      const h = a ? whole('head', 1, a.heads) : Number(p.get('head'));
      if (!a) problems.push(`head=${p.get('head')} (the stage shown has no recorded attention)`);
      else if (h) state.head = h - 1;
    }
    state.cell = null;
    if (p.has('q') || p.has('k')) {
      const q = Number(p.get('q')), k = Number(p.get('k'));
      if (a && Number.isInteger(q) && Number.isInteger(k) && q >= a.startPos && q < a.startPos + a.rows && k >= 0 && k < a.cols) state.cell = { q, k };
      else problems.push(a ? `cell q=${p.get('q')}, k=${p.get('k')} (${stepLabel(a.step)} has query positions ${a.startPos} to ${a.startPos + a.rows - 1}, key positions 0 to ${a.cols - 1})`
        : `cell q=${p.get('q')}, k=${p.get('k')} (the stage shown has no recorded attention)`);
    }
    go(i, { fromHash: true, keepCell: true });
    const note = $('link-note');
    note.hidden = !problems.length;
    if (problems.length) {
      const s = stages[state.i];
      note.textContent = `This link asks for what the run does not have: ${problems.join('; ')}. Showing ${stepLabel(s.step)}${s.layer >= 0 ? ', layer ' + (s.layer + 1) : ''}, stage ${s.key} instead.`;
    }
    return true;
  }

  // ---- drawing ----
  function renderHeader() {
    const m = data.model, r = data.run;
    $('title').textContent = 'Llama run: ' + JSON.stringify(r.prompt);
    $('model').textContent = `${m.format} (${m.path}) · dim ${m.dim} · ${m.nLayers} layers · ${m.nHeads} heads over ${m.nKvHeads} KV heads · HeadDim ${m.headDim} · vocabulary ${m.vocab} · ` +
      `temperature ${r.temperature}${r.dryRun ? ' · dry run (shapes only)' : ''} · stopped by: ${r.stopReason}`;
    $('what-if').hidden = !data.whatIf && !data.grammar;
    $('what-if').textContent = [data.whatIf ? 'What-if run: ' + data.whatIf + ' — this is an experiment, not the model as trained.' : '',
      data.grammar ? `Constrained by a grammar (${data.grammar}): tokens it did not allow were never sampled.` : ''].filter(Boolean).join(' ');
    $('compare-banner').hidden = !data.compare;
    if (data.compare) {
      const c = data.compare, f = c.first;
      $('compare-banner').hidden = false;
      $('compare-banner').textContent = f
        ? `Compared with ${c.nameB}: first divergence at ${stepLabel(f.step)}, ${f.where || 'outside the layers'}, stage ${f.key}` + (f.tensor ? `, tensor ${f.tensor}` : '') + ` (${f.text}${f.note ? ', ' + f.note : ''}).`
        : `Compared with ${c.nameB}: no divergence.`;
      if (f) $('compare-banner').append(' ', el('a', { href: '#', text: 'go there', onclick: e => { e.preventDefault(); go(f.stage); } }));
    }
  }

  // A patch trace's heatmap: share of the logit difference recovered per layer (rows) and position
  // or head (columns); a click opens the cell's stage in both runs.
  function renderPatch() {
    const p = data.patch;
    $('patch-panel').hidden = !p;
    if (!p) return;
    $('patch-about').textContent = `The ${p.site === 'head' ? 'output of one head (at every position)' : p.site + ' output at one position'} of one layer ` +
      `from the clean run ${JSON.stringify(p.clean)} into the corrupted run ${JSON.stringify(p.corrupt)}; answer ${JSON.stringify(p.answer)} against ${JSON.stringify(p.wrong)}.`;
    const t = $('patch-grid');
    t.replaceChildren(el('tr', {}, el('th', { text: 'layer' }), ...p.labels.map(l => el('th', { text: l }))));
    p.cells.forEach((row, l) => {
      const tr = el('tr', {}, el('th', { text: String(l + 1) }));
      row.forEach((cell, c) => {
        const td = el('td', { text: cell.recovered.toFixed(2), title: cell.text });
        td.style.background = patchColour(cell.recovered);
        td.dataset.layer = l + 1;
        td.dataset.column = c + 1;
        td.onmouseenter = () => { $('patch-readout').textContent = cell.text; };
        td.onclick = () => openPatchCell(l, c, td);
        tr.append(td);
      });
      t.append(tr);
    });
  }
  function openPatchCell(l, c, td) {
    const p = data.patch, layer = p.layers[l];
    document.querySelectorAll('#patch-grid td.chosen').forEach(x => x.classList.remove('chosen'));
    td.classList.add('chosen');
    $('patch-readout').textContent = p.cells[l][c].text;
    $('patch-stage').textContent = layer.stage === null ? `The runs did not record ${p.stageKey} at layer ${l + 1}.`
      : `${p.stageKey}, layer ${l + 1}, in both runs. Clean run: ${layer.clean || 'no summary'}. Corrupted run: ${layer.corrupt || 'no summary'}.` +
        (data.compare.perStage[layer.stage] ? ` Largest |clean - corrupted|: ${data.compare.perStage[layer.stage]}.` : '') +
        ' The panels below show the clean run at that stage; Compare pairs it with the corrupted one.';
    if (layer.stage !== null) go(layer.stage);
  }

  function renderTokens(s) {
    const box = $('tokens');
    box.textContent = '';
    // A long prompt's token strip folds to one line (folded at first on a phone); a button opens it.
    if (state.tokensFolded === undefined) state.tokensFolded = data.tokens.length > 24 && window.innerWidth < 760;
    box.classList.toggle('folded', state.tokensFolded);
    const toggle = $('tokens-toggle');
    toggle.textContent = state.tokensFolded ? `Show all ${data.tokens.length} tokens ▾` : `Fold the ${data.tokens.length} tokens to one line ▴`;
    toggle.setAttribute('aria-expanded', String(!state.tokensFolded));
    toggle.onclick = () => { state.tokensFolded = !state.tokensFolded; renderTokens(stages[state.i]); };
    const st = steps.get(s.step);
    const seqLen = st ? st.seqLen : 0;
    data.tokens.forEach((t, pos) => {
      const inStep = pos >= s.startPos && pos < s.startPos + seqLen;
      box.append(el('span', { class: 'token' + (t.generated ? ' generated' : '') + (t.special ? ' special' : '') + (inStep ? ' in-step' : ''),
        title: `position ${pos} · id ${t.id}${t.generated ? ' · generated' : ''}` }, el('sub', { text: String(pos) }), t.piece));
    });
  }

  // The viewer's map (state/forward_map.h), drawn in its own units: SVG scales it to the page.
  function renderMap(s) {
    const m = data.map;
    const layer = s.layer >= 0 ? s.layer : (state.mapLayer || 0);
    if (s.layer >= 0) state.mapLayer = s.layer;
    const view = mapViews.get(`${s.step}|${layer}`);
    $('map-where').textContent = `· ${stepLabel(s.step)} · the block shows layer ${layer + 1} of ${m.layers}`;
    const tabs = $('map-layers');
    tabs.textContent = '';
    for (let l = 0; l < m.layers; l++)
      tabs.append(el('button', { class: 'head' + (l === layer ? ' lit' : ''), 'data-map-layer': l + 1, onclick: () => {
        const j = s.layer >= 0 ? findIn(s.step, l, s.key) : -1;
        const first = stages.findIndex(t => t.step === s.step && t.layer === l);
        if (j >= 0) go(j); else if (first >= 0) go(first);
      } }, `layer ${l + 1}`));
    const root = $('map');
    root.textContent = '';
    root.setAttribute('viewBox', `-0.4 0 ${m.width + 0.8} ${m.height + 0.3}`);
    for (const sec of m.sections) {
      root.append(svg('rect', { class: 'map-section' + (sec.block ? ' block' : ''), x: sec.x, y: sec.y, width: sec.w, height: sec.h, rx: 0.1 }));
      root.append(svg('text', { class: 'map-section-title', x: sec.x + 0.1, y: sec.y - 0.08 }, sec.block ? `${sec.title} × ${m.layers} (layer ${layer + 1} shown)` : sec.title));
    }
    const labelled = new Set();  // a box's output fanning out to several boxes is labelled once
    const labels = [];           // drawn last, over the boxes, each on a white halo
    const intoTarget = new Map();  // labels already placed on arrows into a box: the next one goes below
    m.arrows.forEach((a, i) => {
      const f = m.boxes[a.from], t = m.boxes[a.to];
      const down = t.y > f.y + f.h / 2 && Math.abs(t.x - f.x) < f.w;
      const x1 = down ? f.x + f.w / 2 : f.x + f.w, y1 = down ? f.y + f.h : f.y + f.h / 2;
      const x2 = down ? t.x + t.w / 2 : t.x, y2 = down ? t.y : t.y + t.h / 2;
      const g = svg('g', { class: 'map-arrow' + (a.side ? ' side' : '') });
      g.append(svg('line', { x1, y1, x2, y2 }));
      root.append(g);
      const shape = view ? view.arrows[i] : '';
      if (!shape || a.side || labelled.has(`${a.from}|${shape}`)) return;
      labelled.add(`${a.from}|${shape}`);
      // Arrows that meet at one box (xq, xk, xv into the heads' split) get one line each.
      const n = intoTarget.get(a.to) || 0;
      intoTarget.set(a.to, n + 1);
      // Down a column: beside the arrow's middle. Across (into another column or a side box): just
      // before the box it enters, ending there, so it runs along the gap rather than over a box.
      const x = down ? (x1 + x2) / 2 + 0.05 : x2 - 0.04, y = (down ? (y1 + y2) / 2 + 0.05 : y2 - 0.06) - (down ? 0 : n * 0.2);
      // Across, the label may also sit just above the box it enters, inside its column.
      labels.push({ el: svg('text', { class: 'map-label', 'data-arrow': `${f.key}>${t.key}`, x, y, 'text-anchor': down ? 'start' : 'end' }, shape),
                    above: down ? null : { x: t.x + 0.05, y: t.y - 0.12 } });
    });
    const skipped = new Set(view ? view.skipped : []);
    m.boxes.forEach((b, i) => {
      const lit = b.stage === s.key && (b.inBlock ? s.layer === layer : s.layer < 0);
      const g = svg('g', { class: 'map-box' + (lit ? ' lit' : '') + (skipped.has(i) ? ' skipped' : ''), 'data-box': b.key });
      g.append(svg('title', {}, `${b.number}. ${b.title}`));
      g.append(svg('rect', { x: b.x, y: b.y, width: b.w, height: b.h }));
      g.append(svg('text', { x: b.x + 0.08, y: b.y + b.h / 2 + 0.07 }, b.label));
      g.addEventListener('click', () => {
        const j = findIn(s.step, b.inBlock ? layer : -1, b.stage);
        if (j >= 0) go(j);
      });
      root.append(g);
    });
    placeLabels(root, labels, m.boxes);
  }

  function renderTimeline(s) {
    const list = $('timeline');
    list.textContent = '';
    let current = null;
    stages.forEach((t, j) => {
      if (t.step !== s.step) return;
      const c = catalog.get(t.key);
      const item = el('li', { class: 'stage-item' + (j === state.i ? ' current' : ''), 'data-index': j, onclick: () => go(j) },
        el('span', { class: 'num', text: String(c.number) }), ' ', c.title, t.where ? el('span', { class: 'muted', text: ' · ' + t.where }) : '');
      if (data.compare && data.compare.perStage[j]) item.append(el('span', { class: 'diff-mark', text: ' Δ ' + data.compare.perStage[j] }));
      if (j === state.i) current = item;
      list.append(item);
    });
    // Scroll the list only (scrollIntoView would scroll the page too, and an opened link would not start at the top).
    if (current) list.scrollTop = Math.max(0, current.offsetTop - list.offsetTop - list.clientHeight / 2);
  }

  function renderStage(s) {
    const c = catalog.get(s.key);
    $('stage-title').textContent = `Stage ${c.number} · ${c.title}`;
    $('stage-where').textContent = [s.where, stepLabel(s.step), `start position ${s.startPos}`, `key ${s.key}`].filter(Boolean).join(' · ');
    $('stage-message').textContent = s.message;
    const ch = $('stage-chapter');
    ch.textContent = '';
    if (c.link) ch.append('Read: ', el('a', { href: c.link, target: '_top', text: `${c.chapter}, section “${c.title}”` }));
    else ch.append(`Read: chapters/${c.chapter}, section “${c.title}” (anchor stage: ${s.key})`);
    const shapes = $('shapes');
    shapes.textContent = '';
    for (const t of s.tensors) {
      shapes.append(el('div', { class: 'shape-box', 'data-tensor': t.name },
        el('div', { class: 'shape-name', text: t.name }), el('code', { class: 'shape', text: t.shape }), el('div', { class: 'muted', text: t.dtype }),
        t.stats ? el('div', { class: 'muted small', text: `min ${fmt(t.stats[0], 4)} · max ${fmt(t.stats[1], 4)} · mean ${fmt(t.stats[2], 4)}` }) : ''));
    }
  }

  function renderAttention(s) {
    const a = attention.get(`${s.step}|${s.layer}`);
    $('attention').hidden = !a;
    if (!a) return;
    $('attention-where').textContent = `· layer ${a.layer + 1} · ${stepLabel(a.step)} · head ${state.head + 1} of ${a.heads}`;
    const heads = $('heads');
    heads.textContent = '';
    for (let h = 0; h < a.heads; h++)
      heads.append(el('button', { class: 'head' + (h === state.head ? ' lit' : ''), 'data-head': h + 1, onclick: () => { state.head = h; render(); writeHash(); } }, `head ${h + 1}`));
    const cv = $('heatmap');
    const size = Math.max(6, Math.min(34, Math.floor(560 / Math.max(a.cols, a.rows))));
    const labelW = 90, labelH = 16;
    cv.width = labelW + a.cols * size;
    cv.height = labelH + a.rows * size;
    cv.dataset.size = size; cv.dataset.labelW = labelW; cv.dataset.labelH = labelH;
    const g = cv.getContext('2d');
    g.fillStyle = '#fff'; g.fillRect(0, 0, cv.width, cv.height);
    g.font = `${Math.min(12, size)}px sans-serif`;
    g.fillStyle = '#333';
    g.textBaseline = 'middle';
    const mask = masks.get(a.step);
    for (let r = 0; r < a.rows; r++) {
      const q = a.startPos + r;
      g.fillStyle = '#333';
      g.fillText(`${q} ${pieceAt(q)}`.slice(0, 12), 2, labelH + r * size + size / 2);
      for (let k = 0; k < a.cols; k++) {
        const p = a.probsF[(state.head * a.rows + r) * a.cols + k];
        const hidden = mask && mask.rows === a.rows && mask.cols === a.cols && mask.valuesF[r * a.cols + k] === -Infinity;
        g.fillStyle = hidden ? '#bbb' : colour(p);
        g.fillRect(labelW + k * size, labelH + r * size, size - 1, size - 1);
      }
    }
    if (size >= 10) for (let k = 0; k < a.cols; k += Math.ceil(12 / size)) { g.fillStyle = '#333'; g.fillText(String(k), labelW + k * size, labelH / 2); }
    if (state.cell && state.cell.q >= a.startPos && state.cell.q < a.startPos + a.rows && state.cell.k < a.cols) {
      g.strokeStyle = '#e08000'; g.lineWidth = 2;
      g.strokeRect(labelW + state.cell.k * size, labelH + (state.cell.q - a.startPos) * size, size - 1, size - 1);
    }
    // The cell under a pointer (or a tap), in the canvas's own pixels whatever its shown size.
    const cellAt = e => {
      const rect = cv.getBoundingClientRect();
      const x = (e.clientX - rect.left) * cv.width / rect.width - labelW, y = (e.clientY - rect.top) * cv.height / rect.height - labelH;
      const k = Math.floor(x / size), r = Math.floor(y / size);
      return k < 0 || r < 0 || k >= a.cols || r >= a.rows ? null : { r, k };
    };
    const readout = $('heat-readout');
    cv.onpointermove = e => {
      const c = cellAt(e);
      if (!c) return;
      const q = a.startPos + c.r, p = a.probsF[(state.head * a.rows + c.r) * a.cols + c.k];
      const hidden = mask && mask.rows === a.rows && mask.cols === a.cols && mask.valuesF[c.r * a.cols + c.k] === -Infinity;
      readout.textContent = `query ${q} ${JSON.stringify(pieceAt(q))} → key ${c.k} ${JSON.stringify(pieceAt(c.k))}: ${hidden ? 'masked (a later position), p 0' : 'p ' + fmt(p, 4)}`;
    };
    cv.onclick = e => {
      const c = cellAt(e);
      if (!c || state.panned) return;  // the end of a drag that panned picks no cell
      cv.onpointermove(e);
      state.cell = { q: a.startPos + c.r, k: c.k };
      render(); writeHash();
    };
    // Zoom: the canvas at 1x-8x its pixels inside a scrolling frame (scroll or drag to pan), or fitted.
    const wrap = $('heat-wrap'), zoom = $('heat-zoom');
    zoom.value = state.heatZoom || 'fit';
    zoom.onchange = () => { state.heatZoom = zoom.value; render(); };
    const factor = Number(zoom.value);
    wrap.classList.toggle('zoomed', !!factor);
    cv.style.width = factor ? `${cv.width * factor}px` : '';
    wrap.onpointerdown = e => {
      if (!factor || e.pointerType !== 'mouse') return;
      const start = { x: e.clientX, y: e.clientY, left: wrap.scrollLeft, top: wrap.scrollTop };
      state.panned = false;
      wrap.onpointermove = m => {
        if (!m.buttons) return;
        state.panned = state.panned || Math.hypot(m.clientX - start.x, m.clientY - start.y) > 4;
        wrap.scrollLeft = start.left - (m.clientX - start.x), wrap.scrollTop = start.top - (m.clientY - start.y);
      };
    };
    renderArithmetic(a);
  }

  function renderArithmetic(a) {
    const box = $('arith');
    box.textContent = '';
    if (!state.cell || state.cell.q < a.startPos || state.cell.q >= a.startPos + a.rows || state.cell.k >= a.cols) {
      box.append(el('p', { class: 'muted', text: 'Click a cell to see how its probability is computed.' }));
      return;
    }
    const r = state.cell.q - a.startPos, k = state.cell.k, h = state.head;
    const i = (h * a.rows + r) * a.cols + k, row = h * a.rows + r;
    const recorded = a.probsF[i];
    const line = (id, label, value) => el('div', { class: 'arith-line' }, el('span', { class: 'arith-label', text: label }), el('code', { id, text: value }));
    box.append(el('p', {}, `Head ${h + 1}, query position ${state.cell.q} (${pieceAt(state.cell.q)}) → key position ${k} (${pieceAt(k)})`));
    if (!a.arith) {
      box.append(line('arith-prob', 'probability (recorded, bf16)', fmt(recorded)));
      const budget = data.arithmetic;
      box.append(el('p', { class: 'muted', id: 'arith-missing', text: a.arithLeftOut
        ? `This step's arithmetic was left out to keep the page within ${budget.budgetMB} MB (it keeps the prefill's first, then the steps in order). \`${budget.allOf}\` writes a page with all of it; the viewer shows it too.`
        : 'The trace holds only the scores, not the xq and keys they came from: record with --trace-presoftmax (or --html) for the arithmetic.' }));
      return;
    }
    // The C++ export computed q · k and the row's max and sum (viewer/state/attention_explain.h);
    // the rest of the chain is the division, the mask's addition and one exp, done here for the
    // shown cell.
    const x = a.arith;
    const mask = masks.get(a.step);
    const maskValue = mask && mask.rows === a.rows && mask.cols === a.cols ? mask.valuesF[r * a.cols + k] : 0;
    const scaled = x.dotF[i] / x.scale, score = scaled + maskValue;
    const masked = score === -Infinity;
    const prob = masked ? 0 : Math.exp(score - x.rowMaxF[row]) / x.sumExpF[row];
    box.append(
      line('arith-dot', `1. q · k (sum of ${x.headDim} products)`, fmt(x.dotF[i])),
      line('arith-scale', '2. ÷ sqrt(HeadDim)', `÷ ${fmt(x.scale)} = ${fmt(scaled)}`),
      line('arith-mask', '3. + mask', masked ? '-inf (a later position) = -inf' : `+ 0 = ${fmt(score)}`),
      line('arith-softmax', `4. softmax over the row (${x.visibleF[row]} visible of ${a.cols})`, `max ${fmt(x.rowMaxF[row])}, sum exp(score − max) ${fmt(x.sumExpF[row])}`),
      line('arith-prob', '   = exp(score − max) / sum', fmt(prob)),
      line('arith-recorded', '   recorded by the engine (bf16)', fmt(recorded)));
  }

  function renderMask(s) {
    const m = masks.get(s.step);
    const show = m && (s.key === 'mask' || s.key === 'scores_mask');
    $('mask-panel').hidden = !show;
    if (!show) return;
    $('mask-where').textContent = `· ${stepLabel(s.step)} · [${m.rows} ${m.cols}]`;
    const cv = $('mask');
    const size = Math.max(4, Math.min(18, Math.floor(360 / Math.max(m.rows, m.cols))));
    cv.width = m.cols * size; cv.height = m.rows * size;
    const g = cv.getContext('2d');
    for (let r = 0; r < m.rows; r++)
      for (let c = 0; c < m.cols; c++) {
        g.fillStyle = m.valuesF[r * m.cols + c] === -Infinity ? '#335' : '#e8eefc';
        g.fillRect(c * size, r * size, size - 1, size - 1);
      }
  }

  function renderCache(s) {
    let fill = null;
    for (let j = state.i; j >= 0 && !fill; j--) if (stages[j].cache) fill = stages[j].cache;
    const show = s.layer >= 0 || ['cache_write', 'cache_read'].includes(s.key);
    $('cache-panel').hidden = !fill || !show;
    if (!fill || !show) return;
    const box = $('cache');
    box.textContent = '';
    const most = Math.max(1, ...fill);
    fill.forEach((n, l) => box.append(barRow({ class: 'bar-row' + (l === s.layer ? ' lit' : '') }, `layer ${l + 1}`, n / most, `${n} positions`)));
  }

  function renderLogits(s) {
    const st = steps.get(s.step);
    const show = st && st.top.length && s.layer < 0 && ['output_norm', 'output_projection', 'logits', 'sample'].includes(s.key);
    $('logits-panel').hidden = !show;
    if (!show) return;
    $('logits-where').textContent = `· ${stepLabel(s.step)} · at the run's temperature (1 when greedy)`;
    bars($('logits'), st.top, st.sampled);
    const sw = st.sweep[state.sweep] || st.sweep[0];
    $('sweep').value = state.sweep;
    $('sweep-value').textContent = sw.t === 0 ? '0 (greedy)' : String(sw.t);
    $('sweep-note').textContent = (sw.whole ? 'softmax(logits / T) over the whole vocabulary.'
      : `softmax(logits / T) over these ${sw.top.length} recorded tokens only, renormalised to sum to 1 (a trace keeps no other logits), so each is larger than its share of the whole vocabulary would be.`) +
      (sw.t === 0 ? ' At T = 0 the largest logit gets probability 1 (greedy); when two logits tie for the largest, the lower token id wins, as the sampler\'s argmax keeps the first.' : '');
    bars($('sweep-bars'), sw.top, st.sampled);
  }

  // A long prompt's lens is read through a window of positions (a slider moves it), so the table
  // stays a screen wide on a phone and on paper.
  // At most 12 positions; fewer on a narrow screen (a phone: 3), so the table fits its width.
  const lensWindow = () => Math.max(3, Math.min(12, Math.floor((window.innerWidth - 130) / 80)));
  function renderLens(s) {
    const kLensWindow = lensWindow();
    const g = lens.get(s.step);
    const show = g && s.layer >= 0;
    $('lens-panel').hidden = !show;
    if (!show) return;
    $('lens-where').textContent = `· ${stepLabel(s.step)}`;
    const windowed = g.positions > kLensWindow;
    $('lens-window').hidden = !windowed;
    if (state.lensStep !== s.step) state.lensStep = s.step, state.lensFrom = Math.max(0, g.positions - kLensWindow);  // the step's last positions first
    const from = windowed ? Math.min(state.lensFrom, g.positions - kLensWindow) : 0, to = windowed ? from + kLensWindow : g.positions;
    if (windowed) {
      const slider = $('lens-from');
      slider.max = g.positions - kLensWindow;
      slider.value = from;
      slider.oninput = e => { state.lensFrom = Number(e.target.value); renderLens(stages[state.i]); };
      $('lens-range').textContent = `${g.startPos + from}–${g.startPos + to - 1} of ${g.startPos}–${g.startPos + g.positions - 1}`;
    }
    const t = $('lens');
    t.textContent = '';
    const head = el('tr', {}, el('th', { text: 'layer \\ position' }));
    for (let c = from; c < to; c++) head.append(el('th', { text: `${g.startPos + c} ${pieceAt(g.startPos + c)}` }));
    t.append(head);
    g.layers.forEach((layer, r) => {
      const tr = el('tr', { class: layer === s.layer ? 'lit' : '' }, el('th', { text: `layer ${layer + 1}` }));
      g.cells[r].slice(from, to).forEach((cell, i) => {
        const c = from + i;
        const top = cell[0];
        tr.append(el('td', { 'data-layer': layer + 1, 'data-pos': g.startPos + c, title: cell.map(x => `${JSON.stringify(x.piece)} ${fmt(x.p, 3)}`).join('\n') },
          top ? el('span', { class: 'lens-piece', text: JSON.stringify(top.piece) }) : '', top ? el('span', { class: 'lens-p', text: ' ' + fmt(top.p, 3) }) : ''));
      });
      t.append(tr);
    });
  }

  function renderCompare(s) {
    const c = data.compare;
    $('compare-panel').hidden = !c;
    if (!c) return;
    $('compare-name').textContent = c.nameB;
    $('compare-b').textContent = `${c.nameB}: ${c.whatIfB ? 'what-if ' + c.whatIfB : 'the model\'s own run (no what-if)'}` +
      (c.promptB !== data.run.prompt ? ` · prompt ${JSON.stringify(c.promptB)}` : '') + ` · it generated ${JSON.stringify(c.textB)}` +
      ` · this page's run (${c.nameA}) generated ${JSON.stringify(data.run.text)}`;
    $('compare-first').textContent = c.first ? `First divergence: ${stepLabel(c.first.step)}, ${c.first.where || 'outside the layers'}, ${c.first.key} (${c.first.text})` : 'The runs do not diverge.';
    $('compare-report').textContent = c.report;
    // Every step (each cell the largest of its stage and layer, and the step it is from) or one.
    const select = $('compare-step');
    if (!select.options.length) {
      select.append(el('option', { value: 'all', text: 'every step (the step of each cell\'s largest shown)' }));
      for (const b of c.byStep) select.append(el('option', { value: String(b.step), text: stepLabel(b.step) }));
      select.onchange = () => render();
    }
    const chosen = c.byStep.find(b => String(b.step) === select.value);
    const table = chosen ? chosen.table : c.table;
    const t = $('compare-table');
    t.textContent = '';
    const head = el('tr', {}, el('th', { text: 'stage' }), el('th', { text: 'outside' }));
    for (let l = 0; l < data.model.nLayers; l++) head.append(el('th', { text: `layer ${l + 1}` }));
    t.append(head);
    for (const row of table) {
      const tr = el('tr', { class: row.key === s.key ? 'lit' : '' }, el('th', { text: row.key }));
      row.cells.forEach(cell => tr.append(cell
        ? el('td', { class: cell.diverges ? 'diverges' : 'same', 'data-step': cell.step, onclick: () => go(cell.stage),
            title: `${stepLabel(cell.step)}: click to go there` }, cell.text, chosen || !cell.diverges ? '' : el('sub', { class: 'muted', text: ` s${cell.step}` }))
        : el('td', { class: 'none' })));
      t.append(tr);
    }
  }

  // A batch trace: the ubatch going through the model at the stage shown, the cells find_slot
  // left, the mask from them, the last context shift; numbers and colours from the export.
  function renderBatch() {
    const b = data.batch;
    $('batch-panel').hidden = !b;
    if (!b) return;
    let u = null;
    for (const x of b.ubatches) if (x.first <= state.i) u = x;
    const before = !u;
    if (!u) u = b.ubatches[0];
    if (!u) return;
    $('batch-where').textContent = `· ubatch ${u.number + 1} of ${b.ubatches.length}${before ? ' (next)' : ''} · n_tokens = ${u.tokens.length}, n_seqs = ${u.nSeqs}, n_outputs = ${u.nOutputs}`;
    const t = $('batch-table');
    t.textContent = '';
    t.append(el('tr', {}, ...['i', 'token', 'pos', 'seq_ids', 'output'].map(h => el('th', { text: h }))));
    u.tokens.forEach((tok, i) => t.append(el('tr', { 'data-token': i },
      el('td', { text: String(i) }), el('td', { text: JSON.stringify(tok.piece) }), el('td', { text: String(tok.pos) }),
      el('td', { class: 'seqs', style: `border-left-color:${colourOf(b, tok.seqIds)}`, text: tok.seqIds.join(',') }),
      el('td', { text: tok.output ? 'yes' : 'no' }))));
    const cells = $('batch-cells');
    cells.textContent = '';
    const slot = u.slot;
    if (slot) {
      $('batch-slot').textContent = `· kv head = ${slot.head}, used = ${slot.used} / ${slot.size}, n_kv = ${slot.nKV}; outlined: the cells written for this ubatch`;
      slot.cells.forEach((c, j) => {
        const box = cellBox(b, c, j, j >= slot.head && j < slot.head + slot.nTokens ? { class: 'cell slot' + (c.pos < 0 ? ' free' : '') } : {});
        if (j === slot.head) box.append(el('span', { class: 'head', text: 'head' }));
        cells.append(box);
      });
      // Cells past n_kv are free: a few of them, and how many more.
      const more = slot.size - slot.nKV;
      for (let j = 0; j < Math.min(more, 4); j++) cells.append(cellBox(b, { pos: -1, seqIds: [] }, slot.nKV + j));
      if (more > 4) cells.append(el('span', { class: 'muted small', text: `… ${more - 4} more free cells` }));
    }
    const legend = $('batch-legend');
    legend.textContent = '';
    Object.keys(b.colours).forEach(k => legend.append(el('span', { style: `--swatch:${b.colours[k]}`,
      text: k === 'free' ? 'free' : k === 'shared' ? 'shared by several sequences' : `seq ${k}` })));
    const mask = $('batch-mask');
    mask.textContent = '';
    if (u.mask && slot) {
      mask.style.gridTemplateColumns = `max-content repeat(${slot.nKV}, 18px)`;
      mask.append(el('span', { class: 'label', text: '' }), ...slot.cells.map((c, j) => el('span', { class: 'muted', text: String(j) })));
      u.mask.forEach((row, i) => {
        const tok = u.tokens[i];
        mask.append(el('span', { class: 'label', text: `${tok.seqIds.join(',')}:${tok.pos}` }));
        [...row].forEach((bit, j) => mask.append(el('span', { 'data-row': i, 'data-col': j, 'data-sees': bit,
          style: `background:${bit === '1' ? colourOf(b, tok.seqIds) : '#335'}` })));
      });
    } else mask.append(el('p', { class: 'muted', text: 'The mask is made at the kv_mask stage of this ubatch.' }));
    const shift = u.shift;
    $('batch-shift-box').hidden = !shift;
    if (shift) {
      $('batch-shift-where').textContent = `· seq ${shift.seq}: n_past = ${shift.nPast}, n_keep = ${shift.nKeep}, n_discard = ${shift.nDiscard}: positions [${shift.nKeep}, ${shift.nKeep + shift.nDiscard}) removed, the rest moved back by ${shift.nDiscard}`;
      const box = $('batch-shift');
      box.textContent = '';
      for (const [name, list] of [['before', shift.before], ['after', shift.after]])
        box.append(el('div', { class: 'row', 'data-when': name }, el('b', { text: name }), ...list.map((c, j) => cellBox(b, c, j))));
    }
    const seqs = $('batch-sequences');
    seqs.textContent = '';
    // Prompts, in order (a prompt takes whichever of the --parallel sequence ids is free).
    b.sequences.forEach(q => seqs.append(el('li', {}, el('span', { text: q.prompt }),
      el('span', { class: 'muted', text: ` → ${q.text} (${q.generated} tokens, ${q.stopReason}${q.contextShifts ? `, ${q.contextShifts} context shifts` : ''})` }))));
  }

  function render() {
    const s = stages[state.i];
    const info = catalog.get(s.key);
    $('position').textContent = `${stepLabel(s.step)}${s.where ? ' · ' + s.where : ''} · stage ${info ? info.number : '?'} ${s.key} · record ${state.i + 1} of ${stages.length}`;
    renderTokens(s);
    renderMap(s);
    renderTimeline(s);
    renderStage(s);
    renderAttention(s);
    renderMask(s);
    renderCache(s);
    renderLogits(s);
    renderLens(s);
    renderCompare(s);
    renderBatch();
    document.body.dataset.stage = s.key;
    document.body.dataset.step = s.step;
    document.body.dataset.layer = s.layer + 1;
  }

  function toggleHelp(show) { $('help').hidden = show === undefined ? !$('help').hidden : !show; }

  // The last click was in the attention panel (its buttons are redrawn, so focus cannot say); a
  // tap outside the help box closes it (on a phone there is no Esc).
  function onPointerDown(e) {
    state.inAttention = $('attention').contains(e.target);
    if (!$('help').hidden && !$('help').contains(e.target) && e.target !== $('help-button')) toggleHelp(false);
  }
  function onKey(e) {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
    const a = attention.get(`${stages[state.i].step}|${stages[state.i].layer}`);
    if (e.key === '?') toggleHelp();
    else if (e.key === 'Escape') toggleHelp(false);
    else if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      const dir = e.key === 'ArrowRight' ? 1 : -1;
      if (e.ctrlKey || e.metaKey) moveStep(dir);
      else if (e.shiftKey) moveLayer(dir);
      else go(state.i + dir, { reveal: true });
    } else if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && a && state.inAttention) {
      // ↑/↓ change the head only after a click in the attention panel: else they scroll the page.
      state.head = (state.head + (e.key === 'ArrowDown' ? 1 : a.heads - 1)) % a.heads;
      render(); writeHash();
    } else return;
    e.preventDefault();
  }
  // Installed once, by the first show: they act on whichever run is shown.
  function install() {
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKey);
    window.addEventListener('hashchange', () => readHash());
    const click = (id, f) => $(id).addEventListener('click', f);
    click('help-close', () => toggleHelp(false));
    click('prev', () => go(state.i - 1, { reveal: true }));
    click('next', () => go(state.i + 1, { reveal: true }));
    click('prev-layer', () => moveLayer(-1));
    click('next-layer', () => moveLayer(1));
    click('prev-step', () => moveStep(-1));
    click('next-step', () => moveStep(1));
    click('help-button', () => toggleHelp());
    $('sweep').addEventListener('input', e => { state.sweep = Number(e.target.value); render(); });
  }

  let installed = false;
  function show(run, opts = {}) {
    setRun(run, opts);
    if (!installed) install(), installed = true;
    renderHeader();
    renderPatch();
    if (!readHash()) go(pageOpts.start || 0);
  }
  return { show };
})();

// A page with its run embedded (export-html); the live page has none and shows its runs itself.
if ($('run-data')) {
  try {
    RunPage.show(loadData());
    document.body.dataset.ready = '1';
  } catch (e) {
    showError(e instanceof DataError ? e.message : 'an error in the page (' + e.message + ')');
    document.body.dataset.ready = 'error';
  }
}
