// The course site (make site) in chromium: every documentation page of docs/ is in it, every link
// resolves to a file of the site and every #anchor to an element of its page, a chapter loads
// offline with its exercise checks folded and its figures drawn, and its embedded replay opens at its stage.
// usage: node site.test.mjs SITE_DIR SCREENSHOT_DIR
import { readdirSync, existsSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch, open, screenshotStats, check, done } from './browser.mjs';

const [site, shots] = process.argv.slice(2);
mkdirSync(shots, { recursive: true });
const pages = readdirSync(site).filter(f => f.endsWith('.html'));
check(pages.includes('index.html') && pages.length >= 10, 'the site has the outline and the chapters', pages.join(' '));
const inSite = u => u.startsWith(pathToFileURL(site).href + '/');
const docsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs');
const docPages = readdirSync(docsDir).filter(f => f.endsWith('.md')).map(f => f.replace(/\.md$/, '.html'));
check(docPages.length >= 9 && docPages.every(d => pages.includes(d)), 'every page of docs/ is in the site', docPages.filter(d => !pages.includes(d)).join(' '));

const browser = await launch();
try {
  // Every link of every page resolves to a file in the site, and an #anchor to an element of that
  // page (the run page's own #step=...&stage=... addresses are its state, not elements).
  let links = 0;
  const broken = [], external = new Set(), ids = new Map();
  const idsOf = async file => {
    if (!ids.has(file)) {
      const q = await browser.newPage();
      await q.goto(file, { waitUntil: 'domcontentloaded' });
      ids.set(file, new Set(await q.$$eval('[id]', els => els.map(e => e.id))));
      await q.close();
    }
    return ids.get(file);
  };
  for (const f of pages) {
    const { page: p, log } = await open(browser, join(site, f), { allowed: inSite, runPage: f === 'run.html' });
    if (log.errors.length) broken.push(`${f}: console error ${log.errors[0]}`);
    if (log.blocked.length) broken.push(`${f}: request outside the site ${log.blocked[0]}`);
    const targets = await p.$$eval('a[href], iframe[src], img[src]', els => els.map(e => e.href || e.src));
    for (const t of targets) {
      links++;
      const [file, frag] = t.split('#');
      if (/^https?:/.test(file)) { external.add(t); continue; }  // a web link, not part of the site
      if (!file.startsWith('file:')) { broken.push(`${f}: ${t} leaves the site`); continue; }
      const path = fileURLToPath(file);
      if (!existsSync(path) || dirname(path) !== site.replace(/\/$/, '')) { broken.push(`${f}: ${t}`); continue; }
      if (frag && !path.endsWith('/run.html') && !(await idsOf(file)).has(decodeURIComponent(frag))) broken.push(`${f}: ${t} (no such anchor)`);
    }
    await p.close();
  }
  if (external.size) console.log(`     web links (not checked): ${[...external].join(' ')}`);
  check(broken.length === 0, `every link of the site resolves to a file in it (${links} links, ${pages.length} pages)`, broken.slice(0, 5).join(' | '));

  const chapter = pages.find(f => f.startsWith('10-'));
  const { page: p, log } = await open(browser, join(site, chapter), { allowed: inSite, runPage: false });
  check(log.errors.length === 0, 'the forward-pass chapter loads with no console error', log.errors.join(' | '));
  check(await p.$$eval('table', t => t.length) > 0 && await p.$$eval('pre > code', c => c.length) > 0, 'it has tables and code blocks');
  // Its figures (docs/figures, copied beside the pages) load: no broken image.
  const images = await p.$$eval('main img', imgs => imgs.map(i => [i.getAttribute('src'), i.complete ? i.naturalWidth : 0]));
  check(images.length >= 5 && images.every(([, w]) => w > 0), 'its figures load', JSON.stringify(images));
  const details = await p.$$eval('details', d => d.map(e => e.open));
  check(details.length > 0 && details.every(o => !o), 'exercise checks are folded', `${details.length} checks`);
  if (details.length) {
    await p.click('details > summary');
    check(await p.$eval('details', e => e.open), 'a check opens when clicked');
  }
  // The replay: the run page in an iframe, opened at the chapter's first stage section.
  const first = await p.$eval('.stage-anchor', a => a.id.replace('stage-', ''));
  await p.$eval('iframe.replay', f => f.scrollIntoView());
  const frame = await (await p.$('iframe.replay')).contentFrame();
  await frame.waitForFunction(() => document.body.dataset.ready === '1', { timeout: 15000 });
  check(await frame.evaluate(() => document.body.dataset.stage) === first, 'the embedded replay opens at the chapter\'s stage', first);
  // The screenshots show the replay in its chapter, as a student scrolls to it.
  await p.$eval('iframe.replay', f => f.scrollIntoView());
  // On a phone (item 18): each navigation bar one line under 50 px, the replay most of a screen
  // tall, every figure a link to itself (a tap enlarges it).
  {
    await p.setViewport({ width: 390, height: 844, deviceScaleFactor: 2, isMobile: true });
    const bars = await p.$$eval('.site-nav', ns => ns.map(n => n.getBoundingClientRect().height));
    check(bars.length > 0 && Math.max(...bars) < 50, 'on a phone each navigation bar is under 50 px tall', bars.map(b => b.toFixed(0)).join(', '));
    const frameH = await p.$eval('iframe.replay', f => f.getBoundingClientRect().height);
    check(frameH >= 0.6 * 844, 'on a phone the replay is most of a screen tall', `${frameH.toFixed(0)} px`);
    const figures = await p.$$eval('main img', imgs => imgs.map(i => i.parentElement.tagName === 'A' && i.parentElement.getAttribute('href') === i.getAttribute('src')));
    check(figures.length > 0 && figures.every(Boolean), 'every figure is a link to itself (tap to enlarge)', `${figures.length} figures`);
    const wide = await p.evaluate(() => document.documentElement.scrollWidth);
    check(wide <= 390, 'the chapter does not scroll sideways on a phone', `${wide} px`);
    await p.$eval('iframe.replay', f => f.scrollIntoView());
  }
  for (const [name, viewport] of [['site-chapter-1366x768', { width: 1366, height: 768 }], ['site-chapter-phone', { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true }]]) {
    await p.setViewport(viewport);
    const png = await p.screenshot({ path: join(shots, name + '.png') });
    const s = await screenshotStats(browser, png);
    check(s.colours > 20 && s.dominant < 0.95, `screenshot ${name} is not blank`, `${s.width}x${s.height}, ${s.colours} colours, largest ${Math.round(s.dominant * 100)}%`);
  }
  await p.close();
} finally {
  await browser.close();
}
done();
