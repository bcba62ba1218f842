/**
 * OpenAPI documents as users have them (issue 35), against the built CLI (dist/, SQLite in a temp dir,
 * history and the request log on): for each document of the corpus (test/fixtures/openapi), the time
 * from its upload to its job COMPLETED, the server's resident memory after it (all documents so far
 * stay uploaded, one endpoint each), and the answers a second of one of its operations (the first GET
 * with a 2xx response; `wrk -t1 -c50`, bench/wrk.ts). Then the stall: a 3 MB document
 * (test/oas/big-spec.ts) uploaded while wrk loads the echo endpoint, and a probe asks the echo once
 * every 10 ms: the slowest probe answer during the upload, beside the slowest without one.
 * Against Prism (`prism mock`, the same operation, after ours) when a `prism` binary is on PATH or
 * in node_modules/.bin; else it says "Prism not found".
 *
 *   npm run bench:openapi          (DURATION=5 seconds of wrk a document; about 3 minutes)
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDocument } from '../src/oas/document.js';
import { isObject } from '../src/oas/refs.js';
import { bigSpec } from '../test/oas/big-spec.js';
import { api, BENCH_KEY, uploadSpec } from './api.js';
import { ECHO_PATH, mockingbirdServe, startServer } from './servers.js';
import { requireWrk, wrk } from './wrk.js';

const DURATION = Number(process.env['DURATION'] ?? 5);
const FIXTURES = fileURLToPath(new URL('../test/fixtures/openapi/', import.meta.url));

requireWrk();

/** Uploads `text` to `endpoint` and waits for its job; answers the milliseconds it took. */
async function upload(port: number, endpoint: string, text: string): Promise<number> {
  const t0 = performance.now();
  const type = text.trimStart().startsWith('{') ? 'application/json' : 'application/yaml';
  await uploadSpec(port, endpoint, text, type);
  return performance.now() - t0;
}

/**
 * The first GET operation with a 2xx response, as a request path (parameters a plain word;
 * `/#Action=X` as `/?Action=X`).
 */
function operationOf(text: string): string | undefined {
  const doc = readDocument(text);
  const paths = isObject(doc['paths']) ? doc['paths'] : {};
  for (const [path, item] of Object.entries(paths)) {
    const get = isObject(item) ? item['get'] : undefined;
    if (!isObject(get) || !isObject(get['responses'])) continue;
    if (Object.keys(get['responses']).some((c) => c.startsWith('2')))
      return path.replace(/\{[^}]+\}/g, 'x1').replace('#', '?');
  }
  return undefined;
}

/** Resident memory of process `pid`, in MiB (Linux /proc). */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Asks the echo every 10 ms until `until` settles; the slowest answer in ms. */
async function probe(port: number, until: Promise<unknown>): Promise<number> {
  let done = false;
  void until.finally(() => (done = true));
  let worst = 0;
  while (!done) {
    const t = performance.now();
    await (await fetch(`http://127.0.0.1:${port}${ECHO_PATH}`)).arrayBuffer();
    worst = Math.max(worst, performance.now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
  return worst;
}

/** wrk against the echo for `seconds`, in the background: its end, and a way to stop it sooner. */
function loadEcho(port: number, seconds: number): { done: Promise<void>; stop: () => void } {
  const c = spawn('wrk', ['-t1', '-c10', `-d${seconds}s`, `http://127.0.0.1:${port}${ECHO_PATH}`], {
    stdio: 'ignore',
  });
  const done = new Promise<void>((resolve) => c.on('exit', () => resolve()));
  return { done, stop: () => void c.kill('SIGTERM') };
}

/** `prism mock <file>` on `port`, loaded like ours on `op`; answers its requests a second. */
async function prismRps(prism: string, file: string, op: string, port: number): Promise<number> {
  const c = spawn(prism, ['mock', '--port', String(port), '--host', '127.0.0.1', file], { stdio: 'ignore' });
  try {
    for (let i = 0; i < 300; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const up = await fetch(`http://127.0.0.1:${port}${op}`).then(
        () => true,
        () => false,
      );
      if (up) return wrk(`http://127.0.0.1:${port}${op}`, DURATION).rps;
    }
    return NaN;
  } finally {
    c.kill('SIGTERM');
  }
}

function findPrism(): string | undefined {
  const local = fileURLToPath(new URL('../node_modules/.bin/prism', import.meta.url));
  if (existsSync(local)) return local;
  try {
    return execFileSync('sh', ['-c', 'command -v prism'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const files = readdirSync(FIXTURES)
  .filter((f) => /\.(ya?ml|json)$/.test(f))
  .sort();
const dataDir = mkdtempSync(join(tmpdir(), 'mb-bench-'));
const logDir = mkdtempSync(join(tmpdir(), 'mb-bench-logs-'));
const serve = mockingbirdServe(dataDir, { MOCKINGBIRD_API_KEY: BENCH_KEY });
const mb = await startServer(serve.args, serve.env, join(logDir, 'mockingbird.log'));
const rows: string[] = [];
const pad = (s: string | number, n: number): string => String(s).padStart(n);
try {
  console.log(
    `${'document'.padEnd(44)} ${pad('bytes', 9)} ${pad('upload ms', 9)} ${pad('RSS MiB', 8)} ${pad('req/s', 7)}  operation`,
  );
  let i = 0;
  for (const f of files) {
    const text = readFileSync(join(FIXTURES, f), 'utf8');
    const ep = `bench-${i++}`;
    await api(mb.port, 'POST', '/endpoints', { name: ep });
    const ms = await upload(mb.port, ep, text);
    const rss = rssMiB(mb.child.pid!);
    const op = operationOf(text);
    const load = op ? wrk(`http://127.0.0.1:${mb.port}/e/${ep}${op}`, DURATION) : undefined;
    const rps = load ? load.rps : NaN;
    const row = `${f.padEnd(44)} ${pad(Buffer.byteLength(text), 9)} ${pad(ms.toFixed(0), 9)} ${pad(rss.toFixed(0), 8)} ${pad(Number.isNaN(rps) ? '-' : rps.toFixed(0), 7)}  ${op ? `GET ${op}` : '(no GET operation)'}${load?.errors ? ` (${load.errors} errors or non-2xx)` : ''}`;
    rows.push(row);
    console.log(row);
  }

  // The stall: the slowest echo answer while wrk loads the echo, without and with a 3 MB upload.
  await api(mb.port, 'POST', '/endpoints', { name: 'stall' });
  const big = JSON.stringify(bigSpec(2400));
  const quiet = loadEcho(mb.port, 4);
  const without = await probe(mb.port, new Promise((r) => setTimeout(r, 3000)));
  await quiet.done;
  const stalls: number[] = [];
  for (let round = 0; round < 3; round++) {
    const loaded = loadEcho(mb.port, 30);
    await new Promise((r) => setTimeout(r, 500));
    const up = upload(mb.port, 'stall', big);
    stalls.push(await probe(mb.port, up));
    await up;
    loaded.stop();
    await loaded.done;
  }
  console.log(
    `\nstall: a ${(Buffer.byteLength(big) / 1e6).toFixed(1)} MB document uploaded while wrk (-c10) loads the echo: ` +
      `slowest echo probe ${stalls.map((s) => s.toFixed(0)).join(' / ')} ms (3 uploads); without an upload ${without.toFixed(0)} ms`,
  );
} finally {
  mb.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(logDir, { recursive: true, force: true });
}

const prism = findPrism();
if (!prism)
  console.log('\nPrism not found (neither on PATH nor in node_modules/.bin): only Mockingbird measured.');
else {
  console.log(`\nPrism (${prism}), the same operations:`);
  for (const f of files) {
    const op = operationOf(readFileSync(join(FIXTURES, f), 'utf8'));
    if (!op) continue;
    const rps = await prismRps(prism, join(FIXTURES, f), op, 4010);
    console.log(`${f.padEnd(44)} ${pad(Number.isNaN(rps) ? '-' : rps.toFixed(0), 7)} req/s  GET ${op}`);
  }
}
