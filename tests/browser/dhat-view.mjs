// tests/browser/dhat-view.mjs - loads a DHAT v2 file into Valgrind's viewer
// (dh_view.html, Debian's valgrind package) in headless chromium, the way a
// user does (its file input), and prints what the viewer shows, one fact a
// line, for the shell test to compare with mprof's own figures:
//   title TEXT            document.title after the load
//   error TEXT            the viewer's error span (none: no line)
//   problem TEXT          a console error, page error or network request
//   total_bytes N         the root PP's "Total:" bytes (commas removed)
//   total_blocks N        ... and blocks
//   command TEXT          the "Command:" of its Invocation block
//   sort_ok N / sort_disabled N   sort metrics shown without an error /
//                         disabled (those needing access data)
// Usage: node dhat-view.mjs FILE [DH_VIEW_HTML]
import { openPage } from './browser.mjs';
import { basename } from 'node:path';

const file = process.argv[2];
const viewer = process.argv[3] || '/usr/libexec/valgrind/dh_view.html';
const { page, problems, close } = await openPage(`file://${viewer}`);
const out = [];

try {
  await page.setInputFiles('input[type=file]', file);
  // loaded: the root PP is printed, or the viewer shows an error
  await page.waitForFunction(() => document.querySelector('span.error') ||
    /PP 1\/1/.test(document.body.innerText), null, { timeout: 30000 });
  out.push(`title ${await page.title()}`);
  const err = await page.$eval('span.error', (e) => e.textContent).catch(() => null);
  if (err !== null) out.push(`error ${err}`);
  const text = await page.evaluate(() => document.body.innerText);
  const m = /PP 1\/1[^\n]*\n\s*Total:\s+([\d,]+) bytes[^\n]* in ([\d,]+) blocks/.exec(text);
  if (m) {
    out.push(`total_bytes ${m[1].replace(/,/g, '')}`);
    out.push(`total_blocks ${m[2].replace(/,/g, '')}`);
  }
  const c = /Command: ([^\n]*)/.exec(text);
  if (c) out.push(`command ${c[1]}`);
  if (err === null) {
    // every sort metric the file allows redisplays without an error
    const options = await page.$$eval('select option', (os) => os.map((o) => ({ v: o.value, d: o.disabled })));
    let ok = 0;
    let disabled = 0;
    for (const o of options) {
      if (o.d) {
        disabled++;
        continue;
      }
      await page.selectOption('select', o.v);
      const bad = await page.$('span.error');
      if (!bad && /PP 1\/1/.test(await page.evaluate(() => document.body.innerText))) ok++;
    }
    out.push(`sort_ok ${ok}`);
    out.push(`sort_disabled ${disabled}`);
  }
} catch (e) {
  out.push(`problem driver: ${e.message.split('\n')[0]}`);
}
await close();
for (const p of problems) out.push(`problem ${p}`);
console.log(out.join('\n'));
console.error(`dhat-view: ${basename(file)} checked`);
