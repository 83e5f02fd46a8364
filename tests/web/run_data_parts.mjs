// The live page's run data as its parts added it up (RunPage.data(), one part a step) against the
// same run's whole page data made at once by the module ({cmd: 'pageData'}, runPageData from the
// trace read whole): every panel's numbers, the float arrays decoded. Run in the page. The parts
// carry no attention arithmetic (the module makes an attention's when a reader opens one of its
// cells): every attention's is asked for as a cell's opening asks, and compared with the whole's.
export async function partsAgainstWhole(page) {
  await page.evaluate(() => { live.whole = null; live.worker.postMessage({ cmd: 'pageData' }); });
  await page.waitForFunction(() => live.whole !== null, { timeout: 60000 });
  return page.evaluate(async () => {
    if (!live.whole.ok) return { problems: ['the whole page data: ' + live.whole.error] };
    const parts = RunPage.data(), whole = new RunData(live.whole.data).data;
    // Decoded arrays as text (every bit of a float32 shows in its shortest decimal); the encoded
    // arrays (base64 in the whole, byte offsets in the parts) are left out.
    const canon = (x, withArith) => JSON.stringify(x, (k, v) => {
      if (['arith', 'arithAsked', 'arithNone'].includes(k) && !withArith) return undefined;
      if (v instanceof Float32Array) return Array.from(v, String);
      if (v && typeof v === 'object' && v.dtype && (typeof v.b64 === 'string' || Number.isInteger(v.at))) return undefined;
      return v;
    });
    const byStep = xs => [...xs].sort((a, b) => a.step - b.step || (a.layer ?? 0) - (b.layer ?? 0));
    const problems = [];
    for (const [name, a, b] of [['stages', parts.stages, whole.stages], ['tokens', parts.tokens, whole.tokens], ['steps', parts.steps, whole.steps],
                                ['attention', parts.attention, whole.attention], ['masks', parts.masks, whole.masks],
                                ['lens', byStep(parts.lens), byStep(whole.lens)], ['map views', byStep(parts.map.views), byStep(whole.map.views)]]) {
      if (a.length !== b.length) { problems.push(`${name}: ${a.length} from the parts, ${b.length} whole`); continue; }
      const at = a.findIndex((x, i) => canon(x) !== canon(b[i]));
      if (at >= 0) problems.push(`${name}[${at}] differs: ${canon(a[at]).slice(0, 300)} against ${canon(b[at]).slice(0, 300)}`);
    }
    if (canon(parts.run) !== canon(whole.run)) problems.push(`run: ${canon(parts.run)} against ${canon(whole.run)}`);
    // Every attention's arithmetic, asked of the module as a cell's opening asks (askArithmetic).
    let arithmetic = 0;
    for (const [i, a] of parts.attention.entries()) {
      const b = whole.attention[i];
      if (!b || !b.arith) { problems.push(`attention[${i}]: the whole page data has no arithmetic`); break; }
      const { arith, bytes } = await askArithmetic(a);
      const asked = arith && decodeArithmetic(arith, `attention[${i}].arith`, bytes);
      if (canon(asked, true) !== canon(b.arith, true)) {
        problems.push(`attention[${i}].arith differs: ${canon(asked, true).slice(0, 300)} against ${canon(b.arith, true).slice(0, 300)}`);
        break;
      }
      ++arithmetic;
    }
    return { problems, stages: parts.stages.length, attention: parts.attention.length, arithmetic, tokens: parts.tokens.length };
  });
}

// Presses `button` and waits until the page has drawn what it brought (body[data-drawn] counts the
// draws, after the frame): the step's time as the page measured it, from the press to the frame.
export async function timedStep(page, button) {
  const before = await page.evaluate(() => Number(document.body.dataset.drawn) || 0);
  await page.$eval(button, e => e.click());
  await page.waitForFunction(b => (Number(document.body.dataset.drawn) || 0) > b, { timeout: 120000 }, before);
  return page.evaluate(() => live.stepMs);
}
