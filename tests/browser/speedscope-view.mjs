// tests/browser/speedscope-view.mjs - loads a profile into speedscope (the
// npm package's offline build, as its own command line does: a script that
// calls speedscope.loadFileFromBase64, named by #localProfilePath) in
// headless chromium, and prints what it shows, one fact a line:
//   title TEXT       document.title once loaded ("NAME - speedscope")
//   dialog TEXT      an alert (speedscope's "Unrecognized format!", ...)
//   problem TEXT     a console error, page error or network request, or
//                    speedscope's error screen ("Something went wrong")
//   profile I TEXT   the toolbar's profile name for the I-th profile
//                    (speedscope's "n" key moves to the next one)
//   total I TEXT     the sandwich view's first (heaviest) row then
// Usage: node speedscope-view.mjs FILE [PROFILES]
import { openPage } from './browser.mjs';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const file = process.argv[2];
const profiles = Number(process.argv[3] || 1);
const here = dirname(fileURLToPath(import.meta.url));
const index = join(here, 'node_modules/speedscope/dist/release/index.html');
const js = join(mkdtempSync(join(tmpdir(), 'mprof-speedscope-')), 'load.js');
writeFileSync(js, `speedscope.loadFileFromBase64(${JSON.stringify(basename(file))}, ` +
  `${JSON.stringify(readFileSync(file).toString('base64'))})`);

const out = [];
const { page, problems, close } = await openPage(`file://${index}#localProfilePath=${js}&view=sandwich`);
page.on('dialog', async (d) => {
  out.push(`dialog ${d.message()}`);
  await d.dismiss();
});
try {
  // loaded (the title names the profile) or failed (its error screen)
  await page.waitForFunction(() => / - speedscope$/.test(document.title) ||
    /Something went wrong/.test(document.body.innerText), null, { timeout: 30000 });
  if (/Something went wrong/.test(await page.evaluate(() => document.body.innerText)))
    throw new Error('speedscope: Something went wrong');
  out.push(`title ${await page.title()}`);
  // the sandwich table sorted by total: the root (100%) first
  await page.getByText('Total', { exact: true }).first().click();
  for (let i = 1; i <= profiles; i++) {
    // the toolbar names the profile shown: "NAME (I/N)"
    const name = await page.waitForFunction((i) => {
      const m = new RegExp(`([^\\n]*) \\(${i}/\\d+\\)`).exec(document.body.innerText);
      return m && m[1].trim();
    }, i, { timeout: 10000 }).then((h) => h.jsonValue()).catch(() => null);
    out.push(`profile ${i} ${name}`);
    // the sandwich table's rows (total, self, symbol); the root's total is
    // the largest, 100%
    const row = await page.evaluate(() => {
      let best = null;
      for (const r of document.querySelectorAll('table tr')) {
        const c = [...r.querySelectorAll('td')].map((td) => td.innerText.trim());
        if (c.length >= 3 && /\(100%\)$/.test(c[0]) && !best) best = `${c[0]} ${c[2]}`;
      }
      return best;
    });
    out.push(`total ${i} ${row}`);
    if (i < profiles) await page.keyboard.press('n');
  }
} catch (e) {
  out.push(`problem driver: ${e.message.split('\n')[0]}`);
}
await close();
rmSync(dirname(js), { recursive: true, force: true }); // none left in the shared temp folder
for (const p of problems) out.push(`problem ${p}`);
console.log(out.join('\n'));
