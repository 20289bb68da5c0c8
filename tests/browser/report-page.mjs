// tests/browser/report-page.mjs PAGE SCREENSHOT - opens mprof's report page
// (`mprof report --html`) from file:// in headless chromium and prints what
// it shows as "key=value" lines for tests/e2e/html-page.sh to compare with
// the JSON report: the heading, the kind of figures in the header, the
// command line a renamed process started with, the problems seen
// (console errors, page errors, network requests), the cards, the notes
// under them and the quality line, the first row of each metric's table after a click
// on its tab, the stack a click on that row opens, the total each metric's
// flamegraph shows after a click on its tab and its header, and whether a
// screenshot is blank.
import { openPage, screenshotNotBlank } from './browser.mjs';

const [file, shot] = process.argv.slice(2);
const { page, problems, close } = await openPage(`file://${file}`, { width: 1280, height: 1400 });
const out = (k, v) => console.log(`${k}=${String(v).replace(/\n/g, ' ')}`);
await page.waitForSelector('.cards');
out('title', await page.title());
out('h1', await page.textContent('h1'));
out('kind', await page.textContent('.sub .kind'));
const startedAs = await page.$('#started-as');
out('started as', startedAs ? await startedAs.textContent() : 'none');
for (const c of await page.$$('.card')) {
  const k = await c.$eval('.k', (e) => e.textContent);
  out(`card ${k}`, await c.$eval('.v', (e) => e.textContent));
  out(`card ${k} detail`, await c.$eval('.d', (e) => e.textContent));
}
// the notes under the cards and the line of what the numbers rest on
out('notes', (await page.$$eval('ul.notes li', (lis) => lis.map((l) => l.textContent))).join(' | ') || 'none');
out('quality', await page.textContent('p.quality'));
const data = await page.evaluate(() => JSON.parse(document.getElementById('mprof-data').textContent));
out('data allocations', data.report.summary.allocations);
out('data sites', data.sites.length);
for (const tab of await page.$$('#site-metrics button')) {
  const name = await tab.getAttribute('data-metric');
  await tab.click();
  const first = await page.$('tbody tr.site');
  if (!first) { out(`table ${name}`, 'none'); continue; }
  const cells = await first.$$eval('td', (tds) => tds.map((t) => t.innerText.replace(/\n/g, ' | ')));
  out(`table ${name}`, cells.join(' ; '));
  await first.click();
  const frames = await page.$$eval('tbody tr:not(.site) .stack', (uls) =>
    uls.filter((u) => u.closest('tr').style.display === '').map((u) => u.children.length));
  out(`stack ${name}`, frames.join(','));
}
// the flamegraph: each metric's tab loads that metric's flame graph page
for (const tab of await page.$$('#flame-metrics button')) {
  const name = await tab.getAttribute('data-metric');
  await tab.click();
  const handle = await page.$('iframe#flame');
  const frame = await handle.contentFrame();
  await frame.waitForFunction(() => document.body && document.body.dataset.ready === '1');
  const facts = await frame.textContent('#facts');
  const total = /total ([0-9,]+)/.exec(facts);
  out(`flame ${name}`, total ? total[1].replace(/,/g, '') : `no total in: ${facts}`);
  out(`flame ${name} h1`, await frame.textContent('h1'));
}
out('notblank', await screenshotNotBlank(page, shot));
out('problems', problems.length ? problems.join(' | ') : 'none');
await close();
