// A patch trace's page (export-html of `patch --trace`) in chromium: the heatmap's cells carry the
// trace's own numbers (its PTCH record, read here), a hover says the cell, a click opens that stage
// (the patched site at that layer, in the prefill) with both runs' summaries; and a page of a run
// under a grammar names it in its banner.
// usage: node patch_page.test.mjs PAGES_DIR SCREENSHOT_DIR   (PAGES_DIR from make_pages.sh)
import { readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch, open, check, done } from './browser.mjs';

const [dir, shots] = process.argv.slice(2);
mkdirSync(shots, { recursive: true });
// The grid as the trace holds it: "LLMTRACE", version, then the PTCH record's header and JSON.
const bytes = readFileSync(join(dir, 'patch.trace'));
check(bytes.toString('latin1', 0, 8) === 'LLMTRACE' && bytes.readUInt32LE(8) >= 3 && bytes.toString('latin1', 12, 16) === 'PTCH',
  'the patch trace is version 3 or later (patch traces came in 3) and starts with its PTCH record');
const grid = JSON.parse(bytes.toString('utf8', 28, 28 + bytes.readUInt32LE(16)));
const recovered = (l, c) => (grid.patchedDiff[l][c] - grid.corruptDiff) / (grid.cleanDiff - grid.corruptDiff);

const browser = await launch();
try {
  const { page: p, log } = await open(browser, join(dir, 'patch.html'));
  check(log.errors.length === 0, 'no console error', log.errors.join(' | '));
  check(!(await p.$eval('#patch-panel', e => e.hidden)), 'the patching heatmap is shown');
  const cells = await p.$$eval('#patch-grid td', tds => tds.map(td => ({ l: +td.dataset.layer, c: +td.dataset.column, text: td.textContent, bg: td.style.background })));
  check(cells.length === grid.layers * grid.columns, 'one cell per layer and position', `${cells.length} cells for ${grid.layers}x${grid.columns}`);
  const wrong = cells.filter(x => x.text !== recovered(x.l - 1, x.c - 1).toFixed(2));
  check(wrong.length === 0, 'every cell shows the share recovered the trace\'s grid gives', JSON.stringify(wrong.slice(0, 3)));
  const last = cells.find(x => x.l === 5 && x.c === 11);
  check(last.text === '0.67', 'layer 5 at the last position recovers 0.67 (chapter 20)', last.text);
  check(/rgb\(255, \d+, \d+\)/.test(last.bg) && cells.find(x => x.l === 1 && x.c === 1).bg === 'rgb(255, 255, 255)',
    'recovered cells are red, nothing recovered white', `${last.bg}`);
  await p.hover('#patch-grid td[data-layer="2"][data-column="3"]');
  const readout = await p.$eval('#patch-readout', e => e.textContent);
  check(readout.startsWith('layer 2, position 2 " Moses/ Joseph": recovered 0.47'), 'hovering a cell says which and how much', readout);
  await p.click('#patch-grid td[data-layer="5"][data-column="11"]');
  const where = await p.evaluate(() => [document.body.dataset.stage, document.body.dataset.layer, document.body.dataset.step].join());
  check(where === 'ffn_residual,5,0', 'a click opens the patched stage at that layer, in the prefill', where);
  const both = await p.$eval('#patch-stage', e => e.textContent);
  check(/Clean run: output \[11 256\] min .* Corrupted run: output \[11 256\] min /.test(both), 'with that stage\'s summary in both runs', both);
  check(await p.$eval('#patch-grid td.chosen', e => e.dataset.layer + ',' + e.dataset.column) === '5,11', 'the chosen cell is marked');
  check(!(await p.$eval('#compare-panel', e => e.hidden)), 'the corrupted run is the page\'s comparison');
  await p.$eval('#patch-panel', e => e.scrollIntoView());
  await p.screenshot({ path: join(shots, 'patch-page.png') });

  const g = await open(browser, join(dir, 'grammar.html'));
  const banner = await g.page.$eval('#what-if', e => e.hidden ? '' : e.textContent);
  check(banner.includes('Constrained by a grammar (json)'), 'a run under --json names its grammar in the banner', banner);
  const plain = await open(browser, join(dir, 'run.html'));
  check(await plain.page.$eval('#patch-panel', e => e.hidden), 'a plain run\'s page has no patching heatmap');
} finally {
  await browser.close();
}
done();
