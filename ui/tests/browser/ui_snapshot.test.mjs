// `retryproof ui-snapshot` as CI runs it: a proxy with a control token in front of a
// provider, a duplicate sent through it, and the proxy's live page shot by headless Chromium
// without the token, with a wrong one and with the right one from --token-file. Asserts the
// page's words (--dump-text): "unknown" where the numbers would be and never "None" or "no
// operations yet" when it could not read; the duplicate when it could; the exit status and
// the message in each case; and the command's errors for what a user gets wrong.
//
//   RETRYPROOF_BINARY=build/dev/scenarios/retryproof RETRYPROOF_SCREENSHOTS=DIR node ui_snapshot.test.mjs
//
// Exit 0 when every check held, 1 when one did not, 77 (skipped) when /usr/bin/chromium is
// not installed and every check that needs no browser held.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const CHROMIUM = '/usr/bin/chromium';
const binary = process.env.RETRYPROOF_BINARY;
const screenshots = process.env.RETRYPROOF_SCREENSHOTS || mkdtempSync(join(tmpdir(), 'retryproof-snap-'));
if (!binary || !existsSync(binary)) {
  console.error(`RETRYPROOF_BINARY must name the retryproof program (it is "${binary ?? ''}")`);
  process.exit(1);
}
mkdirSync(screenshots, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'retryproof-snap-files-'));

const failures = [];
function check(condition, what) {
  console.log(`${condition ? 'ok  ' : 'FAIL'} ${what}`);
  if (!condition) failures.push(what);
}

const children = [];
function start(args) {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let errors = '';
  child.stderr.on('data', (chunk) => { errors += chunk; });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ url: line.trim(), child }));
    child.once('exit', (code) => reject(new Error(`retryproof ${args.join(' ')} exited ${code}: ${errors}`)));
  });
}

function snapshot(args) {
  const run = spawnSync(binary, ['ui-snapshot', ...args], { encoding: 'utf8', timeout: 120000, env: { ...process.env, RETRYPROOF_CONTROL_TOKEN: '' } });
  return { status: run.status, out: run.stdout, err: run.stderr };
}

const file = (name, text) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const words = (path) => (existsSync(path) ? readFileSync(path, 'utf8') : '');
const shotTaken = (path) => existsSync(path) && statSync(path).size > 0;

// Claims about traffic the page must never make while it could not read the traffic.
function claimsNothing(text, what) {
  check(!/None: every operation/.test(text), `${what}: not "None: every operation has at most one job"`);
  check(!/no operations yet/.test(text), `${what}: not "no operations yet"`);
  check(!/No verdicts yet|No fault rules/.test(text), `${what}: no verdict or plan claimed`);
  check(!/requests\s+0\b/.test(text), `${what}: no request count of 0`);
}

const TOKEN = 'tok-' + Math.random().toString(36).slice(2);
const tokenFile = file('token', TOKEN + '\n');

async function errors() {
  const png = join(dir, 'error.png');
  const missing = snapshot(['http://127.0.0.1:1', '--token-file', join(dir, 'nope'), '--png', png]);
  check(missing.status === 2 && /--token-file .*nope: cannot be read; write the server's control token on its first line/.test(missing.err),
    `a missing token file: exit 2, named (${missing.status} ${missing.err.trim()})`);
  const empty = snapshot(['http://127.0.0.1:1', '--token-file', file('empty', '\n'), '--png', png]);
  check(empty.status === 2 && /--token-file .*empty is empty: write the server's control token on its first line/.test(empty.err),
    `an empty token file: exit 2, named (${empty.status} ${empty.err.trim()})`);
  const badUrl = snapshot(['127.0.0.1:4040', '--png', png]);
  check(badUrl.status === 2 && /expected a server's address, such as http:\/\/127\.0\.0\.1:4040/.test(badUrl.err),
    `a URL without its scheme: exit 2 (${badUrl.status} ${badUrl.err.trim()})`);
  const noDir = snapshot(['http://127.0.0.1:1', '--png', join(dir, 'no', 'such', 'dir', 'x.png')]);
  check(noDir.status === 2 && /x\.png: /.test(noDir.err), `a PNG that cannot be written: exit 2 (${noDir.status} ${noDir.err.trim()})`);

  // A server gone: its port, once it has exited.
  const gone = await start(['provider', '--port', '0', '--log', 'none']);
  gone.child.kill('SIGTERM');
  await new Promise((resolve) => gone.child.once('exit', resolve));
  const unreachable = snapshot([gone.url, '--token-file', tokenFile, '--png', png]);
  check(unreachable.status === 1 && new RegExp(`${gone.url} is unreachable \\(.*\\): is a retryproof provider or proxy listening there\\?`).test(unreachable.err),
    `a server gone: exit 1, unreachable (${unreachable.status} ${unreachable.err.trim()})`);
  check(!shotTaken(png), 'a server gone: no snapshot of nothing');
}

async function withChromium(proxy) {
  const noChromium = snapshot([proxy, '--token-file', tokenFile, '--png', join(dir, 'x.png'), '--chromium', join(dir, 'no-chromium')]);
  check(noChromium.status === 1 && /no Chromium at .*no-chromium: install Debian's \(apt-get install chromium\), or name another with --chromium PATH/.test(noChromium.err),
    `no Chromium: exit 1, named, with the fix (${noChromium.status} ${noChromium.err.trim()})`);

  const cases = [
    { name: 'no-token', args: [], unknown: 'unknown: the control token is missing', said: /the control token is missing: send Authorization: Bearer <control token>.*\(give the token with --token-file FILE\)/ },
    { name: 'wrong-token', args: ['--token-file', file('wrong', 'not-the-token\n')], unknown: 'unknown: wrong token', said: /the control token is wrong: it is not the one this server was started with/ },
  ];
  for (const c of cases) {
    const png = join(screenshots, `snapshot-${c.name}.png`);
    const txt = join(dir, `${c.name}.txt`);
    const shot = snapshot([proxy, ...c.args, '--png', png, '--dump-text', txt]);
    const text = words(txt);
    check(shot.status === 1 && c.said.test(shot.err) && /shows what it could not read as unknown/.test(shot.err),
      `${c.name}: exit 1 saying why (${shot.status} ${shot.err.trim()})`);
    check(shotTaken(png), `${c.name}: the snapshot is written, showing it`);
    check((text.match(new RegExp(c.unknown, 'g')) || []).length >= 5, `${c.name}: "${c.unknown}" where the rates, duplicates, verdicts, plan and operations would be`);
    claimsNothing(text, c.name);
  }

  const png = join(screenshots, 'snapshot-token.png');
  const txt = join(dir, 'token.txt');
  const shot = snapshot([proxy, '--token-file', tokenFile, '--png', png, '--dump-text', txt]);
  const text = words(txt);
  check(shot.status === 0 && shotTaken(png), `with the token: exit 0 and a snapshot (${shot.status} ${shot.err.trim()})`);
  check(/operation o-7 2 jobs: a duplicated effect/.test(text), 'with the token: the duplicate behind the proxy, o-7 with 2 jobs');
  check(/fail no-duplicate-effect/.test(text), 'with the token: the failing verdict');
  check(/requests\s+2\b/.test(text), 'with the token: the real request count, 2');
  check(!/unknown:/.test(text), 'with the token: nothing unknown');
  check(![shot.out, shot.err, text].some((said) => said.includes(TOKEN)), 'the token is in no output and not on the page');
}

try {
  await errors();
  if (existsSync(CHROMIUM)) {
    const provider = await start(['provider', '--port', '0', '--log', 'none']);
    const proxy = await start(['proxy', '--upstream', provider.url, '--port', '0', '--operation-field', 'orderId', '--control-token-file', tokenFile]);
    for (const key of ['k1', 'k2']) {  // two keys for one order: two jobs
      const answer = await fetch(proxy.url + '/jobs', { method: 'POST', headers: { 'Idempotency-Key': key }, body: JSON.stringify({ orderId: 'o-7', amount: 5 }) });
      check(answer.status === 201, `a create for o-7 through the proxy under key ${key}: 201`);
    }
    await withChromium(proxy.url);
  }
} catch (problem) {
  failures.push(problem.stack || String(problem));
  console.error(problem.stack || String(problem));
} finally {
  for (const child of children) child.kill('SIGTERM');
}
if (failures.length) {
  console.error(`${failures.length} check(s) failed:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
if (!existsSync(CHROMIUM)) {
  console.log(`skipped the snapshots: ${CHROMIUM} is not installed (scripts/setup.sh installs Debian's chromium)`);
  process.exit(77);
}
console.log(`every check held; snapshots in ${screenshots}`);
