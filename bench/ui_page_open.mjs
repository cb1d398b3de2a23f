// Holds the live page open in headless chromium for bench/ui_page_p99.sh: opens URL/_test/ui,
// prints "open" once the page follows the journal, and keeps it open (polling, drawing) until
// its standard input closes. playwright-core is the browser test's (ui/tests/browser).
//   node bench/ui_page_open.mjs URL [--calls-only]
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// --calls-only: the page's journal calls (three pages of 1000 a second from the newest) with
// no browser, to tell what the server spends answering them from what the browser's drawing
// takes from a machine the server shares.
if (process.argv[3] === '--calls-only') {
  const base = process.argv[2];
  const read = async (query) => (await fetch(`${base}/_test/journal?${query}`)).json();
  const probe = await read('after=0&limit=1');
  let after = Math.max(0, probe.count + (probe.dropped || 0) - 3000);
  let pages = 0;
  let open = true;
  console.log('open');
  process.stdin.resume();
  process.stdin.on('end', () => { open = false; });
  while (open) {
    const started = Date.now();
    for (let i = 0; i < 3 && open; i += 1) {
      const page = await read(`after=${after}&limit=1000`);
      const last = page.count + (page.dropped || 0);
      after = page.entries.length ? page.entries[page.entries.length - 1].seq : after;
      if (last - after > 15000) after = last - 3000;  // as the page: jump when overtaken
      pages += 1;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (Date.now() - started))));
  }
  console.log(`closing: ${pages} pages of the journal read`);
  process.exit(0);
}
const { chromium } = createRequire(join(root, 'ui/tests/browser/package.json'))('playwright-core');
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: process.getuid && process.getuid() === 0 ? ['--no-sandbox'] : [],  // root needs it
});
const page = await browser.newPage();
const errors = [];
page.on('pageerror', (error) => errors.push(error.message));
await page.goto(process.argv[2] + '/_test/ui');
await page.waitForFunction(() => /Following the journal/.test(document.getElementById('status').textContent),
  null, { timeout: 60000 });
console.log('open');
process.stdin.resume();
process.stdin.on('end', async () => {
  const status = await page.textContent('#status');
  console.log(`closing: ${status}${errors.length ? ' errors: ' + errors.join('; ') : ''}`);
  await browser.close();
  process.exit(0);
});
