// The run page of a batch trace (export-html of `llama-walkthrough batch --trace`, make_pages.sh):
// for every ubatch, the table, the KV cells (their sequences and colours) and the mask the page
// draws are checked against the trace file itself, read here independently (trace_file.mjs);
// the context shift's cells before and after too. Screenshots at 1366x768 and 390x844.
// usage: node batch_page.test.mjs PAGES_DIR SCREENSHOT_DIR
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch, open, screenshotStats, check, done } from './browser.mjs';
import { readTrace, values } from './trace_file.mjs';

const [dir, shots] = process.argv.slice(2);
mkdirSync(shots, { recursive: true });
const trace = readTrace(join(dir, 'batch.trace'));
const page = join(dir, 'batch.html');
check(trace.meta.batch && trace.meta.batch.prompts.length === 2, 'the trace is a batch of two prompts');

// The trace's ubatches in order, each with its kv_slot cells and kv_mask values (same step).
const ubatches = [];
trace.stages.forEach((s, i) => {
  if (s.stage === 'ubatch') ubatches.push({ index: i, step: s.step, table: s.batch });
  const u = ubatches[ubatches.length - 1];
  if (!u || s.step !== u.step) return;
  if (s.stage === 'kv_slot') u.slot = s.batch;
  if (s.stage === 'kv_mask') u.mask = values(s, 'mask');
});
check(ubatches.length > 3, 'the trace records several ubatches', String(ubatches.length));
const shifts = trace.stages.filter(s => s.stage === 'context_shift');
check(shifts.length > 0, 'the trace records a context shift');

const rgb = hex => `rgb(${parseInt(hex.slice(1, 3), 16)}, ${parseInt(hex.slice(3, 5), 16)}, ${parseInt(hex.slice(5, 7), 16)})`;

const browser = await launch();
try {
  const { page: p, log } = await open(browser, page);
  check(log.errors.length === 0, 'no console error', log.errors.join(' | '));
  check(await p.evaluate(() => document.body.dataset.ready) === '1', 'the page is ready');
  check(await p.$eval('#batch-panel', e => !e.hidden), 'the Batch panel is shown');
  let sameSeqSameColour = true, otherSeqOtherColour = true, freeColour = null;
  for (const [n, u] of ubatches.entries()) {
    // The page shows the ubatch a stage belongs to: go to the trace's kv_mask stage of this step.
    await p.goto(p.url().split('#')[0] + `#step=${u.step}&stage=kv_mask`);
    await p.waitForFunction(step => document.body.dataset.step === String(step) && document.body.dataset.stage === 'kv_mask', {}, u.step);
    const shown = await p.evaluate(() => ({
      where: document.getElementById('batch-where').textContent,
      rows: [...document.querySelectorAll('#batch-table tr[data-token]')].map(r => [...r.children].map(c => c.textContent)),
      cells: [...document.querySelectorAll('#batch-cells .cell')].map(c => ({ pos: Number(c.dataset.pos), seqs: c.dataset.seqs,
        colour: getComputedStyle(c).backgroundColor, slot: c.classList.contains('slot'), head: !!c.querySelector('.head') })),
      mask: [...document.querySelectorAll('#batch-mask [data-sees]')].map(c => ({ r: Number(c.dataset.row), c: Number(c.dataset.col), sees: c.dataset.sees })),
    }));
    const label = `ubatch ${n + 1} (step ${u.step})`;
    check(shown.where.includes(`ubatch ${n + 1} of ${ubatches.length}`), `${label}: the panel names it`, shown.where);
    const table = u.table.tokens.map((t, i) => [String(i), `"${t.piece}"`, String(t.pos), t.seqIds.join(','), t.output ? 'yes' : 'no']);
    check(JSON.stringify(shown.rows) === JSON.stringify(table), `${label}: the table is the trace's (token, pos, seq_ids, output)`,
      JSON.stringify(shown.rows).slice(0, 200));
    // The cells: the trace's [0, n_kv) and then free cells; the slot outlined, head marked.
    const cells = shown.cells.slice(0, u.slot.nKV);
    check(JSON.stringify(cells.map(c => [c.pos, c.seqs])) === JSON.stringify(u.slot.cells.map(c => [c.pos, c.seqIds.join(',')])),
      `${label}: the cells' positions and sequences are the trace's`);
    check(shown.cells.slice(u.slot.nKV).every(c => c.pos === -1 && c.seqs === ''), `${label}: the cells past n_kv are free`);
    check(shown.cells.filter(c => c.head).length === 1 && shown.cells[u.slot.head].head, `${label}: head is marked at cell ${u.slot.head}`);
    check(shown.cells.map((c, j) => c.slot ? j : -1).filter(j => j >= 0).join() ===
      Array.from({ length: u.slot.nTokens }, (_, i) => u.slot.head + i).join(), `${label}: the slot's cells are outlined`);
    // Colours by sequence: one colour per sequence set, a different one for another set.
    const bySeqs = new Map();
    for (const c of shown.cells) {
      if (c.seqs === '') { freeColour = freeColour || c.colour; sameSeqSameColour &&= c.colour === freeColour; continue; }
      if (!bySeqs.has(c.seqs)) bySeqs.set(c.seqs, c.colour);
      sameSeqSameColour &&= bySeqs.get(c.seqs) === c.colour;
    }
    const single = [...bySeqs.entries()].filter(([k]) => !k.includes(','));
    otherSeqOtherColour &&= new Set(single.map(([, v]) => v)).size === single.length && !single.some(([, v]) => v === freeColour);
    // The mask: the page's cells that "see" are exactly the trace's mask entries that are 0 (not -inf).
    const [rows, cols] = u.mask.shape;
    const expected = [];
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) expected.push(u.mask.values[r * cols + c] === -Infinity ? '0' : '1');
    check(shown.mask.length === rows * cols && shown.mask.every((m, i) => m.r * cols + m.c === i && m.sees === expected[i]),
      `${label}: the mask is the trace's kv_mask [${rows} ${cols}]`);
    // Block-diagonal: a token never sees a cell none of its sequences owns.
    const diagonal = shown.mask.every(m => m.sees === '0' || u.slot.cells[m.c].seqIds.some(s => u.table.tokens[m.r].seqIds.includes(s)));
    check(diagonal, `${label}: every seen cell shares the token's sequence`);
    if (n === 1) {
      for (const [name, viewport] of [['1366x768', { width: 1366, height: 768 }], ['390x844', { width: 390, height: 844, isMobile: true }]]) {
        await p.setViewport(viewport);
        await p.$eval('#batch-panel', e => e.scrollIntoView());
        const png = await p.screenshot({ path: join(shots, `batch-page-${name}.png`) });
        const stats = await screenshotStats(browser, png);
        check(stats.colours > 20 && stats.dominant < 0.9, `the batch page at ${name} is a real render`, JSON.stringify(stats));
      }
      await p.setViewport({ width: 1366, height: 768 });
    }
  }
  check(sameSeqSameColour, 'cells of the same sequence share a colour, free cells theirs, on every ubatch');
  check(otherSeqOtherColour, 'each sequence has its own colour, not the free cells\'');
  // The colours are the ones the page's data names for each sequence.
  const colours = await p.evaluate(() => JSON.parse(document.getElementById('run-data').textContent).batch.colours).catch(() => null);
  if (colours) {
    const c1 = await p.$eval('#batch-cells .cell[data-seqs="1"]', e => getComputedStyle(e).backgroundColor).catch(() => null);
    check(c1 === rgb(colours['1']), 'sequence 1\'s cells have the colour the data gives it', `${c1} vs ${colours['1']}`);
  }

  // The context shift: go past it, the page shows the cells before and after as the trace has them.
  const shift = shifts[shifts.length - 1];
  const after = trace.stages.indexOf(shift);
  const next = trace.stages.slice(after).find(s => s.stage === 'kv_mask');
  await p.goto(p.url().split('#')[0] + `#step=${next.step}&stage=kv_mask`);
  await p.waitForFunction(step => document.body.dataset.step === String(step), {}, next.step);
  const rows = await p.evaluate(() => [...document.querySelectorAll('#batch-shift .row')].map(r =>
    ({ when: r.dataset.when, cells: [...r.querySelectorAll('.cell')].map(c => [Number(c.dataset.pos), c.dataset.seqs]) })));
  check(!(await p.$eval('#batch-shift-box', e => e.hidden)), 'the context shift is shown');
  for (const when of ['before', 'after']) {
    const row = rows.find(r => r.when === when);
    check(row && JSON.stringify(row.cells) === JSON.stringify(shift.batch[when].map(c => [c.pos, c.seqIds.join(',')])),
      `the shift's cells ${when} are the trace's`);
  }
  await p.$eval('#batch-shift-box', e => e.scrollIntoView());
  const png = await p.screenshot({ path: join(shots, 'batch-page-shift-1366x768.png') });
  check((await screenshotStats(browser, png)).colours > 20, 'the shift screenshot is a real render');
} finally {
  await browser.close();
}
done();
