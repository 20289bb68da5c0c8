// tests/browser/heap-chart.mjs PAGE SCREENSHOT - opens mprof's report page
// (`mprof report --html`) from file:// in headless chromium and prints, as
// "key=value" lines for tests/e2e/report-massif.sh, what its chart of the
// heap over time draws: the problems seen, the number of vertices of the
// RSS and heap lines (a dot for a line of one point; RSS read once is a
// dashed level), the axis's byte labels, the time labels and the time they
// put under the peak's line, the legend, the peak label, the markers' labels (and
// the labels that do not fit in the chart), the stretches
// shaded as not recorded, the header's kind and the notes, and the chart's
// screenshot.
import { openPage } from './browser.mjs';

const [file, shot] = process.argv.slice(2);
const { page, problems, close } = await openPage(`file://${file}`, { width: 1280, height: 1400 });
const out = (k, v) => console.log(`${k}=${String(v).replace(/\n/g, ' ')}`);
await page.waitForSelector('.cards');
const chart = await page.$('#chart svg');
out('chart', chart ? 'yes' : 'no');
if (chart) {
  // vertices per line (M, L, H: a step is H then V): RSS first, then the heap
  const lines = await page.$$eval('#chart svg path', (ps) =>
    ps.map((p) => (p.getAttribute('d').match(/[MLH]/g) || []).length));
  out('lines', lines.join(','));
  // a line of one point alone is a dot
  out('dots', await page.$$eval('#chart svg circle.dot', (cs) => cs.length));
  // RSS read once: a dashed level across the chart (its path is in "lines" too)
  out('rss once', await page.$$eval('#chart svg path.rss-once', (ps) => ps.length));
  // the byte figures of the axis, bottom up, and the legend
  out('y labels', await page.$$eval('#chart svg text.ylabel', (ts) => ts.map((t) => t.textContent).join(',')));
  // the time axis: its labels, and the time they put under the peak's line
  // (interpolated between the first two labels; "none" without two)
  out('x labels', await page.$$eval('#chart svg text.xlabel', (ts) => ts.map((t) => t.textContent).join(',')));
  out('time at peak line', await page.$eval('#chart svg', (s) => {
    const ls = [...s.querySelectorAll('text.xlabel')];
    const line = [...s.querySelectorAll('line')].find((l) => l.getAttribute('stroke') === '#c2410c');
    if (ls.length < 2 || !line) return 'none';
    const [a, b] = ls.map((t) => [Number(t.getAttribute('x')), Number(t.dataset.ns)]);
    return Math.round(a[1] + ((Number(line.getAttribute('x1')) - a[0]) * (b[1] - a[1])) / (b[0] - a[0]));
  }));
  out('legend', await page.$$eval('#chart .legend span', (ss) => ss.map((e) => e.textContent).join(' | ')));
  out('peak label', await page.$eval('#chart svg', (s) =>
    [...s.querySelectorAll('text')].map((t) => t.textContent).find((t) => t.startsWith('peak')) || 'none'));
  // the program's markers (their labels) and the stretches recording was stopped
  out('markers', await page.$$eval('#chart svg text.marker', (ts) => ts.map((t) => t.textContent).join(',')));
  out('paused', await page.$$eval('#chart svg rect.paused', (rs) => rs.length));
  // labels drawn past the chart's left or right edge (cut off on screen)
  out('clipped labels', await page.$eval('#chart svg', (s) => {
    const w = s.viewBox.baseVal.width;
    const labels = [...s.querySelectorAll('text')].filter((t) => t.classList.contains('marker') || t.textContent.startsWith('peak '));
    const cut = labels.filter((t) => {
      const b = t.getBBox();
      return b.x < 0 || b.x + b.width > w;
    });
    return cut.length ? cut.map((t) => t.textContent).join(',') : 'none';
  }));
  await chart.screenshot({ path: shot });
}
out('kind', await page.textContent('.sub .kind'));
out('notes', (await page.$$eval('ul.notes li', (ls) => ls.map((l) => l.textContent))).join(' | '));
out('problems', problems.length ? problems.join(' | ') : 'none');
await close();
