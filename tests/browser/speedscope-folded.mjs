// tests/browser/speedscope-folded.mjs - loads a folded-stacks file into
// speedscope (npm, tests/browser/node_modules) from file:// in headless
// chromium, as its command-line tool does (#localProfilePath= a script
// that calls speedscope.loadFileFromBase64), and reads its Sandwich view:
// the total of each function, as speedscope computed it from the file.
// Prints title=, problems= (console errors, page errors, alerts such as
// "Unrecognized format", a title that does not name the file, requests off
// the machine; one "problem: ..." line each), then "total FUNCTION=N" per row of the table.
// Usage: node speedscope-folded.mjs FILE.folded SCRATCH_DIR
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPage } from './browser.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [file, scratch] = process.argv.slice(2);
const app = join(here, 'node_modules/speedscope/dist/release/index.html');
const loader = resolve(scratch, 'load-profile.js');
// the .collapsedstack.txt suffix tells speedscope the format
writeFileSync(loader, `speedscope.loadFileFromBase64("mprof.collapsedstack.txt", ${
  JSON.stringify(readFileSync(file).toString('base64'))})`);
const { page, problems, close } = await openPage(`file://${app}#localProfilePath=${loader}&view=sandwich`);
page.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss(); });
try {
  await page.waitForFunction(() => /collapsedstack/.test(document.title), null, { timeout: 15000 })
    .catch(() => {});
  await page.waitForSelector('text=Symbol Name', { timeout: 10000 }).catch(() => {});
  const title = await page.title();
  console.log(`title=${title}`);
  // speedscope names the page after a profile it loaded; its alerts
  // ("Unrecognized format!", "...but it's empty!") may come before the
  // dialog listener above, and are then dismissed unseen
  if (!/collapsedstack/.test(title)) problems.push(`not loaded: the title is "${title}"`);
  // the rows of the sandwich table: total, self, name
  const text = await page.evaluate(() => document.body.innerText);
  const cells = text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  for (let i = 0; i + 2 < cells.length; i++) {
    const total = /^([\d,]+) \([^)]*\)$/.exec(cells[i]);
    const self = /^([\d,]+) \([^)]*\)$/.exec(cells[i + 1]);
    if (total && self && !/^[\d,]+ \(/.test(cells[i + 2])) {
      console.log(`total ${cells[i + 2]}=${total[1].replace(/,/g, '')}`);
      i += 2;
    }
  }
  await page.screenshot({ path: join(scratch, 'speedscope.png') });
} finally {
  console.log(`problems=${problems.length}`);
  for (const p of problems) console.log(`problem: ${p}`);
  await close();
}
