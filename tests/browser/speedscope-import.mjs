// tests/browser/speedscope-import.mjs - loads a profile file into speedscope
// (node_modules/speedscope, offline from file://, the way its own CLI does:
// a script calling speedscope.loadFileFromBase64, named by
// #localProfilePath) and prints what a test checks:
//   title: the page title ("NAME - speedscope" once it imported the file)
//   row: TOTAL|SELF|SYMBOL for each row of the Sandwich view's table
//   problem: anything wrong (console error, exception, request, an alert
//            such as "Unrecognized format!", speedscope's "Failed to load
//            format", no title within the time limit)
// Usage: node speedscope-import.mjs PROFILE SCRATCH_DIR [SCREENSHOT.png]
// Exit status 0 when it imported the file with no problem, else 1.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openPage } from './browser.mjs';

const [profile, scratch, shot] = process.argv.slice(2);
const name = basename(profile);
const here = dirname(fileURLToPath(import.meta.url));
const index = join(here, 'node_modules/speedscope/dist/release/index.html');
const loader = join(scratch, `${name}.load.js`);
writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(name)}, ` +
  `${JSON.stringify(readFileSync(profile).toString('base64'))})`);

const { page, problems, close } = await openPage(`file://${index}#localProfilePath=${loader}`);
// alerts and speedscope's own log of a failed import, then the import again
// with them watched (the first may have run before openPage returned)
let alerted;
const alert = new Promise((resolve) => { alerted = resolve; });
page.on('dialog', async (d) => {
  problems.push(`alert: ${d.message()}`);
  await d.dismiss();
  alerted(false);
});
page.on('console', (m) => {
  if (m.text().startsWith('Failed to load format')) problems.push(`console: ${m.text()}`);
});
await page.reload({ waitUntil: 'load' });
const imported = await Promise.race([alert, page.waitForFunction(
  (n) => document.title.startsWith(`${n} - `), name, { timeout: 20000 }).then(() => true, () => {
  problems.push('no title: the file was not imported within 20 s');
  return false;
})]);
console.log(`title: ${await page.title()}`);
if (imported) {
  await page.keyboard.press('3'); // the Sandwich view: a table of functions
  await page.waitForTimeout(500);
  const rows = await page.evaluate(() => {
    const text = document.body.innerText.split('\n').map((l) => l.trim()).filter((l) => l);
    const at = text.findIndex((l) => l.endsWith('Symbol Name'));
    const out = [];
    for (let i = at + 1; at >= 0 && i + 2 < text.length; i += 3)
      out.push(`${text[i]}|${text[i + 1]}|${text[i + 2]}`);
    return out;
  });
  for (const r of rows) console.log(`row: ${r}`);
  if (shot) await page.screenshot({ path: shot });
}
for (const p of problems) console.log(`problem: ${p}`);
await close();
process.exit(imported && problems.length === 0 ? 0 : 1);
