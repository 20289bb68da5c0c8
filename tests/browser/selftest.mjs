// tests/browser/selftest.mjs - proves the harness (browser.mjs) sees a
// broken page: a page that throws, logs an error and fetches from the
// network must give three problems; a clean page none.  Prints one line
// per check and exits 1 on a failure.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPage } from './browser.mjs';

const dir = mkdtempSync(join(tmpdir(), 'mprof-browser-'));
const bad = join(dir, 'bad.html');
const good = join(dir, 'good.html');
writeFileSync(bad, '<!doctype html><body><script>console.error("boom");' +
  'fetch("http://192.0.2.1/x").catch(()=>{});null.x;</script></body>');
writeFileSync(good, '<!doctype html><body><p>ok</p><script>console.log("fine")</script></body>');

let failed = 0;
const check = (name, ok, got) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} - ${name}${ok ? '' : `: ${got}`}`);
  if (!ok) failed++;
};
{
  const { page, problems, close } = await openPage(`file://${bad}`);
  // until the three problems are seen, 30 s at most (a fixed 300 ms was a
  // margin a loaded host could miss)
  for (let waited = 0; problems.length < 3 && waited < 30000; waited += 50)
    await page.waitForTimeout(50);
  await page.waitForTimeout(300); // and any further one
  await close();
  check('a console error is seen', problems.some((p) => p.startsWith('console error: boom')), problems);
  check('an uncaught exception is seen', problems.some((p) => p.startsWith('page error:')), problems);
  check('a network request is seen', problems.some((p) => p.startsWith('request: http://192.0.2.1/')), problems);
}
{
  const { problems, close } = await openPage(`file://${good}`);
  await close();
  check('a clean page has no problem', problems.length === 0, problems);
}
rmSync(dir, { recursive: true, force: true }); // none left in the shared temp folder
process.exit(failed ? 1 : 0);
