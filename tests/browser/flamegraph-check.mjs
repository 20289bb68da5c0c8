// tests/browser/flamegraph-check.mjs - opens a page of `mprof report
// --format flamegraph` from file:// in headless chromium and works it as a
// user would: searches a function, clicks (zooms into) it, switches to the
// inverted view.  Prints what it saw as KEY=VALUE lines for the shell test
// (tests/e2e/report-flamegraph.sh) to compare with the JSON report:
//   problems=N (then one "problem: ..." line each: console errors, page
//   errors, any request that is not file:), title=, total=, trace=,
//   program=, exe= (the embedded data's), header=, h1= (the page's header),
//   notes= (its notes, ' | ' between),
//   matched_value=, matched_total=, matched_text=, matched_frames=,
//   frame_found=, zoom_fills= (0/1: the clicked frame spans the whole
//   width), zoom_crumb=, tooltip=, callers_root_at_bottom=,
//   inverted_first=, inverted_first_row=, not_blank=, inverted_not_blank=,
//   ready_ms= (page load to first drawing).
// Usage: node flamegraph-check.mjs PAGE.html FUNCTION SCREENSHOT_PREFIX
import { resolve } from 'node:path';
import { openPage, screenshotNotBlank } from './browser.mjs';

const [pagePath, fn, shots] = process.argv.slice(2);
const out = (k, v) => console.log(`${k}=${v}`);
const { page, problems, close } = await openPage(`file://${resolve(pagePath)}`, { width: 1400, height: 900 });
try {
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 30000 });
  out('ready_ms', Math.round(await page.evaluate(() => window.mprofFlameReadyMs)));
  out('title', await page.title());
  const data = await page.evaluate(() => JSON.parse(document.getElementById('mprof-data').textContent));
  out('total', data.total);
  out('trace', data.trace);
  out('program', data.program);
  out('exe', data.exe);
  out('header', (await page.textContent('#facts')).replace(/\s+/g, ' '));
  out('h1', (await page.textContent('h1')).replace(/\s+/g, ' '));
  out('notes', (await page.$$eval('#notes div', (ds) => ds.map((d) => d.textContent))).join(' | '));
  out('not_blank', (await screenshotNotBlank(page, `${shots}-callers.png`)) ? 1 : 0);

  // the root ("all") is the lowest row of the callers view
  out('callers_root_at_bottom', await page.evaluate(() => {
    const ys = [...document.querySelectorAll('#svg g[data-n] rect')].map((r) => +r.getAttribute('y'));
    const all = document.querySelector('#svg g[data-f="-1"] rect');
    return all && +all.getAttribute('y') === Math.max(...ys) ? 1 : 0;
  }));

  // search: the matched share
  await page.fill('#search', fn);
  const m = await page.evaluate(() => {
    const e = document.getElementById('matched');
    return { v: e.dataset.value, t: e.dataset.total, text: e.textContent };
  });
  out('matched_value', m.v);
  out('matched_total', m.t);
  out('matched_text', m.text);
  out('matched_frames', await page.locator('#svg g.match').count());
  await page.screenshot({ path: `${shots}-search.png` });

  // click the function's frame: it fills the width
  // a box is named by its widest line's frame: any frame of fn's
  const sel = data.frames.map((fr, i) => (fr[0] === fn ? `#svg g[data-f="${i}"]` : null))
    .filter((x) => x).join(', ');
  out('frame_found', sel && (await page.locator(sel).count()) > 0 ? 1 : 0);
  if (sel && (await page.locator(sel).count()) > 0) {
    const f = +(await page.locator(sel).first().getAttribute('data-f'));
    await page.locator(sel).first().click();
    const z = await page.evaluate((f) => {
      const g = document.querySelector(`#svg g[data-f="${f}"]:not(.up)`);
      const box = document.getElementById('svg').viewBox.baseVal;
      const r = g && g.querySelector('rect');
      return { x: r ? +r.getAttribute('x') : -1, w: r ? +r.getAttribute('width') : -1, W: box.width };
    }, f);
    out('zoom_fills', z.x === 0 && Math.abs(z.w - z.W) <= 1 ? 1 : 0);
    out('zoom_crumb', (await page.textContent('#crumbs')).replace(/\s+/g, ' ').trim());
    await page.hover(`#svg g[data-f="${f}"]:not(.up)`);
    out('tooltip', (await page.textContent('#tip')).replace(/\s+/g, ' '));
    await page.screenshot({ path: `${shots}-zoom.png` });
    await page.click('#reset');
  }

  // the inverted view: the widest frame right under "all" at the top
  await page.fill('#search', '');
  await page.click('#view-inverted');
  const inv = await page.evaluate(() => {
    const gs = [...document.querySelectorAll('#svg g[data-d="1"]')];
    gs.sort((a, b) => b.querySelector('rect').getAttribute('width') - a.querySelector('rect').getAttribute('width'));
    const D = JSON.parse(document.getElementById('mprof-data').textContent);
    const g = gs[0];
    return g ? { name: D.frames[+g.dataset.f][0], y: +g.querySelector('rect').getAttribute('y') } : null;
  });
  out('inverted_first', inv ? inv.name : '');
  out('inverted_first_row', inv ? inv.y / 19 : -1);
  out('inverted_not_blank', (await screenshotNotBlank(page, `${shots}-inverted.png`)) ? 1 : 0);
} finally {
  out('problems', problems.length);
  for (const p of problems) console.log(`problem: ${p}`);
  await close();
}
