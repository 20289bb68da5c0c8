// tests/browser/site-rows.mjs PAGE TAB - opens mprof's report page (`mprof
// report --html`) in headless chromium, shows the sites' table of metric TAB
// and prints, as "key=value" lines for tests/e2e/html-site-rows.sh, how its
// rows read and behave: the table's headers, each row's function, place
// and callers line ("row N"), the first row's place in full on hover, what
// marks a row as one to open (cursor, tab index, role, the marker drawn
// before its first cell, closed and open), whether hovering changes its
// background, whether Tab from the tab buttons reaches the first row, and
// what Enter and Space on it do to its stack.
import { openPage } from './browser.mjs';

const [file, tab] = process.argv.slice(2);
const { page, problems, close } = await openPage(`file://${file}`, { width: 1280, height: 1400 });
const out = (k, v) => console.log(`${k}=${String(v).replace(/\n/g, ' ')}`);
await page.waitForSelector('#site-metrics button');
await page.click(`#site-metrics button[data-metric="${tab}"]`);
const rows = await page.$$('tbody tr.site');
out('rows', rows.length);
out('headers', (await page.$$eval('#site-metrics + div thead th', (ths) => ths.map((t) => t.textContent))).join(' | '));
if (rows.length) out('row 1 place title', await rows[0].evaluate((tr) => tr.lastElementChild.querySelector('.loc').title));
for (const [i, r] of rows.entries()) {
  out(`row ${i + 1}`, await r.evaluate((tr) => {
    const cell = tr.lastElementChild, via = cell.querySelector('.via');
    return `${cell.querySelector('.fn').textContent} | ${cell.querySelector('.loc').textContent} | ${via ? via.textContent : '-'}`;
  }));
}
const first = rows[0];
const look = () => first.evaluate((tr) => ({
  cursor: getComputedStyle(tr).cursor,
  background: getComputedStyle(tr).backgroundColor,
  marker: getComputedStyle(tr.firstElementChild, '::before').content,
  expanded: tr.getAttribute('aria-expanded'),
  stackShown: tr.nextElementSibling.style.display === '',
}));
const before = await look();
out('cursor', before.cursor);
out('tabindex', await first.getAttribute('tabindex'));
out('role', await first.getAttribute('role'));
out('marker closed', before.marker);
await first.hover();
out('hover changes background', (await look()).background !== before.background);
await page.mouse.move(0, 0);
// Tab from the last metric button reaches the first row
await page.focus('#site-metrics button:last-child');
await page.keyboard.press('Tab');
out('tab reaches first row', await first.evaluate((tr) => document.activeElement === tr));
await page.keyboard.press('Enter');
let now = await look();
out('after enter', `expanded=${now.expanded} stack=${now.stackShown} marker=${now.marker}`);
await page.keyboard.press(' ');
now = await look();
out('after space', `expanded=${now.expanded} stack=${now.stackShown} marker=${now.marker}`);
out('problems', problems.length ? problems.join(' | ') : 'none');
await close();
