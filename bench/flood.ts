/**
 * Floods that must not take the service down, each against a fresh server on SQLite in a temporary
 * directory (PHASES picks them, comma-separated; all by default):
 *
 * - `bodies` (issue 11, item 1): `wrk -t1 -c8` POSTs 1 MB bodies to the echo endpoint (its history
 *   entries are the heaviest: the body twice, request and answer) for DURATION seconds. Prints the
 *   server's peak RSS, the requests answered, the history entries written, dropped from the queue and
 *   trimmed by the per-endpoint cap (from the writer's shutdown line), the exit code and the database's
 *   size on disk. Targets: RSS under 1 GB, the process alive to the end, every answered request written
 *   or counted as dropped, the database within HISTORY_MAX_BYTES (plus the WAL).
 * - `crud` (issue 30, item 1): a CRUD collection filled to CRUD_MAX_TOTAL_BYTES (64 MiB) with
 *   unauthenticated POSTs, then CRUD_READERS (96) connections that GET `…/items?limit=100` and never
 *   read, held HOLD seconds.
 * - `sse` (issue 30, item 4): SSE_READERS (500) event streams of one key that never read, while
 *   request.created events of ~4 KiB each come from BURST seconds of requests to the endpoint.
 *
 * For `crud` and `sse`: how the readers were answered, the server's peak RSS and its RSS once they
 * are gone, and the worst latency of an echo request sent every 100 ms from 127.0.0.2 meanwhile.
 *
 *   npm run bench:flood            (DURATION=60; the bodies phase needs wrk: apt-get install -y wrk)
 *   PHASES=crud,sse npm run bench:flood
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { prober, rssOf, rssSampler, stalledReaders } from './readers.js';
import { mockingbirdServe, startServer } from './servers.js';

const DURATION = Number(process.env['DURATION'] ?? 60);
const BODY_BYTES = 1_000_000;
const CONNECTIONS = 8;
const MB = 1024 * 1024;

function sizeOf(dir: string): number {
  return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

const mb = (n: number) => `${(n / MB).toFixed(0)} MB`;

async function bodies(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mb-flood-'));
  const log = join(dir, 'server.log');
  const data = join(dir, 'data');
  const script = join(dir, 'post.lua');
  writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.body = string.rep("a", ${BODY_BYTES})\n` +
      `wrk.headers["Content-Type"] = "application/octet-stream"\n`,
  );
  const serve = mockingbirdServe(data);
  const { child, port } = await startServer(serve.args, serve.env, log);
  const pid = child.pid!;
  let exited: number | null | undefined;
  child.on('exit', (code) => (exited = code));
  let peakSampled = 0;
  const sampler = setInterval(() => {
    if (exited === undefined) peakSampled = Math.max(peakSampled, rssOf(pid).rss);
  }, 200);

  console.log(`flood: ${CONNECTIONS} connections POSTing ${BODY_BYTES} bytes for ${DURATION} s…`);
  const { stdout } = await promisify(execFile)(
    'wrk',
    ['-t1', `-c${CONNECTIONS}`, `-d${DURATION}s`, '-s', script, `http://127.0.0.1:${port}/e/echo/flood`],
    { encoding: 'utf8' },
  );
  clearInterval(sampler);
  const alive = exited === undefined;
  const peak = alive ? rssOf(pid).peak : peakSampled;
  const total = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  const errors = /Socket errors: (.*)/.exec(stdout)?.[1] ?? 'none';

  child.kill('SIGTERM');
  const code = await new Promise<number | null>((r) =>
    exited !== undefined ? r(exited) : child.on('exit', (c) => r(c)),
  );
  const lines = readFileSync(log, 'utf8').split('\n');
  const stopped = lines
    .filter((l) => l.includes('history writer stopped'))
    .map((l) => JSON.parse(l) as Record<string, number>)[0];
  const dropLines = lines.filter((l) => l.includes('history queue full')).length;
  const dbBytes = sizeOf(data);

  console.log(`
  peak RSS                 ${mb(peak)}   (target < 1024 MB)
  process alive at the end ${alive ? 'yes' : 'NO'}; exit code after SIGTERM ${code}
  requests answered        ${total} (${non2xx} not 2xx; socket errors: ${errors})
  history written          ${stopped?.['written'] ?? '?'}
  history dropped (queue)  ${stopped?.['dropped'] ?? '?'}  (${dropLines} log lines)
  history trimmed (cap)    ${stopped?.['trimmed'] ?? '?'}
  written + dropped        ${(stopped?.['written'] ?? 0) + (stopped?.['dropped'] ?? 0)}  (wrk counts ${total}; up to ${CONNECTIONS} in flight at its end are not in its count)
  database on disk         ${mb(dbBytes)}  (HISTORY_MAX_BYTES 256 MB, plus the WAL)`);
  rmSync(dir, { recursive: true, force: true });
}

const KEY = 'mb_bench_key_not_secret_0123456789abcdef';
const AUTOCANNON = fileURLToPath(new URL('../node_modules/autocannon/autocannon.js', import.meta.url));
const HOLD = Number(process.env['HOLD'] ?? 5);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A fresh server for one phase: its port, pid, an admin API call, and a stop. */
async function server(env: NodeJS.ProcessEnv) {
  const dir = mkdtempSync(join(tmpdir(), 'mb-flood-'));
  const serve = mockingbirdServe(join(dir, 'data'), { LOG_LEVEL: 'warn', ...env });
  const { child, port } = await startServer(serve.args, serve.env, join(dir, 'server.log'));
  const api = async (method: string, path: string, body?: unknown): Promise<number> => {
    const r = await fetch(`http://127.0.0.1:${port}/api/v2${path}`, {
      method,
      headers: { authorization: KEY, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    await r.arrayBuffer();
    return r.status;
  };
  return {
    port,
    pid: child.pid!,
    api,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Opens the readers with `request`, holds them while `during` runs, and prints what it measured. */
async function withReaders(
  name: string,
  s: Awaited<ReturnType<typeof server>>,
  n: number,
  request: string,
  during: () => Promise<string>,
): Promise<void> {
  const before = rssOf(s.pid).rss;
  const sampler = rssSampler(s.pid);
  const probe = prober(s.port, '/e/echo/probe');
  const { readers, statuses } = await stalledReaders(n, s.port, request);
  const what = await during();
  const peak = sampler.stop();
  const p = await probe.stop();
  for (const r of readers) r.socket.destroy();
  await sleep(3000);
  let after = 'gone (the server died)';
  try {
    after = mb(rssOf(s.pid).rss);
  } catch {
    /* no /proc entry: the process is gone */
  }
  console.log(`
${name}: ${n} readers that never read (${statuses})${what}
  RSS                      ${mb(before)} before, peak ${mb(peak)}, ${after} 3 s after the readers left
  echo from 127.0.0.2      worst ${p.worstMs.toFixed(0)} ms over ${p.n} requests, ${p.failed} not 200`);
}

async function crudReaders(): Promise<void> {
  const n = Number(process.env['CRUD_READERS'] ?? 96);
  const s = await server({ MAX_CONNECTIONS_PER_IP: String(n + 64) });
  try {
    await s.api('POST', '/endpoints', { name: 'hoard' });
    await s.api('POST', '/endpoints/hoard/rules', {
      conditions: [{ type: 'path', operator: 'starts_with', value: '/items' }],
      action: { type: 'crud' },
    });
    // Items just under BODY_LIMIT, until the endpoint's CRUD_MAX_TOTAL_BYTES refuses one more.
    let items = 0;
    for (;;) {
      const r = await fetch(`http://127.0.0.1:${s.port}/e/hoard/items`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pad: 'x'.repeat(1_040_000) }),
      });
      await r.arrayBuffer();
      if (r.status !== 201) break;
      items++;
    }
    await withReaders('crud', s, n, 'GET /e/hoard/items?limit=100 HTTP/1.1\r\nHost: x\r\n\r\n', async () => {
      await sleep(HOLD * 1000);
      return `; ${items} items of 1 MB, held ${HOLD} s`;
    });
  } finally {
    await s.stop();
  }
}

async function sseReaders(): Promise<void> {
  const n = Number(process.env['SSE_READERS'] ?? 500);
  const burst = Number(process.env['BURST'] ?? 5);
  const s = await server({ SSE_MAX_STREAMS_PER_KEY: String(n), MAX_CONNECTIONS_PER_IP: String(n + 64) });
  try {
    await s.api('POST', '/endpoints', { name: 'bench' });
    await withReaders(
      'sse',
      s,
      n,
      `GET /api/v2/endpoints/bench/events HTTP/1.1\r\nHost: x\r\nAuthorization: ${KEY}\r\n\r\n`,
      async () => {
        // Each request's request.created (its ~4 KiB path in it) goes to every stream. The load comes
        // from a process of its own, so that the probe's latency is the server's, not this process's.
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [
            AUTOCANNON,
            '-j',
            '-c',
            '8',
            '-d',
            String(burst),
            `http://127.0.0.1:${s.port}/e/bench/${'x'.repeat(4000)}`,
          ],
          { encoding: 'utf8', maxBuffer: 16 * MB },
        );
        const total = (JSON.parse(stdout) as { requests: { total: number } }).requests.total;
        return `; ${total} requests in ${burst} s, each a ~4 KiB request.created to every stream`;
      },
    );
  } finally {
    await s.stop();
  }
}

const PHASES: Record<string, () => Promise<void>> = { bodies, crud: crudReaders, sse: sseReaders };
for (const phase of (process.env['PHASES'] ?? 'bodies,crud,sse').split(',').map((p) => p.trim())) {
  const run = PHASES[phase];
  if (!run) throw new Error(`PHASES: unknown phase "${phase}" (${Object.keys(PHASES).join(', ')})`);
  try {
    await run();
  } catch (err) {
    // A server that dies under the flood (the build before issue 30 did: `Reached heap limit`).
    console.log(`\n${phase}: FAILED (${(err as Error).message}); the server's stderr is above`);
  }
}
