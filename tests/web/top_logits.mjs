// The top logits, value for value (issue 43: every kernel path gives the same bits), for the live
// page's chromium tests: the native CLI's candidates at every greedy step against the page's.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { readTrace } from './trace_file.mjs';

// A logit as a trace or the page data writes it (a number, or "inf", "-inf", "nan").
const logitNumber = v => (typeof v === 'string' ? { inf: Infinity, '-inf': -Infinity, nan: NaN }[v] : v);
// Its float32 bits, as hex (both sides write float32 values, widened to double without change).
function floatBits(v) {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, logitNumber(v));
  return '0x' + view.getUint32(0).toString(16).padStart(8, '0');
}

// The native CLI's (`cli`) candidates at every sampling step of a greedy run of `model`, from its
// own trace written to `trace` (--trace: each sample stage's "top", the --trace-top-k (10) most
// likely tokens with their float logits), read by the independent reader trace_file.mjs; and the
// run's text.
export function nativeTopOf(cli, model, prompt, tokens, trace) {
  rmSync(trace, { force: true });
  execFileSync(cli, ['--model', model, '-q', '--prompt', prompt, '-n', String(tokens), '--temperature', '0', '--trace', trace], { stdio: 'ignore' });
  const t = readTrace(trace);
  return { text: t.end.text, steps: t.stages.filter(s => s.stage === 'sample').map(s => ({ step: s.step, top: s.top || [] })) };
}

// The page's candidates at every step of its last finished run: the run page data its panels draw
// (RunPage.data().steps, built by the module from the page's own trace).
export const pageTop = page => page.evaluate(() => RunPage.data().steps.map(s => ({ step: s.step, top: s.top.map(t => ({ id: t.id, piece: t.piece, logit: t.logit })) })));

// Where the page's candidates first differ from the CLI's (step, rank, both token ids and logits,
// decimal and float bits) and how many values differ in all; null when they are equal throughout.
export function topDifference(pageSteps, cliSteps, k = 10) {
  const show = t => (t ? `id ${t.id} ${JSON.stringify(t.piece)} logit ${logitNumber(t.logit)} (${floatBits(t.logit)})` : 'none');
  let first = null, differing = 0, values = 0;
  if (pageSteps.length !== cliSteps.length) first = `the page has ${pageSteps.length} steps, the CLI ${cliSteps.length}`;
  for (let i = 0; i < Math.max(pageSteps.length, cliSteps.length); i++) {
    const p = pageSteps[i], c = cliSteps[i];
    if (!p || !c) continue;
    if (p.step !== c.step) { first ??= `record ${i}: the page's step ${p.step}, the CLI's ${c.step}`; continue; }
    if (c.top.length < k) first ??= `step ${c.step}: the CLI's trace has ${c.top.length} candidates, not ${k}`;
    for (let r = 0; r < Math.max(p.top.length, c.top.length); r++) {
      const a = p.top[r], b = c.top[r];
      values++;
      if (a && b && a.id === b.id && Object.is(logitNumber(a.logit), logitNumber(b.logit))) continue;
      differing++;
      first ??= `step ${c.step}, candidate ${r + 1}: page ${show(a)}, CLI ${show(b)}`;
    }
  }
  return first && `${first} (${differing} of ${values} candidates differ)`;
}
