// The live page driven as a reader drives it, for the live page's chromium tests: opened and waited
// for, a run from its form, the engine module's memory as its worker reports it.

// Opens the live page at `address` and waits for its engine (across the service worker's reload);
// `beforeLoad(page)` may change the browser first. log.loads counts the page's loads.
export async function openLive(browser, address, viewport = { width: 1366, height: 768 }, beforeLoad = async () => {}) {
  const origin = new URL(address).origin;
  const page = await browser.newPage();
  await page.setViewport(viewport);
  await beforeLoad(page);
  const log = { errors: [], outside: [], loads: 0 };
  page.on('console', m => { if (m.type() === 'error') log.errors.push(m.text()); });
  page.on('pageerror', e => log.errors.push(String(e)));
  page.on('request', r => { if (!r.url().startsWith(origin + '/') && !r.url().startsWith('blob:') && !r.url().startsWith('data:')) log.outside.push(r.url()); });
  // A navigation request of the top frame, not its load event: a reload the service worker asks for
  // can come before the first load event has fired, under load.
  page.on('request', r => { if (r.isNavigationRequest() && r.frame() === page.mainFrame()) log.loads++; });
  const t0 = Date.now();
  await page.goto(address);
  await page.waitForFunction(() => document.body.dataset.engine, { timeout: 60000 });
  log.readyMs = Date.now() - t0;
  return { page, log, t0 };
}

// The engine module's memory, as its worker reports it: heapBytes (the memory's size), limitBytes,
// inUseBytes (what malloc has handed out).
export const moduleMemory = page => page.evaluate(() => new Promise(done => {
  const answer = e => { if (e.data.kind === 'memory') { live.worker.removeEventListener('message', answer); done(e.data); } };
  live.worker.addEventListener('message', answer);
  live.worker.postMessage({ cmd: 'memory' });
}));

// Fills the form's prompt and "more options", presses `button`, waits for the run to settle
// (`seconds` at most).
export async function run(page, prompt, extra = '', button = '#run', seconds = 120) {
  await page.$eval('#prompt', (e, v) => { e.value = v; }, prompt);
  await page.$eval('#extra', (e, v) => { e.value = v; }, extra);
  await page.evaluate(() => { document.body.dataset.run = ''; });
  await page.$eval(button, e => e.click());
  const settled = await page.waitForFunction(() => ['done', 'error', 'stepping'].includes(document.body.dataset.run), { timeout: seconds * 1000 })
    .then(() => true, () => false);
  if (!settled) {
    const state = await page.evaluate(() => JSON.stringify({ run: document.body.dataset.run, engine: document.body.dataset.engine, error: document.getElementById('live-error').textContent, build: document.getElementById('build').textContent }));
    return { state: 'timeout ' + state, text: null, error: `no answer in ${seconds} s` };
  }
  return page.evaluate(() => ({ state: document.body.dataset.run, text: live.result ? live.result.text : null, error: document.getElementById('live-error').textContent }));
}
