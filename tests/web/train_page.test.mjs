// The live page's Train panel (make web) in Debian's chromium, served by web/serve.mjs: a tiny
// model trained on the panel's text for a few steps (the loss drops, a sample appears, tokens/s
// shown), then one training step stepped through in the run's panels (forward, loss and backward
// stages), and bad input (an empty text) refused with the engine's message. Once in the
// single-threaded build (a browser without service workers) and, where it was built, once in the
// threaded one (the headers isolate the page); screenshots at a phone's size and a desktop's.
//   node train_page.test.mjs WEB_DIR SCREENSHOT_DIR
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, screenshotStats, check, done, serve } from './browser.mjs';

const [webDir, shots] = process.argv.slice(2);
mkdirSync(shots, { recursive: true });

const body = (page, key) => page.evaluate(k => document.body.dataset[k], key);

async function trainIn(browser, variant, viewport) {
  const { child, origin } = await serve(webDir, variant === 'single');
  const page = await browser.newPage();
  await page.setViewport(viewport);
  // No service worker: the plain host cannot isolate the page, so it runs the single-threaded build.
  if (variant === 'single') await page.evaluateOnNewDocument(() => { delete Navigator.prototype.serviceWorker; });
  const errors = [];
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', e => errors.push(String(e)));
  try {
    await page.goto(origin + '/');
    await page.waitForFunction(() => document.body.dataset.engine === 'ready', { timeout: 60000 });
    check(await body(page, 'variant') === variant, `${variant}: the page runs the ${variant} build`);
    await page.$eval('#train-panel', e => { e.open = true; });
    // A quick recipe for a test: windows of 32, 2 a step, a higher learning rate.
    const set = (id, value) => page.$eval(id, (e, v) => { e.value = v; e.dispatchEvent(new Event('change')); }, value);
    await set('#train-seq-len', '32');
    await set('#train-batch', '2');
    await set('#train-lr', '0.01');
    await set('#train-sample-every', '6');

    // Start: steps come in requests of a few; after 12 the loss has dropped and a sample is shown.
    const t0 = Date.now();
    await page.click('#train-start');
    await page.waitForFunction(() => Number(document.body.dataset.trainSteps || 0) >= 12 && Number(document.body.dataset.trainSamples || 0) >= 1 ||
                                     document.body.dataset.training === 'error', { timeout: 120000 });
    await page.click('#train-stop');
    await page.waitForFunction(() => document.body.dataset.training !== 'running', { timeout: 60000 });
    const seconds = (Date.now() - t0) / 1000;
    const curve = await page.evaluate(() => ({ points: document.querySelector('#train-curve polyline')?.getAttribute('points').split(' ').length || 0 }));
    const losses = await page.evaluate(() => live.trainLosses);
    const status = await page.$eval('#train-status', e => e.textContent);
    const sample = await page.$eval('#train-samples li', e => e.textContent).catch(() => '');
    check(losses.length >= 12 && losses[losses.length - 1] < losses[0] - 1, `${variant}: the loss drops as the model trains`,
          `${losses.length} steps in ${seconds.toFixed(1)} s, ${losses[0]?.toFixed(3)} -> ${losses[losses.length - 1]?.toFixed(3)}`);
    check(curve.points === losses.length, `${variant}: the curve draws every step`, `${curve.points} points`);
    check(/\d+ tokens\/s/.test(status) && !status.includes('stopping'), `${variant}: the status says tokens/s`, status);
    const command = await page.$eval('#train-command', e => e.textContent);
    check(command.includes('llama-walkthrough train --dim 64 --n-layers 2 --n-heads 4 --n-kv-heads 2 --seq-len 32 --batch 2 --steps 2000 --warmup 10 --lr 0.01 --seed 1234'),
          `${variant}: the page says which train command trains the same way`, command);
    check(/^step \d+In the beginning.+/.test(sample), `${variant}: a sample appears, after the text's first words`, sample);
    await page.$eval('#train-panel', e => e.scrollIntoView());
    const shot = await page.screenshot({ path: join(shots, `train-${variant}-${viewport.width}x${viewport.height}.png`) });
    const stats = await screenshotStats(browser, shot);
    check(stats.colours > 20, `${variant}: the training screenshot shows something`, `${stats.colours} colours`);

    // Step through one training step: its first window's stages revealed from the first, with backward stages.
    await page.click('#train-step');
    await page.waitForFunction(() => document.body.dataset.run === 'stepping' || document.body.dataset.training === 'error', { timeout: 60000 });
    check(await body(page, 'revealed') === '1', `${variant}: a recorded training step is revealed from its first stage`);
    check(await page.evaluate(() => RunPage.data().stages.length) === 1, `${variant}: the panels hold the stages revealed, no later one`);
    await page.click('#run-to-end');
    await page.waitForFunction(() => document.body.dataset.run === 'done', { timeout: 60000 });
    const keys = await page.evaluate(() => RunPage.data().stages.map(s => s.key));
    check(keys.includes('loss') && keys.includes('scores_softmax_backward') && keys[keys.length - 1] === 'input_embeddings_backward',
          `${variant}: its stages run forward, loss and backward`, `${keys.length} stages`);
    const summary = await page.$eval('#summary', e => e.textContent);
    check(/^Training step \d+: loss/.test(summary), `${variant}: the summary names the training step`, summary);
    const timeline = await page.$eval('#run-view', e => e.textContent);
    check(timeline.includes('Backward: softmax'), `${variant}: the panels list the backward stages`);
    const output = await page.$eval('#output', e => e.textContent);
    check(output.length > 20 && !output.includes('\\n'), `${variant}: the output shows the recorded window's text`, output.slice(0, 60));
    await page.$eval('#run-view', e => e.scrollIntoView());
    const stepShot = await page.screenshot({ path: join(shots, `train-step-${variant}-${viewport.width}x${viewport.height}.png`) });
    check((await screenshotStats(browser, stepShot)).colours > 20, `${variant}: the stepped training screenshot shows something`);

    // An empty text: the engine's message, naming it.
    await page.$eval('#train-text', e => { e.value = ''; e.dispatchEvent(new Event('input')); });
    await page.click('#train-start');
    await page.waitForFunction(() => document.body.dataset.training === 'error', { timeout: 60000 });
    const error = await page.$eval('#live-error', e => e.textContent);
    check(error.includes("training text '/train/pasted text' is empty"), `${variant}: an empty text is refused with a message`, error);
    check(errors.length === 0, `${variant}: no console errors`, errors.join(' | '));
    return { variant, steps: losses.length, seconds, status };
  } finally {
    await page.close();
    child.kill();
  }
}

const browser = await launch();
const results = [];
try {
  results.push(await trainIn(browser, 'single', { width: 390, height: 844 }));
  if (existsSync(join(webDir, 'threads', 'llama-walkthrough.js'))) results.push(await trainIn(browser, 'threads', { width: 1366, height: 768 }));
  else console.log('skip the threaded build: not built in ' + webDir);
} finally {
  await browser.close();
}
writeFileSync(join(shots, 'train-results.json'), JSON.stringify(results, null, 1));
done();
