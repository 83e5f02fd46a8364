// The page of one recorded run (llama-walkthrough export-html). Every number shown was computed in
// C++ (viewer/page/run_page_data.cpp) and embedded as JSON with base64 float32 (or bfloat16)
// arrays; this script decodes, draws and navigates, and finishes the shown attention cell's
// arithmetic from the C++'s q · k and row terms (a division, the mask, one exp). Plain DOM and canvas, no library: the drawings are a few
// boxes, bars and one heatmap of at most a few hundred cells per side, which a charting library
// (D3 alone is ~280 KB) would not make simpler.
'use strict';

class DataError extends Error {}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

// A float array of the run's data, checked against its stated length: base64 in the JSON (a page's
// embedded data) or, from the live page's engine, `n` numbers at byte `at` of the part's bytes.
// "bf16" arrays hold the high halves of float32 numbers whose low halves are zero (bfloat16
// values, exactly).
function floats(a, where, bytes) {
  if (!a || (a.dtype !== 'f32' && a.dtype !== 'bf16') || !Number.isInteger(a.n) || (typeof a.b64 !== 'string' && !Number.isInteger(a.at)))
    throw new DataError(where + ' is not an embedded float array');
  const width = a.dtype === 'bf16' ? 2 : 4;
  let raw;
  if (Number.isInteger(a.at)) {
    if (!bytes || a.at % 4 || a.at + a.n * width > bytes.byteLength)
      throw new DataError(`${where}: ${a.n} ${a.dtype} numbers at byte ${a.at} are not within the part's ${bytes ? bytes.byteLength : 0} bytes`);
    raw = new Uint8Array(bytes, a.at, a.n * width);
  } else {
    let bin;
    try { bin = atob(a.b64); } catch (e) { throw new DataError(where + ': its base64 text is damaged'); }
    if (bin.length !== a.n * width)
      throw new DataError(`${where}: expected ${a.n} ${a.dtype} numbers (${a.n * width} bytes), found ${bin.length} bytes`);
    raw = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) raw[i] = bin.charCodeAt(i);
  }
  if (width === 2) {
    const bits = new Uint32Array(a.n);
    for (let i = 0; i < a.n; i++) bits[i] = ((raw[2 * i + 1] << 8) | raw[2 * i]) << 16;
    return new Float32Array(bits.buffer);
  }
  if (littleEndian) return new Float32Array(raw.buffer, raw.byteOffset, a.n);
  const view = new DataView(raw.buffer, raw.byteOffset), out = new Float32Array(a.n);
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
  const run = new RunData(data);
  // What still parses and decodes can hold a changed number: the checksum the export wrote says.
  const expected = element.dataset.checksum, found = checksum(element.textContent);
  if (expected && expected !== found)
    throw new DataError(`the embedded run data was damaged after the export: its checksum is ${found}, the export wrote ${expected}. Export or download the page again.`);
  return run;
}

// An attention's arithmetic (viewer/page/run_page_stream.cpp, attentionArithmetic): its arrays decoded.
function decodeArithmetic(arith, where, bytes) {
  for (const k of ['dot', 'rowMax', 'sumExp', 'visible']) arith[k + 'F'] = floats(arith[k], `${where}.${k}`, bytes);
  return arith;
}

// A run's data and the indexes the views look places up in, made from parts
// (viewer/page/run_page_stream.h): the first part has the run's fixed parts and starts it; each
// later one (the live page's steps) appends stages, tokens, steps, attention and masks and
// replaces the lens and map views of the steps it touched, at a cost that does not grow with the
// run. A page's embedded data is one part with every stage. Each part is checked and its arrays
// decoded before anything changes: damage shows at once, not on some later click.
class RunData {
  constructor(first, bytes) {
    if (!first || first.format !== 1 || !Array.isArray(first.stages) || !Array.isArray(first.catalog))
      throw new DataError('the embedded run data is not a run of this page\'s format (format 1)');
    const { stages, tokens, steps, attention, masks, lens, mapViews, stagesFrom, tokensFrom, tokensCount, stepsFrom, reset, ...fixed } = first;
    this.data = { ...fixed, stages: [], tokens: [], steps: [], attention: [], masks: [], lens: [], map: { ...first.map, views: [] } };
    this.stages = this.data.stages;
    this.catalog = new Map(first.catalog.map(c => [c.key, c]));
    this.byPlace = new Map();  // "step|layer|key" -> first stage index
    this.ofStep = new Map();   // step -> its stages' indexes, in order
    this.steps = new Map();
    this.attention = new Map();
    this.masks = new Map();
    this.lens = new Map();
    this.mapViews = new Map();
    this.lensAt = new Map();   // step -> index in data.lens
    this.viewAt = new Map();   // "step|layer" -> index in data.map.views
    this.opts = {};
    this.apply(first, bytes);
  }

  apply(part, bytes) {
    const d = this.data, list = k => (Array.isArray(part[k]) ? part[k] : []);
    const from = k => (Number.isInteger(part[k]) ? part[k] : 0);
    if (from('stagesFrom') !== d.stages.length || from('tokensFrom') > d.tokens.length || from('stepsFrom') > d.steps.length)
      throw new DataError(`a part of the run's data that does not follow the last one (stage ${from('stagesFrom')} after ${d.stages.length})`);
    const attention = list('attention'), masks = list('masks');
    attention.forEach((a, i) => {
      a.probsF = floats(a.probs, `attention[${i}].probs`, bytes);
      if (a.probsF.length !== a.heads * a.rows * a.cols) throw new DataError(`attention[${i}]: ${a.probsF.length} values for ${a.heads}x${a.rows}x${a.cols}`);
      if (a.arith) decodeArithmetic(a.arith, `attention[${i}].arith`, bytes);
    });
    masks.forEach((m, i) => { m.valuesF = floats(m.values, `masks[${i}].values`, bytes); });

    if (part.run) d.run = part.run;
    for (const s of list('stages')) {
      const k = `${s.step}|${s.layer}|${s.key}`;
      if (!this.byPlace.has(k)) this.byPlace.set(k, d.stages.length);
      if (!this.ofStep.has(s.step)) this.ofStep.set(s.step, []);
      this.ofStep.get(s.step).push(d.stages.length);
      d.stages.push(s);
    }
    d.tokens.length = from('tokensFrom');
    d.tokens.push(...list('tokens'));
    d.steps.length = from('stepsFrom');
    for (const s of list('steps')) { d.steps.push(s); this.steps.set(s.step, s); }
    for (const a of attention) { d.attention.push(a); this.attention.set(`${a.step}|${a.layer}`, a); }
    for (const m of masks) { d.masks.push(m); this.masks.set(m.step, m); }
    for (const l of list('lens')) {
      if (!this.lensAt.has(l.step)) this.lensAt.set(l.step, d.lens.push(l) - 1); else d.lens[this.lensAt.get(l.step)] = l;
      this.lens.set(l.step, l);
    }
    for (const v of part.mapViews || (part.map && part.map.views) || []) {
      const k = `${v.step}|${v.layer}`;
      if (!this.viewAt.has(k)) this.viewAt.set(k, d.map.views.push(v) - 1); else d.map.views[this.viewAt.get(k)] = v;
      this.mapViews.set(k, v);
    }
    return this;
  }
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
  // Each label measured once, all in one layout, where its arrow puts it; in another place its box
  // is that box moved (by its width where the anchor changes ends), so no place tried lays the page out again.
  for (const { el: l } of labels) root.append(l);
  const measured = labels.map(({ el: l }) => l.getBBox());
  labels.forEach(({ el: l, above }, n) => {
    const own = { x: Number(l.getAttribute('x')), y: Number(l.getAttribute('y')), anchor: l.getAttribute('text-anchor') };
    const b = measured[n], left = (own.anchor === 'end' ? b.x + b.width : b.x) - own.x, top = b.y - own.y;
    const boxAt = p => ({ x: p.x + left - (p.anchor === 'end' ? b.width : 0), y: p.y + top, width: b.width, height: b.height });
    const places = [0, -0.2, 0.2, -0.4, 0.4].map(dy => ({ ...own, y: own.y + dy }));
    if (above) places.push({ x: above.x, y: above.y, anchor: 'start' }, { x: above.x, y: above.y - 0.1, anchor: 'start' });
    const p = places.find(q => clear(boxAt(q))) || own;  // nowhere clear: where the arrow is
    l.setAttribute('x', p.x);
    l.setAttribute('y', p.y);
    l.setAttribute('text-anchor', p.anchor);
    placed.push(boxAt(p));
  });
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

// A token's piece as the engine writes it for display (Tokenizer::pieceForDisplay: a newline is
// already \n), in quotes: JSON.stringify would escape its backslashes a second time (",\\n").
const quoted = piece => `"${piece}"`;

// Tokens' probabilities as bars, the sampled one marked.
function bars(box, tokens, sampled) {
  box.textContent = '';
  const most = Math.max(1e-9, ...tokens.map(t => num(t.p)));
  tokens.forEach((t, rank) => box.append(barRow({ class: 'bar-row' + (t.id === sampled ? ' lit' : ''), 'data-rank': rank + 1, 'data-p': num(t.p) },
    (t.id === sampled ? '▶ ' : '') + quoted(t.piece), num(t.p) / most, `p ${fmt(t.p, 4)} · logit ${fmt(t.logit, 4)} · #${t.id}`)));
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

// The run page, one per document: RunPage.show(run, opts) draws a run (a RunData) and navigates it;
// RunPage.apply(part, bytes, opts) adds a part of the run's data to the run shown, or starts a new
// run with a first part, and draws it. The live page applies a part at every step: the same page
// is redrawn in place, keeping what the reader chose, with the handlers installed by the first draw.
// opts.start: the stage to show first when the address names none (default: the first), with
// its panel scrolled into view if opts.reveal (the live page's steps, as this page's own do);
// opts.pastEnd(kind): called when the next stage, layer or token step is past the stages shown
// ('stage', 'layer', 'token'): the live page steps its run on.
//
// Its parts: `run`, the run shown (a RunData: its data and indexes, grown by each part);
// `state`, what the reader chose (kept from one run to the next); the views, one per panel, each
// redrawing its elements in place from the two (render(run, state)) and adding its fixed
// elements' handlers once (install); navigation and the address. A handler changes the state and
// redraws the views that show what it changed.
const RunPage = (() => {
  // The run shown.
  let run;
  // What the reader chose: the stage (an index into the run's stages), the attention head and
  // cell, the sweep's temperature (an index), the heatmap's zoom, the token strip folded (decided
  // by the first run's length), the layer the map shows for a stage outside the layers, the lens's
  // window and the step it was placed for, the comparison's step; and whether the last click was
  // in the attention panel (↑/↓ then change the head).
  const state = { i: 0, head: 0, cell: null, sweep: 4, heatZoom: 'fit', tokensFolded: undefined, mapLayer: 0,
                  lensStep: undefined, lensFrom: 0, compareStep: 'all', inAttention: false };

  const stepLabel = step => step === 0 ? 'step 0 (prefill)' : `step ${step}`;
  const pieceAt = (run, pos) => (run.data.tokens[pos] ? run.data.tokens[pos].piece : '?');
  const attentionAt = (run, s) => run.attention.get(`${s.step}|${s.layer}`);
  const probAt = (a, head, r, k) => a.probsF[(head * a.rows + r) * a.cols + k];
  // The mask's value at an attention cell (0 when the step's mask is not of the attention's shape).
  function maskAt(run, a, r, k) {
    const m = run.masks.get(a.step);
    return m && m.rows === a.rows && m.cols === a.cols ? m.valuesF[r * a.cols + k] : 0;
  }
  // The chosen cell, when the attention shown has it.
  const cellIn = (a, cell) => cell && cell.q >= a.startPos && cell.q < a.startPos + a.rows && cell.k < a.cols;
  function findIn(run, step, layer, key) {
    const i = run.byPlace.get(`${step}|${layer}|${key}`);
    return i === undefined ? -1 : i;
  }

  // ---- views: each redraws its panel from the run and the state ----

  // The header: the run's prompt, model and settings, what-if and comparison.
  const headerView = {
    render(run) {
      const m = run.data.model, r = run.data.run, data = run.data;
      const t = data.training;
      $('title').textContent = t ? `Llama training step ${t.step}, window ${t.window + 1} of ${t.windows} (learning rate ${fmt(t.learningRate, 4)}): ` +
        JSON.stringify(r.prompt) : 'Llama run: ' + JSON.stringify(r.prompt);
      $('model').textContent = `${m.format}${m.path ? ` (${m.path})` : ''} · dim ${m.dim} · ${m.nLayers} layers · ${m.nHeads} heads over ${m.nKvHeads} KV heads · HeadDim ${m.headDim} · vocabulary ${m.vocab} · ` +
        `temperature ${r.temperature}${r.dryRun ? ' · dry run (shapes only)' : ''} · stopped by: ${r.stopReason}`;
      $('what-if').hidden = !data.whatIf && !data.grammar;
      $('what-if').textContent = [data.whatIf ? 'What-if run: ' + data.whatIf + ' — this is an experiment, not the model as trained.' : '',
        data.grammar ? `Constrained by a grammar (${data.grammar}): tokens it did not allow were never sampled.` : ''].filter(Boolean).join(' ');
      const banner = $('compare-banner'), c = data.compare;
      banner.hidden = !c;
      if (!c) return;
      const f = c.first;
      banner.textContent = f
        ? `Compared with ${c.nameB}: first divergence at ${stepLabel(f.step)}, ${f.where || 'outside the layers'}, stage ${f.key}` + (f.tensor ? `, tensor ${f.tensor}` : '') + ` (${f.text}${f.note ? ', ' + f.note : ''}).`
        : `Compared with ${c.nameB}: no divergence.`;
      if (f) banner.append(' ', el('a', { href: '#', text: 'go there', onclick: e => { e.preventDefault(); go(f.stage); } }));
    },
  };

  // A patch trace's heatmap: share of the logit difference recovered per layer (rows) and position
  // or head (columns); a click opens the cell's stage in both runs.
  const patchView = {
    render(run) {
      const p = run.data.patch;
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
          td.onclick = () => patchView.open(run, l, c, td);
          tr.append(td);
        });
        t.append(tr);
      });
    },
    open(run, l, c, td) {
      const p = run.data.patch, layer = p.layers[l];
      document.querySelectorAll('#patch-grid td.chosen').forEach(x => x.classList.remove('chosen'));
      td.classList.add('chosen');
      $('patch-readout').textContent = p.cells[l][c].text;
      const perStage = run.data.compare.perStage;
      $('patch-stage').textContent = layer.stage === null ? `The runs did not record ${p.stageKey} at layer ${l + 1}.`
        : `${p.stageKey}, layer ${l + 1}, in both runs. Clean run: ${layer.clean || 'no summary'}. Corrupted run: ${layer.corrupt || 'no summary'}.` +
          (perStage[layer.stage] ? ` Largest |clean - corrupted|: ${perStage[layer.stage]}.` : '') +
          ' The panels below show the clean run at that stage; Compare pairs it with the corrupted one.';
      if (layer.stage !== null) go(layer.stage);
    },
  };

  // The prompt's and the generated tokens, those of the step shown marked. A long prompt's strip
  // folds to one line (folded at first on a phone); a button opens it.
  // A token's entry is kept while its token is (a held run's step adds the one it sampled), so a
  // step costs the same at the run's 256th token as at its first; the step's positions are marked.
  const tokensView = {
    shown: null,  // { run, box, tokens: the tokens listed, spans: their entries, inStep: [from, to) marked }
    install() {
      $('tokens-toggle').addEventListener('click', () => { state.tokensFolded = !state.tokensFolded; draw(tokensView); });
    },
    render(run, state) {
      const s = run.stages[state.i], tokens = run.data.tokens;
      const box = $('tokens');
      let t = this.shown;
      if (!t || t.run !== run || t.box !== box) {
        box.textContent = '';
        t = this.shown = { run, box, tokens: [], spans: [], inStep: [0, 0] };
      }
      if (state.tokensFolded === undefined) state.tokensFolded = tokens.length > 24 && window.innerWidth < 760;
      box.classList.toggle('folded', state.tokensFolded);
      const toggle = $('tokens-toggle');
      toggle.textContent = state.tokensFolded ? `Show all ${tokens.length} tokens ▾` : `Fold the ${tokens.length} tokens to one line ▴`;
      toggle.setAttribute('aria-expanded', String(!state.tokensFolded));
      const st = run.steps.get(s.step);
      const seqLen = st ? st.seqLen : 0;
      tokens.forEach((token, pos) => {
        if (t.tokens[pos] === token) return;
        const span = el('span', { class: 'token' + (token.generated ? ' generated' : '') + (token.special ? ' special' : ''),
          title: `position ${pos} · id ${token.id}${token.generated ? ' · generated' : ''}` }, el('sub', { text: String(pos) }), token.piece);
        if (t.spans[pos]) t.spans[pos].replaceWith(span); else box.append(span);
        t.tokens[pos] = token;
        t.spans[pos] = span;
      });
      while (t.spans.length > tokens.length) t.spans.pop().remove(), t.tokens.pop();
      for (let pos = t.inStep[0]; pos < t.inStep[1] && pos < t.spans.length; pos++) t.spans[pos].classList.remove('in-step');
      t.inStep = [s.startPos, s.startPos + seqLen];
      for (let pos = s.startPos; pos < s.startPos + seqLen && pos < t.spans.length; pos++) t.spans[pos].classList.add('in-step');
    },
  };

  // The viewer's map (state/forward_map.h), drawn in its own units: SVG scales it to the page.
  // Drawn again only as far as what it shows changes: the boxes and arrows with the run, the layer
  // or the boxes skipped; the arrows' shape labels with the shapes (a step on to the next token);
  // a step that only moves to another box lights that box.
  const mapView = {
    drawn: null,  // { run, key, root, boxes: the boxes' elements, shapes, labels: their elements }
    render(run, state) {
      const s = run.stages[state.i], m = run.data.map;
      const layer = s.layer >= 0 ? s.layer : state.mapLayer;
      const view = run.mapViews.get(`${s.step}|${layer}`);
      // A training step's map: the backward pass beside the forward one, the gradient flowing up.
      $('map-title').textContent = run.data.training ? 'Forward and backward pass' : 'Forward pass';
      $('map-where').textContent = `· ${stepLabel(s.step)} · the block shows layer ${layer + 1} of ${m.layers}`;
      const root = $('map');
      const key = `${layer}|${view ? view.skipped.join(',') : ''}`, shapes = view ? view.arrows.join('|') : '';
      const d = this.drawn;
      if (!d || d.run !== run || d.key !== key || d.root !== root) this.draw(run, state, root, layer, view, key);
      else if (d.shapes !== shapes) {
        for (const l of d.labels) l.remove();
        const labels = mapView.arrows(root, m, view, false);
        placeLabels(root, labels, m.boxes);
        Object.assign(d, { shapes, labels: labels.map(l => l.el) });
      }
      const lit = b => b.stage === s.key && (b.inBlock ? s.layer === layer : s.layer < 0);
      m.boxes.forEach((b, i) => this.drawn.boxes[i].classList.toggle('lit', lit(b)));
    },
    // Every box, arrow and label for the layer shown; the layer's tabs. Clicks act on the stage
    // shown when they come.
    draw(run, state, root, layer, view, key) {
      const m = run.data.map;
      const tabs = $('map-layers');
      tabs.textContent = '';
      for (let l = 0; l < m.layers; l++)
        tabs.append(el('button', { class: 'head' + (l === layer ? ' lit' : ''), 'data-map-layer': l + 1, onclick: () => {
          const s = run.stages[state.i];
          const j = s.layer >= 0 ? findIn(run, s.step, l, s.key) : -1;
          const first = run.stages.findIndex(t => t.step === s.step && t.layer === l);
          if (j >= 0) go(j); else if (first >= 0) go(first);
        } }, `layer ${l + 1}`));
      root.textContent = '';
      root.setAttribute('viewBox', `-0.4 0 ${m.width + 0.8} ${m.height + 0.3}`);
      for (const sec of m.sections) {
        root.append(svg('rect', { class: 'map-section' + (sec.block ? ' block' : ''), x: sec.x, y: sec.y, width: sec.w, height: sec.h, rx: 0.1 }));
        root.append(svg('text', { class: 'map-section-title', x: sec.x + 0.1, y: sec.y - 0.08 }, sec.block ? `${sec.title} × ${m.layers} (layer ${layer + 1} shown)` : sec.title));
      }
      const labels = mapView.arrows(root, m, view);
      const skipped = new Set(view ? view.skipped : []);
      const boxes = m.boxes.map((b, i) => {
        const g = svg('g', { class: 'map-box' + (skipped.has(i) ? ' skipped' : '') + (b.backward ? ' backward' : ''), 'data-box': b.key });
        g.append(svg('title', {}, `${b.number}. ${b.title}`));
        g.append(svg('rect', { x: b.x, y: b.y, width: b.w, height: b.h }));
        g.append(svg('text', { x: b.x + 0.08, y: b.y + b.h / 2 + 0.07 }, b.label));
        g.addEventListener('click', () => {
          const j = findIn(run, run.stages[state.i].step, b.inBlock ? layer : -1, b.stage);
          if (j >= 0) go(j);
        });
        root.append(g);
        return g;
      });
      placeLabels(root, labels, m.boxes);
      this.drawn = { run, key, root, boxes, shapes: view ? view.arrows.join('|') : '', labels: labels.map(l => l.el) };
    },
    // Draws the arrows (unless `lines` is false); returns their shape labels, to be drawn last (over
    // the boxes, each on a white halo).
    arrows(root, m, view, lines = true) {
      const labelled = new Set();    // a box's output fanning out to several boxes is labelled once
      const labels = [];
      const intoTarget = new Map();  // labels already placed on arrows into a box: the next one goes below
      m.arrows.forEach((a, i) => {
        const f = m.boxes[a.from], t = m.boxes[a.to];
        const down = t.y > f.y + f.h / 2 && Math.abs(t.x - f.x) < f.w;
        const x1 = down ? f.x + f.w / 2 : f.x + f.w, y1 = down ? f.y + f.h : f.y + f.h / 2;
        const x2 = down ? t.x + t.w / 2 : t.x, y2 = down ? t.y : t.y + t.h / 2;
        // A training step's map carries the viewer's routes (state/forward_map_routes.cpp): its
        // arrows run around the backward boxes, the gradients up their columns.
        if (lines) {
          const g = svg('g', { class: 'map-arrow' + (a.side ? ' side' : '') + (f.backward ? ' backward' : '') });
          g.append(a.route ? svg('polyline', { points: a.route.map(p => p.join(',')).join(' ') }) : svg('line', { x1, y1, x2, y2 }));
          root.append(g);
        }
        const shape = view ? view.arrows[i] : '';
        if (f.backward) {
          // Up a column: beside the arrow, under the box it flows into.
          if (shape && a.route.length === 2)
            labels.push({ el: svg('text', { class: 'map-label', 'data-arrow': `${f.key}>${t.key}`, x: t.x + t.w / 2 + 0.05, y: t.y + t.h + 0.2, 'text-anchor': 'start' }, shape), above: null });
          return;
        }
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
      return labels;
    },
  };

  // The stages of the step shown, the current one marked. The list is kept while the reader stays
  // in the step (a held run's step appends its new stages), and the next step's list is the last
  // one's entries where they name the same stages (a decode step's are every other's), so a step
  // costs the same at the run's 256th token as at its first.
  const timelineView = {
    shown: null,  // { run, list, step, items: the step's entries in order, current }
    render(run, state) {
      const s = run.stages[state.i], compare = run.data.compare;
      const list = $('timeline');
      let t = this.shown;
      if (!t || t.run !== run || t.list !== list) {
        list.textContent = '';
        t = this.shown = { run, list, step: null, items: [], current: null };
      }
      const at = run.ofStep.get(s.step);
      const from = t.step === s.step ? t.items.length : 0;  // the same step: its new stages only
      t.step = s.step;
      for (let n = from; n < at.length; n++) {
        const j = at[n], stage = run.stages[j], place = `${stage.key}|${stage.where}`, old = t.items[n];
        // A comparison's marks differ stage by stage: its entries are made for each.
        if (old && !compare && old.dataset.place === place) { old.dataset.index = j; continue; }
        const c = run.catalog.get(stage.key);
        const item = el('li', { class: 'stage-item', 'data-index': j, 'data-place': place },
          el('span', { class: 'num', text: String(c.number) }), ' ', c.title, stage.where ? el('span', { class: 'muted', text: ' · ' + stage.where }) : '');
        item.addEventListener('click', () => go(Number(item.dataset.index)));
        if (compare && compare.perStage[j]) item.append(el('span', { class: 'diff-mark', text: ' Δ ' + compare.perStage[j] }));
        if (old) old.replaceWith(item); else list.append(item);
        t.items[n] = item;
      }
      while (t.items.length > at.length) t.items.pop().remove();
      if (t.current) t.current.classList.remove('current');
      const current = t.current = t.items[at.indexOf(state.i)];
      current.classList.add('current');
      // Scroll the list only (scrollIntoView would scroll the page too, and an opened link would not start at the top).
      list.scrollTop = Math.max(0, current.offsetTop - list.offsetTop - list.clientHeight / 2);
    },
  };

  // The stage shown: its title, place, message, chapter and tensors.
  const stageView = {
    render(run, state) {
      const s = run.stages[state.i], c = run.catalog.get(s.key);
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
          t.stats ? el('div', { class: 'muted small', text: `min ${fmt(t.stats[0], 4)} · max ${fmt(t.stats[1], 4)} · mean ${fmt(t.stats[2], 4)}` }) : '',
          t.norm ? el('div', { class: 'small', text: `L2 norm |${t.name}| ${t.norm}` }) : ''));
      }
    },
  };

  // The layer's attention: a button per head and the chosen head's heatmap, zoomed 1x-8x inside a
  // scrolling frame (scroll or drag to pan) or fitted; a click on a cell chooses it.
  const attentionView = {
    drawn: null,    // the attention drawn and its geometry: what a pointer on the canvas reads
    drag: null,     // where a drag of the zoomed heatmap started
    panned: false,  // the end of a drag that panned picks no cell
    install() {
      const cv = $('heatmap'), wrap = $('heat-wrap'), zoom = $('heat-zoom');
      cv.addEventListener('pointermove', e => this.readOut(e));
      cv.addEventListener('click', e => {
        const c = this.cellAt(e);
        if (!c || this.panned) return;
        this.readOut(e);
        chooseInAttention({ cell: { q: this.drawn.a.startPos + c.r, k: c.k } });
      });
      zoom.addEventListener('change', () => { state.heatZoom = zoom.value; draw(attentionView); });
      wrap.addEventListener('pointerdown', e => {
        if (!Number(state.heatZoom) || e.pointerType !== 'mouse') return;
        this.drag = { x: e.clientX, y: e.clientY, left: wrap.scrollLeft, top: wrap.scrollTop };
        this.panned = false;
      });
      wrap.addEventListener('pointermove', m => {
        const d = this.drag;
        if (!d || !m.buttons) return;
        this.panned = this.panned || Math.hypot(m.clientX - d.x, m.clientY - d.y) > 4;
        wrap.scrollLeft = d.left - (m.clientX - d.x), wrap.scrollTop = d.top - (m.clientY - d.y);
      });
    },
    render(run, state) {
      const a = attentionAt(run, run.stages[state.i]);
      $('attention').hidden = !a;
      if (!a) return;
      $('attention-where').textContent = `· layer ${a.layer + 1} · ${stepLabel(a.step)} · head ${state.head + 1} of ${a.heads}`;
      const heads = $('heads');
      heads.textContent = '';
      for (let h = 0; h < a.heads; h++)
        heads.append(el('button', { class: 'head' + (h === state.head ? ' lit' : ''), 'data-head': h + 1, onclick: () => chooseInAttention({ head: h }) }, `head ${h + 1}`));
      const cv = $('heatmap');
      const size = Math.max(6, Math.min(34, Math.floor(560 / Math.max(a.cols, a.rows))));
      this.drawn = { run, a, head: state.head, size, labelW: 90, labelH: 16 };
      this.paint(cv, this.drawn, state.cell);
      const zoom = $('heat-zoom'), wrap = $('heat-wrap');
      zoom.value = state.heatZoom;
      const factor = Number(zoom.value);
      wrap.classList.toggle('zoomed', !!factor);
      cv.style.width = factor ? `${cv.width * factor}px` : '';
    },
    // The head's probabilities, the masked cells grey, the chosen cell outlined.
    paint(cv, { run, a, head, size, labelW, labelH }, cell) {
      cv.width = labelW + a.cols * size;
      cv.height = labelH + a.rows * size;
      cv.dataset.size = size; cv.dataset.labelW = labelW; cv.dataset.labelH = labelH;
      const g = cv.getContext('2d');
      g.fillStyle = '#fff'; g.fillRect(0, 0, cv.width, cv.height);
      g.font = `${Math.min(12, size)}px sans-serif`;
      g.fillStyle = '#333';
      g.textBaseline = 'middle';
      for (let r = 0; r < a.rows; r++) {
        const q = a.startPos + r;
        g.fillStyle = '#333';
        g.fillText(`${q} ${pieceAt(run, q)}`.slice(0, 12), 2, labelH + r * size + size / 2);
        for (let k = 0; k < a.cols; k++) {
          g.fillStyle = maskAt(run, a, r, k) === -Infinity ? '#bbb' : colour(probAt(a, head, r, k));
          g.fillRect(labelW + k * size, labelH + r * size, size - 1, size - 1);
        }
      }
      if (size >= 10) for (let k = 0; k < a.cols; k += Math.ceil(12 / size)) { g.fillStyle = '#333'; g.fillText(String(k), labelW + k * size, labelH / 2); }
      if (cellIn(a, cell)) {
        g.strokeStyle = '#e08000'; g.lineWidth = 2;
        g.strokeRect(labelW + cell.k * size, labelH + (cell.q - a.startPos) * size, size - 1, size - 1);
      }
    },
    // The cell under a pointer (or a tap), in the canvas's own pixels whatever its shown size.
    cellAt(e) {
      if (!this.drawn) return null;
      const { a, size, labelW, labelH } = this.drawn, cv = $('heatmap');
      const rect = cv.getBoundingClientRect();
      const x = (e.clientX - rect.left) * cv.width / rect.width - labelW, y = (e.clientY - rect.top) * cv.height / rect.height - labelH;
      const k = Math.floor(x / size), r = Math.floor(y / size);
      return k < 0 || r < 0 || k >= a.cols || r >= a.rows ? null : { r, k };
    },
    readOut(e) {
      const c = this.cellAt(e);
      if (!c) return;
      const { run, a, head } = this.drawn;
      const q = a.startPos + c.r, hidden = maskAt(run, a, c.r, c.k) === -Infinity;
      $('heat-readout').textContent = `query ${q} ${quoted(pieceAt(run, q))} → key ${c.k} ${quoted(pieceAt(run, c.k))}: ` +
        (hidden ? 'masked (a later position), p 0' : 'p ' + fmt(probAt(a, head, c.r, c.k), 4));
    },
  };

  // The chosen attention cell's probability, computed step by step.
  const arithmeticView = {
    render(run, state) {
      const a = attentionAt(run, run.stages[state.i]);
      if (!a) return;
      const box = $('arith');
      box.textContent = '';
      if (!cellIn(a, state.cell)) {
        box.append(el('p', { class: 'muted', text: 'Click a cell to see how its probability is computed.' }));
        return;
      }
      const r = state.cell.q - a.startPos, k = state.cell.k, h = state.head;
      const i = (h * a.rows + r) * a.cols + k, row = h * a.rows + r;
      const recorded = a.probsF[i];
      const line = (id, label, value) => el('div', { class: 'arith-line' }, el('span', { class: 'arith-label', text: label }), el('code', { id, text: value }));
      box.append(el('p', {}, `Head ${h + 1}, query position ${state.cell.q} (${pieceAt(run, state.cell.q)}) → key position ${k} (${pieceAt(run, k)})`));
      // The live page's parts carry no arithmetic: the module makes this attention's when a cell
      // of it is first opened (run.opts.arithmetic), and the panel is drawn again with it.
      if (!a.arith && !a.arithLeftOut && !a.arithNone && run.opts.arithmetic) {
        box.append(line('arith-prob', 'probability (recorded, bf16)', fmt(recorded)), el('p', { class: 'muted', id: 'arith-computing', text: 'Computing this cell\'s arithmetic…' }));
        if (!a.arithAsked) {
          const shown = run;
          a.arithAsked = run.opts.arithmetic(a).then(({ arith, bytes }) => {
            if (arith) a.arith = decodeArithmetic(arith, `the arithmetic of step ${a.step}, layer ${a.layer + 1}`, bytes);
            else a.arithNone = true;
            if (run === shown && attentionAt(run, run.stages[state.i]) === a) draw(arithmeticView);
          }, e => { a.arithAsked = null; box.textContent = 'The arithmetic could not be computed: ' + e.message; });
        }
        return;
      }
      if (!a.arith) {
        box.append(line('arith-prob', 'probability (recorded, bf16)', fmt(recorded)));
        const budget = run.data.arithmetic;
        box.append(el('p', { class: 'muted', id: 'arith-missing', text: a.arithLeftOut
          ? `This step's arithmetic was left out to keep the page within ${budget.budgetMB} MB (it keeps the prefill's first, then the steps in order). \`${budget.allOf}\` writes a page with all of it; the viewer shows it too.`
          : 'The trace holds only the scores, not the xq and keys they came from: record with --trace-presoftmax (or --html) for the arithmetic.' }));
        return;
      }
      // The C++ export computed q · k and the row's max and sum (viewer/state/attention_explain.h);
      // the rest of the chain is the division, the mask's addition and one exp, done here for the
      // shown cell.
      const x = a.arith;
      const scaled = x.dotF[i] / x.scale, score = scaled + maskAt(run, a, r, k);
      const masked = score === -Infinity;
      const prob = masked ? 0 : Math.exp(score - x.rowMaxF[row]) / x.sumExpF[row];
      box.append(
        line('arith-dot', `1. q · k (sum of ${x.headDim} products)`, fmt(x.dotF[i])),
        line('arith-scale', '2. ÷ sqrt(HeadDim)', `÷ ${fmt(x.scale)} = ${fmt(scaled)}`),
        line('arith-mask', '3. + mask', masked ? '-inf (a later position) = -inf' : `+ 0 = ${fmt(score)}`),
        line('arith-softmax', `4. softmax over the row (${x.visibleF[row]} visible of ${a.cols})`, `max ${fmt(x.rowMaxF[row])}, sum exp(score − max) ${fmt(x.sumExpF[row])}`),
        line('arith-prob', '   = exp(score − max) / sum', fmt(prob)),
        line('arith-recorded', '   recorded by the engine (bf16)', fmt(recorded)));
    },
  };

  // The step's causal mask, at the mask stages.
  const maskView = {
    render(run, state) {
      const s = run.stages[state.i], m = run.masks.get(s.step);
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
    },
  };

  // The KV cache's fill per layer, as the last stage that recorded it left it.
  const cacheView = {
    render(run, state) {
      const s = run.stages[state.i];
      let fill = null;
      for (let j = state.i; j >= 0 && !fill; j--) if (run.stages[j].cache) fill = run.stages[j].cache;
      const show = s.layer >= 0 || ['cache_write', 'cache_read'].includes(s.key);
      $('cache-panel').hidden = !fill || !show;
      if (!fill || !show) return;
      const box = $('cache');
      box.textContent = '';
      const most = Math.max(1, ...fill);
      fill.forEach((n, l) => box.append(barRow({ class: 'bar-row' + (l === s.layer ? ' lit' : '') }, `layer ${l + 1}`, n / most, `${n} positions`)));
    },
  };

  // The stages after the last layer, where the step's prediction is made: the top tokens show
  // there, and the lens beside them (what each layer would have predicted).
  const predictionStages = ['output_norm', 'output_projection', 'logits', 'sample'];

  // The step's top tokens, at the run's temperature and at the one the slider sweeps to.
  const logitsView = {
    install() {
      $('sweep').addEventListener('input', e => { state.sweep = Number(e.target.value); draw(logitsView); });
    },
    render(run, state) {
      const s = run.stages[state.i], st = run.steps.get(s.step);
      const show = st && st.top.length && s.layer < 0 && predictionStages.includes(s.key);
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
    },
  };

  // The logit lens: each layer's top token at each position. A long prompt's lens is read through
  // a window of positions (a slider moves it), so the table stays a screen wide on a phone and on
  // paper: at most 12 positions, fewer on a narrow screen (a phone: 3).
  const lensWindow = () => Math.max(3, Math.min(12, Math.floor((window.innerWidth - 130) / 80)));
  const lensView = {
    install() {
      $('lens-from').addEventListener('input', e => { state.lensFrom = Number(e.target.value); draw(lensView); });
    },
    render(run, state) {
      const kLensWindow = lensWindow();
      const s = run.stages[state.i], g = run.lens.get(s.step);
      const show = g && (s.layer >= 0 || predictionStages.includes(s.key));
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
        $('lens-range').textContent = `${g.startPos + from}–${g.startPos + to - 1} of ${g.startPos}–${g.startPos + g.positions - 1}`;
      }
      const t = $('lens');
      t.textContent = '';
      const head = el('tr', {}, el('th', { text: 'layer \\ position' }));
      for (let c = from; c < to; c++) head.append(el('th', { text: `${g.startPos + c} ${pieceAt(run, g.startPos + c)}` }));
      t.append(head);
      g.layers.forEach((layer, r) => {
        const tr = el('tr', { class: layer === s.layer ? 'lit' : '' }, el('th', { text: `layer ${layer + 1}` }));
        g.cells[r].slice(from, to).forEach((cell, i) => {
          const c = from + i;
          const top = cell[0];
          tr.append(el('td', { 'data-layer': layer + 1, 'data-pos': g.startPos + c, title: cell.map(x => `${quoted(x.piece)} ${fmt(x.p, 3)}`).join('\n') },
            top ? el('span', { class: 'lens-piece', text: quoted(top.piece) }) : '', top ? el('span', { class: 'lens-p', text: ' ' + fmt(top.p, 3) }) : ''));
        });
        t.append(tr);
      });
    },
  };

  // A comparison with a second run: its first divergence and each stage's largest difference per
  // layer, over every step or one (a select chooses); a cell opens its stage.
  const compareView = {
    install() {
      $('compare-step').addEventListener('change', e => { state.compareStep = e.target.value; draw(compareView); });
    },
    render(run, state) {
      const s = run.stages[state.i], c = run.data.compare;
      $('compare-panel').hidden = !c;
      if (!c) return;
      $('compare-name').textContent = c.nameB;
      $('compare-b').textContent = `${c.nameB}: ${c.whatIfB ? 'what-if ' + c.whatIfB : 'the model\'s own run (no what-if)'}` +
        (c.promptB !== run.data.run.prompt ? ` · prompt ${JSON.stringify(c.promptB)}` : '') + ` · it generated ${JSON.stringify(c.textB)}` +
        ` · this page's run (${c.nameA}) generated ${JSON.stringify(run.data.run.text)}`;
      $('compare-first').textContent = c.first ? `First divergence: ${stepLabel(c.first.step)}, ${c.first.where || 'outside the layers'}, ${c.first.key} (${c.first.text})` : 'The runs do not diverge.';
      $('compare-report').textContent = c.report;
      const select = $('compare-step');
      if (!select.options.length) {
        select.append(el('option', { value: 'all', text: 'every step (the step of each cell\'s largest shown)' }));
        for (const b of c.byStep) select.append(el('option', { value: String(b.step), text: stepLabel(b.step) }));
      }
      select.value = state.compareStep;
      const chosen = c.byStep.find(b => String(b.step) === state.compareStep);
      const t = $('compare-table');
      t.textContent = '';
      const head = el('tr', {}, el('th', { text: 'stage' }), el('th', { text: 'outside' }));
      for (let l = 0; l < run.data.model.nLayers; l++) head.append(el('th', { text: `layer ${l + 1}` }));
      t.append(head);
      for (const row of chosen ? chosen.table : c.table) {
        const tr = el('tr', { class: row.key === s.key ? 'lit' : '' }, el('th', { text: row.key }));
        row.cells.forEach(cell => tr.append(cell
          ? el('td', { class: cell.diverges ? 'diverges' : 'same', 'data-step': cell.step, onclick: () => go(cell.stage),
              title: `${stepLabel(cell.step)}: click to go there` }, cell.text, chosen || !cell.diverges ? '' : el('sub', { class: 'muted', text: ` s${cell.step}` }))
          : el('td', { class: 'none' })));
        t.append(tr);
      }
    },
  };

  // A batch trace: the ubatch going through the model at the stage shown, the cells find_slot
  // left, the mask from them, the last context shift; numbers and colours from the export.
  const batchView = {
    render(run, state) {
      const b = run.data.batch;
      $('batch-panel').hidden = !b;
      if (!b) return;
      let u = null;
      for (const x of b.ubatches) if (x.first <= state.i) u = x;
      const before = !u;
      if (!u) u = b.ubatches[0];
      if (!u) return;
      $('batch-where').textContent = `· ubatch ${u.number + 1} of ${b.ubatches.length}${before ? ' (next)' : ''} · n_tokens = ${u.tokens.length}, n_seqs = ${u.nSeqs}, n_outputs = ${u.nOutputs}`;
      this.tokens(b, u);
      this.cells(b, u.slot);
      this.legend(b);
      this.mask(b, u);
      this.shift(b, u.shift);
      this.sequences(b);
    },
    tokens(b, u) {
      const t = $('batch-table');
      t.textContent = '';
      t.append(el('tr', {}, ...['i', 'token', 'pos', 'seq_ids', 'output'].map(h => el('th', { text: h }))));
      u.tokens.forEach((tok, i) => t.append(el('tr', { 'data-token': i },
        el('td', { text: String(i) }), el('td', { text: quoted(tok.piece) }), el('td', { text: String(tok.pos) }),
        el('td', { class: 'seqs', style: `border-left-color:${colourOf(b, tok.seqIds)}`, text: tok.seqIds.join(',') }),
        el('td', { text: tok.output ? 'yes' : 'no' }))));
    },
    cells(b, slot) {
      const cells = $('batch-cells');
      cells.textContent = '';
      if (!slot) return;
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
    },
    legend(b) {
      $('batch-legend').replaceChildren(...Object.keys(b.colours).map(k => el('span', { style: `--swatch:${b.colours[k]}`,
        text: k === 'free' ? 'free' : k === 'shared' ? 'shared by several sequences' : `seq ${k}` })));
    },
    mask(b, u) {
      const mask = $('batch-mask'), slot = u.slot;
      mask.textContent = '';
      if (!u.mask || !slot) {
        mask.append(el('p', { class: 'muted', text: 'The mask is made at the kv_mask stage of this ubatch.' }));
        return;
      }
      mask.style.gridTemplateColumns = `max-content repeat(${slot.nKV}, 18px)`;
      mask.append(el('span', { class: 'label', text: '' }), ...slot.cells.map((c, j) => el('span', { class: 'muted', text: String(j) })));
      u.mask.forEach((row, i) => {
        const tok = u.tokens[i];
        mask.append(el('span', { class: 'label', text: `${tok.seqIds.join(',')}:${tok.pos}` }));
        [...row].forEach((bit, j) => mask.append(el('span', { 'data-row': i, 'data-col': j, 'data-sees': bit,
          style: `background:${bit === '1' ? colourOf(b, tok.seqIds) : '#335'}` })));
      });
    },
    shift(b, shift) {
      $('batch-shift-box').hidden = !shift;
      if (!shift) return;
      $('batch-shift-where').textContent = `· seq ${shift.seq}: n_past = ${shift.nPast}, n_keep = ${shift.nKeep}, n_discard = ${shift.nDiscard}: positions [${shift.nKeep}, ${shift.nKeep + shift.nDiscard}) removed, the rest moved back by ${shift.nDiscard}`;
      const box = $('batch-shift');
      box.textContent = '';
      for (const [name, list] of [['before', shift.before], ['after', shift.after]])
        box.append(el('div', { class: 'row', 'data-when': name }, el('b', { text: name }), ...list.map((c, j) => cellBox(b, c, j))));
    },
    // Prompts, in order (a prompt takes whichever of the --parallel sequence ids is free).
    sequences(b) {
      $('batch-sequences').replaceChildren(...b.sequences.map(q => el('li', {}, el('span', { text: q.prompt }),
        el('span', { class: 'muted', text: ` → ${q.text} (${q.generated} tokens, ${q.stopReason}${q.contextShifts ? `, ${q.contextShifts} context shifts` : ''})` }))));
    },
  };

  // Where the reader is, in words and in the body's data attributes (the tests wait on them).
  const placeView = {
    render(run, state) {
      const s = run.stages[state.i], info = run.catalog.get(s.key);
      $('position').textContent = `${stepLabel(s.step)}${s.where ? ' · ' + s.where : ''} · stage ${info ? info.number : '?'} ${s.key} · record ${state.i + 1} of ${run.stages.length}`;
      document.body.dataset.stage = s.key;
      document.body.dataset.step = s.step;
      document.body.dataset.layer = s.layer + 1;
    },
  };

  // Drawn for each run; the others for each stage shown (placeView last: the body's attributes say
  // the page is drawn).
  const runViews = [headerView, patchView];
  const views = [tokensView, mapView, timelineView, stageView, attentionView, arithmeticView, maskView, cacheView,
                 logitsView, lensView, compareView, batchView, placeView];
  // Redraws the views given (all the stage's views when none are).
  function draw(...only) {
    for (const v of only.length ? only : views) v.render(run, state);
  }

  // ---- navigation ----
  function go(i, opts = {}) {
    const stages = run.stages;
    if (i === stages.length && run.opts.pastEnd) return run.opts.pastEnd('stage');  // the live page steps the run on
    if (!(i >= 0 && i < stages.length)) return;
    state.i = i;
    const s = stages[i], a = attentionAt(run, s);
    if (a && state.head >= a.heads) state.head = 0;
    if (s.layer >= 0) state.mapLayer = s.layer;  // outside the layers, the map keeps the last layer shown
    if (!opts.keepCell) state.cell = null;
    if (!opts.fromHash) $('link-note').hidden = true;  // a link's note holds until the reader moves on
    draw();
    if (!opts.fromHash) writeHash();
    if (opts.reveal) revealStage();
  }
  // A head or a cell chosen: the attention redrawn, the address updated.
  function chooseInAttention(choice) {
    Object.assign(state, choice);
    draw(attentionView, arithmeticView);
    writeHash();
  }
  // A step by key or button shows the stage's panel: if its title is out of sight or in the lower
  // half of the window (the map fills a laptop's first screen, and the panel's lines and charts
  // are under the title), the page scrolls it up to just below the sticky controls. Their height,
  // not where they are: on the live page they are still below its form until the page scrolls.
  function revealStage() {
    const title = $('stage-title');
    if (!title || !title.getClientRects().length) return;
    const top = title.getBoundingClientRect().top, controls = $('controls').getBoundingClientRect().height;
    if (top < controls || top > window.innerHeight / 2) window.scrollBy(0, top - controls - 8);
  }
  function moveLayer(dir) {
    const s = run.stages[state.i];
    const nLayers = run.data.model.nLayers;
    for (let l = s.layer + dir; l >= -1 && l <= nLayers; l += dir) {
      if (l < 0 || l >= nLayers) break;
      const j = findIn(run, s.step, l, s.key);
      if (j >= 0) return go(j, { reveal: true });
      const first = run.stages.findIndex(t => t.step === s.step && t.layer === l);
      if (first >= 0) return go(first, { reveal: true });
    }
    if (dir > 0 && run.opts.pastEnd) run.opts.pastEnd('layer');
  }
  function moveStep(dir) {
    const stages = run.stages, s = stages[state.i];
    const target = run.data.steps.map(t => t.step).concat([...new Set(stages.map(t => t.step))]).filter(t => (dir > 0 ? t > s.step : t < s.step));
    if (!target.length) return dir > 0 && run.opts.pastEnd ? run.opts.pastEnd('token') : undefined;
    const step = dir > 0 ? Math.min(...target) : Math.max(...target);
    const j = findIn(run, step, s.layer, s.key);
    go(j >= 0 ? j : stages.findIndex(t => t.step === step), { reveal: true });
  }

  // ---- the address ----
  // The address names the place shown. A new stage is a new history entry (Back returns to the
  // stage before); a head or a cell chosen on the same stage replaces the entry.
  function writeHash() {
    const s = run.stages[state.i];
    const p = new URLSearchParams();
    p.set('step', s.step);
    if (s.layer >= 0) p.set('layer', s.layer + 1);
    p.set('stage', s.key);
    if (attentionAt(run, s)) p.set('head', state.head + 1);
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
    // A whole-number parameter: null when absent, undefined (and a problem) when out of range.
    const whole = (name, min, max) => {
      if (!p.has(name)) return null;
      const v = Number(p.get(name));
      if (!Number.isInteger(v) || v < min || v > max) {
        problems.push(`${name}=${p.get(name)} (this run has ${name} ${min} to ${max})`);
        return undefined;
      }
      return v;
    };
    const i = stageNamed(p, whole, problems);
    Object.assign(state, attentionNamed(p, whole, problems, attentionAt(run, run.stages[i])));
    go(i, { fromHash: true, keepCell: true });
    const note = $('link-note');
    note.hidden = !problems.length;
    if (problems.length) {
      const s = run.stages[state.i];
      note.textContent = `This link asks for what the run does not have: ${problems.join('; ')}. Showing ${stepLabel(s.step)}${s.layer >= 0 ? ', layer ' + (s.layer + 1) : ''}, stage ${s.key} instead.`;
    }
    return true;
  }
  // The stage the address's step, layer and stage name, or the nearest the run has.
  function stageNamed(p, whole, problems) {
    const stages = run.stages;
    const stepsHere = [...new Set(stages.map(s => s.step))];
    let step = whole('step', Math.min(...stepsHere), Math.max(...stepsHere));
    if (step === null || step === undefined) step = 0;
    const key = p.get('stage');
    const info = key ? run.catalog.get(key) : null;
    if (key && !info) problems.push(`stage=${key} (no stage has that name; stage names are as the log and the timeline write them, e.g. scores_softmax)`);
    const layerNumber = whole('layer', 1, run.data.model.nLayers);
    let layer = layerNumber ? layerNumber - 1 : (info && info.inBlock ? 0 : -1);
    if (info && !info.inBlock && layerNumber) { problems.push(`layer=${layerNumber} with stage ${key}, which runs outside the layers`); layer = -1; }
    let i = info ? findIn(run, step, layer, key) : -1;
    if (i < 0 && info) {
      const elsewhere = stages.findIndex(s => s.step === step && s.key === key);
      problems.push(`stage ${key} at ${stepLabel(step)}${layer >= 0 ? ', layer ' + (layer + 1) : ''} (this run did not record it there${elsewhere >= 0 ? '' : ' at that step'})`);
      i = elsewhere;
    }
    if (i < 0) i = stages.findIndex(s => s.step === step && (layer < 0 || s.layer === layer));
    return i < 0 ? 0 : i;
  }
  // The head and the cell the address names, where the attention `a` has them.
  function attentionNamed(p, whole, problems, a) {
    let head = 0, cell = null;
    if (p.has('head')) {
      const h = a ? whole('head', 1, a.heads) : Number(p.get('head'));
      if (!a) problems.push(`head=${p.get('head')} (the stage shown has no recorded attention)`);
      else if (h) head = h - 1;
    }
    if (p.has('q') || p.has('k')) {
      const q = Number(p.get('q')), k = Number(p.get('k'));
      if (a && Number.isInteger(q) && Number.isInteger(k) && q >= a.startPos && q < a.startPos + a.rows && k >= 0 && k < a.cols) cell = { q, k };
      else problems.push(a ? `cell q=${p.get('q')}, k=${p.get('k')} (${stepLabel(a.step)} has query positions ${a.startPos} to ${a.startPos + a.rows - 1}, key positions 0 to ${a.cols - 1})`
        : `cell q=${p.get('q')}, k=${p.get('k')} (the stage shown has no recorded attention)`);
    }
    return { head, cell };
  }

  // ---- keys and buttons ----
  function toggleHelp(show) { $('help').hidden = show === undefined ? !$('help').hidden : !show; }

  // The last click was in the attention panel (its buttons are redrawn, so focus cannot say); a
  // tap outside the help box closes it (on a phone there is no Esc).
  function onPointerDown(e) {
    state.inAttention = $('attention').contains(e.target);
    if (!$('help').hidden && !$('help').contains(e.target) && e.target !== $('help-button')) toggleHelp(false);
  }
  function onKey(e) {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
    const a = attentionAt(run, run.stages[state.i]);
    if (e.key === '?') toggleHelp();
    else if (e.key === 'Escape') toggleHelp(false);
    else if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      const dir = e.key === 'ArrowRight' ? 1 : -1;
      if (e.ctrlKey || e.metaKey) moveStep(dir);
      else if (e.shiftKey) moveLayer(dir);
      else go(state.i + dir, { reveal: true });
    } else if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && a && state.inAttention) {
      // ↑/↓ change the head only after a click in the attention panel: else they scroll the page.
      chooseInAttention({ head: (state.head + (e.key === 'ArrowDown' ? 1 : a.heads - 1)) % a.heads });
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
    for (const v of views) if (v.install) v.install();
  }

  let installed = false;
  function show(shown, opts = {}) {
    run = shown;
    run.opts = opts;
    if (!installed) install(), installed = true;
    for (const v of runViews) v.render(run, state);
    if (!readHash()) go(opts.start || 0, { reveal: opts.reveal });
  }
  function apply(part, bytes, opts) {
    show(part.reset || !run ? new RunData(part, bytes) : run.apply(part, bytes), opts);
  }
  // The run's data as the parts so far made it (the live page's test compares it with the whole).
  const data = () => (run ? run.data : null);
  return { show, apply, data };
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
