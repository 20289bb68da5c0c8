// tests/browser/browser.mjs - opens a page in Debian's chromium (headless,
// driven by playwright-core; never a browser a package downloads) and
// records what would mean the page is broken: console errors, uncaught
// exceptions, failed loads and any request that leaves the machine (a
// self-contained page makes none but file: and data: ones).
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.MPROF_CHROMIUM || '/usr/bin/chromium';

// Opens url; returns { page, problems, close }.  before(page), when given,
// runs before the page loads (to listen for dialogs, say).  problems is a live array
// of one-line strings: "console error: ...", "page error: ...",
// "request: URL" (not file:/data:/blob:/about:), "failed: URL (reason)".
// A favicon's failed load is not counted: chromium fetches it on its own
// and cancels it when the page swaps its icon (speedscope does), which is
// a race in the browser, not a broken page.
export async function openPage(url, { width = 1280, height = 800, before } = {}) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--allow-file-access-from-files', '--disable-gpu'],
  });
  const page = await browser.newPage({ viewport: { width, height } });
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!/^(file|data|blob|about):/.test(r.url())) problems.push(`request: ${r.url()}`);
  });
  page.on('requestfailed', (r) => {
    if (/\.ico$/.test(new URL(r.url()).pathname)) return;
    problems.push(`failed: ${r.url()} (${r.failure()?.errorText ?? 'no reason'})`);
  });
  if (before) await before(page);
  await page.goto(url, { waitUntil: 'load' });
  return { page, problems, close: () => browser.close() };
}

// True when the PNG screenshot of page is not one flat colour.
export async function screenshotNotBlank(page, path) {
  const png = await page.screenshot({ path, fullPage: false });
  const colours = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length && seen.size < 3; i += 4 * 97) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return seen.size;
  }, png.toString('base64'));
  return colours > 1;
}
