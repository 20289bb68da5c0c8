// tests/browser/diff-check.mjs - opens a page of `mprof diff --format
// flamegraph` (MODE flame) or `--format html` (MODE page) from file:// in
// headless chromium and works it as a user would, printing what it saw as
// KEY=VALUE lines for tests/e2e/diff-pages.sh to compare with `mprof diff
// --format json`:
//   problems=N (then "problem: ..." lines: console errors, page errors,
//   requests that are not file:), and for the flame graph (the page itself,
//   or the frame of the html page after a click on the METRIC tab):
//   header=, legend_scale= (what full colour stands for), search_text=, search_value=, search_total=, search_a=,
//   search_b= (after typing GROWN into the search), grown_fill=,
//   grown_reddish= (0/1), same_grey= (0/1: SAME's frame, unchanged), tooltip= (hovering GROWN), shrunk_fill=,
//   shrunk_bluish= (0/1; SHRUNK's frame after "Width: A"),
//   inverted_grown_depth=, inverted_grown_reddish= (GROWN's frame in the
//   inverted view),
//   not_blank=; for the html page also title=, h1=, total KEY=A B DELTA
//   (each row of the totals table, commas dropped), site_counts=, gate=,
//   grown_first= (the first row of the grown table after the tab click).
//   MODE verdict reads the html page's head alone: label KEY= and row KEY=
//   (each row of the totals table: its first cell, the others ' ; '
//   between), gate=.  MODE rankings clicks the html page's METRIC tab and
//   prints ranking= (each ranking table's heading) and first= (its first
//   row's cells, ' ; ' between, or none).  MODE sites prints site_counts=,
//   then after a click on the METRIC tab badges= (the rankings' distinct
//   badges, ' ; ' between, or none) and badge_count=.
//   MODE where hovers, in the flame graph (of the html page: after a
//   click on the METRIC tab), the widest frame of each function FN and
//   prints where FN= (the tooltip's places, ' | ' between); on the html
//   page it also clicks every row of the rankings and prints stack N=
//   (its call stack's lines, innermost first, ' | ' between).
// Usage: node diff-check.mjs flame|page PAGE.html METRIC GROWN SHRUNK SHOT.png [SAME]
//        node diff-check.mjs verdict PAGE.html
//        node diff-check.mjs rankings|sites PAGE.html METRIC
//        node diff-check.mjs where PAGE.html METRIC FN...
import { resolve } from 'node:path';
import { openPage, screenshotNotBlank } from './browser.mjs';

const [mode, pagePath, metric, grown, shrunk, shot, same] = process.argv.slice(2);
const out = (k, v) => console.log(`${k}=${String(v).replace(/\s+/g, ' ').trim()}`);
const { page, problems, close } = await openPage(`file://${resolve(pagePath)}`, { width: 1400, height: 1000 });

// "rgb(255, 120, 120)" -> [255, 120, 120]
const rgb = (s) => (/rgb\((\d+),\s*(\d+),\s*(\d+)\)/.exec(s) || []).slice(1).map(Number);

// The fill of fn's widest drawn frame in the flame graph f.
async function fillOf(f, fn) {
  return f.evaluate((fn) => {
    const D = JSON.parse(document.getElementById('mprof-data').textContent);
    let best = null;
    for (const g of document.querySelectorAll('#svg g[data-f]')) {
      const i = +g.dataset.f;
      if (i < 0 || D.frames[i][0] !== fn || g.classList.contains('up')) continue;
      const r = g.querySelector('rect');
      if (!best || +r.getAttribute('width') > +best.getAttribute('width')) best = r;
    }
    return best ? getComputedStyle(best).fill : '';
  }, fn);
}

async function checkFlame(f) {
  await f.waitForFunction(() => document.body && document.body.dataset.ready === '1');
  out('header', await f.textContent('#facts'));
  out('legend_scale', await f.textContent('#legend-scale'));
  await f.fill('#search', grown);
  const m = await f.evaluate(() => ({ ...document.getElementById('matched').dataset,
    text: document.getElementById('matched').textContent }));
  out('search_text', m.text);
  out('search_value', m.value);
  out('search_total', m.total);
  out('search_a', m.a);
  out('search_b', m.b);
  await f.fill('#search', '');
  const gf = await fillOf(f, grown), g = rgb(gf);
  out('grown_fill', gf);
  out('grown_reddish', g.length && g[0] > g[1] + 20 && g[0] > g[2] + 20 ? 1 : 0);
  if (same) {
    const sm = rgb(await fillOf(f, same));
    out('same_grey', sm.length && sm[0] === sm[1] && sm[1] === sm[2] ? 1 : 0);
  }
  const sel = await f.evaluate((fn) => {
    const D = JSON.parse(document.getElementById('mprof-data').textContent);
    const g = [...document.querySelectorAll('#svg g[data-f]')].find((g) => +g.dataset.f >= 0 && D.frames[+g.dataset.f][0] === fn);
    return g ? `#svg g[data-n="${g.dataset.n}"]` : '';
  }, grown);
  if (sel) {
    await f.hover(sel);
    out('tooltip', await f.textContent('#tip'));
  } else {
    out('tooltip', 'no frame');
  }
  await f.click('#size-a');
  const sf = await fillOf(f, shrunk), s = rgb(sf);
  out('shrunk_fill', sf);
  out('shrunk_bluish', s.length && s[2] > s[0] + 20 && s[2] > s[1] + 20 ? 1 : 0);
  await f.click('#size-b');
  // the inverted view: GROWN allocates, so it is right under the root, red
  await f.click('#view-inverted');
  const inv = await f.evaluate((fn) => {
    const D = JSON.parse(document.getElementById('mprof-data').textContent);
    const g = [...document.querySelectorAll('#svg g[data-f]')].find((g) => +g.dataset.f >= 0 && D.frames[+g.dataset.f][0] === fn);
    return g ? { d: g.dataset.d, fill: getComputedStyle(g.querySelector('rect')).fill } : null;
  }, grown);
  const ig = inv ? rgb(inv.fill) : [];
  out('inverted_grown_depth', inv ? inv.d : -1);
  out('inverted_grown_reddish', ig.length && ig[0] > ig[1] + 20 && ig[0] > ig[2] + 20 ? 1 : 0);
  await f.click('#view-callers');
}

// The totals' labels and the gate's verdict of the html page.
async function checkVerdict() {
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  for (const tr of await page.$$('#totals tbody tr')) {
    const cells = await tr.$$eval('td', (tds) => tds.map((t) => t.textContent));
    out(`label ${await tr.getAttribute('data-field')}`, cells[0]);
    out(`row ${await tr.getAttribute('data-field')}`, cells.slice(1).join(' ; '));
  }
  out('gate', (await page.$('#gate')) ? await page.textContent('#gate b') : 'none');
}

// The places the tooltip gives for the widest frame of each of fns in the
// flame graph f (the callers view), and on the html page every ranked
// site's opened call stack.
async function checkWhere(fns) {
  await page.waitForFunction(() => document.body && document.body.dataset.ready === '1');
  const iframe = await page.$('iframe#flame');
  if (iframe) {
    await page.click(`#diff-metrics button[data-metric="${metric}"]`);
    const rows = await page.$$('.ranking tbody tr.site');
    for (let i = 0; i < rows.length; i++) {
      await rows[i].click();
      const items = await rows[i].evaluate((tr) => [...tr.nextElementSibling.querySelectorAll('ul.stack li')].map((li) => li.textContent));
      out(`stack ${i + 1}`, items.join(' | '));
    }
  }
  const f = iframe ? await iframe.contentFrame() : page.mainFrame();
  await f.waitForFunction(() => document.body && document.body.dataset.ready === '1');
  for (const fn of fns) {
    const sel = await f.evaluate((fn) => {
      const D = JSON.parse(document.getElementById('mprof-data').textContent);
      let best = null;
      for (const g of document.querySelectorAll('#svg g[data-f]')) {
        if (+g.dataset.f < 0 || D.frames[+g.dataset.f][0] !== fn) continue;
        if (!best || +g.querySelector('rect').getAttribute('width') > +best.querySelector('rect').getAttribute('width')) best = g;
      }
      return best ? `#svg g[data-n="${best.dataset.n}"]` : '';
    }, fn);
    if (!sel) {
      out(`where ${fn}`, 'no frame');
      continue;
    }
    await f.hover(sel);
    out(`where ${fn}`, (await f.$$eval('#tip .where', (ws) => ws.map((w) => w.textContent))).join(' | '));
  }
}

try {
  if (mode === 'where') {
    await checkWhere(process.argv.slice(5));
  } else if (mode === 'flame') {
    await checkFlame(page.mainFrame());
  } else if (mode === 'verdict') {
    await checkVerdict();
  } else if (mode === 'sites') {
    await page.waitForFunction(() => document.body.dataset.ready === '1');
    out('site_counts', await page.textContent('#site-counts'));
    await page.click(`#diff-metrics button[data-metric="${metric}"]`);
    const badges = await page.$$eval('.ranking .badge', (bs) => bs.map((b) => b.textContent));
    out('badges', [...new Set(badges)].sort().join(' ; ') || 'none');
    out('badge_count', badges.length);
  } else if (mode === 'rankings') {
    await page.waitForFunction(() => document.body.dataset.ready === '1');
    await page.click(`#diff-metrics button[data-metric="${metric}"]`);
    for (const box of await page.$$('.ranking')) {
      out('ranking', await box.$eval('h3', (h) => h.textContent));
      const first = await box.$('tbody tr.site');
      out('first', first ? (await first.$$eval('td', (tds) => tds.slice(0, 5).map((t) => t.innerText.replace(/\n/g, ' | ')))).join(' ; ') : 'none');
    }
  } else {
    await page.waitForFunction(() => document.body.dataset.ready === '1');
    out('title', await page.title());
    out('h1', await page.textContent('h1'));
    for (const tr of await page.$$('#totals tbody tr')) {
      const key = await tr.getAttribute('data-field');
      const cells = await tr.$$eval('td', (tds) => tds.map((t) => t.textContent));
      const num = (s) => s.replace(/ \(.*\)$/, '').replace(/,/g, '').replace(/^\+/, '');
      out(`total ${key}`, `${num(cells[1])} ${num(cells[2])} ${num(cells[3])}`);
    }
    out('site_counts', await page.textContent('#site-counts'));
    out('gate', (await page.$('#gate')) ? await page.textContent('#gate b') : 'none');
    await page.click(`#diff-metrics button[data-metric="${metric}"]`);
    const first = await page.$('.ranking tbody tr.site');
    out('grown_first', first ? (await first.$$eval('td', (tds) => tds.map((t) => t.innerText.replace(/\n/g, ' | ')))).join(' ; ') : 'none');
    const frame = await (await page.$('iframe#flame')).contentFrame();
    await checkFlame(frame);
  }
  if (mode !== 'verdict' && mode !== 'rankings' && mode !== 'sites' && mode !== 'where') out('not_blank', (await screenshotNotBlank(page, shot)) ? 1 : 0);
} finally {
  out('problems', problems.length);
  for (const p of problems) console.log(`problem: ${p}`);
  await close();
}
