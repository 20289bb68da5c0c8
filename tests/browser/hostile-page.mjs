// tests/browser/hostile-page.mjs PAGE KIND - opens a page of mprof's
// (KIND report: `mprof report --html`, every site's stack opened and each
// flamegraph tab shown; KIND flame: `--format flamegraph`, every frame
// hovered, its tooltip's text kept) made from a trace whose names hold
// HTML and script
// (tests/e2e/hostile-names.sh), and prints what would show an injection as
// "key=value" lines: dialogs= (alert, confirm or prompt calls, in the page
// or its frames), scripts= (script elements beyond the page's own, in every
// frame, not counting JSON data blocks), handlers= (elements with an on*
// attribute), images= (img elements), text= (1 when the page's text,
// frames and tooltips included, shows each name given in
// MPROF_HOSTILE_NAMES, '\n' between, as it is), problems=.
import { resolve } from 'node:path';
import { openPage } from './browser.mjs';

const [file, kind] = process.argv.slice(2);
const names = (process.env.MPROF_HOSTILE_NAMES || '').split('\n').filter((n) => n);
let dialogs = 0, tips = '';

// Hovers each frame of the flame graph in frame f, keeping its tooltips.
async function hoverFrames(f) {
  for (const g of await f.$$('#svg g[data-n]')) {
    await g.hover().catch(() => {});
    tips += ' ' + ((await f.textContent('#tip').catch(() => '')) || '');
  }
}
const { page, problems, close } = await openPage(`file://${resolve(file)}`, {
  width: 1400,
  height: 1000,
  before: async (p) => {
    p.on('dialog', (d) => { dialogs++; d.dismiss().catch(() => {}); });
  },
});
const out = (k, v) => console.log(`${k}=${String(v).replace(/\n/g, ' ')}`);
if (kind === 'report') {
  await page.waitForSelector('.cards');
  for (const row of await page.$$('tbody tr.site')) await row.click().catch(() => {});
  for (const tab of await page.$$('#flame-metrics button')) {
    await tab.click();
    const frame = await (await page.$('iframe#flame')).contentFrame();
    await frame.waitForFunction(() => document.body && document.body.dataset.ready === '1');
    await hoverFrames(frame);
  }
} else {
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 30000 });
  await hoverFrames(page);
}
await page.waitForTimeout(200);
let scripts = 0, handlers = 0, images = 0, text = tips;
for (const frame of page.frames()) {
  const f = await frame.evaluate(() => ({
    // the page's own: the data block and its code, none made from names
    scripts: [...document.querySelectorAll('script')].filter((s) => /alert/.test(s.textContent) && s.type !== 'application/json').length,
    handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length,
    images: document.querySelectorAll('img').length,
    text: document.body ? document.body.innerText + ' ' + [...document.querySelectorAll('title, svg title, [title]')].map((e) => e.textContent + ' ' + (e.getAttribute('title') || '')).join(' ') : '',
  }));
  scripts += f.scripts;
  handlers += f.handlers;
  images += f.images;
  text += f.text;
}
out('dialogs', dialogs);
out('scripts', scripts);
out('handlers', handlers);
out('images', images);
const missing = names.filter((n) => !text.includes(n));
out('text', missing.length ? `missing: ${missing.join(' | ')}` : 1);
out('problems', problems.length ? problems.join(' | ') : 'none');
await close();
