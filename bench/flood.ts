/**
 * A flood of large bodies (issue 11, item 1): `wrk -t1 -c8` POSTs 1 MB bodies to the echo endpoint
 * (its history entries are the heaviest: the body twice, request and answer) for DURATION seconds,
 * on SQLite in a temporary directory. Prints the server's peak RSS, the requests answered, the
 * history entries written, dropped from the queue and trimmed by the per-endpoint cap (from the
 * writer's shutdown line), the exit code and the database's size on disk.
 *
 * Targets: RSS under 1 GB, the process alive to the end, every answered request written or counted
 * as dropped, the database within HISTORY_MAX_BYTES (plus the WAL).
 *
 *   npm run bench:flood            (DURATION=60; needs wrk: apt-get install -y wrk)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mockingbirdServe, startServer } from './servers.js';

const DURATION = Number(process.env['DURATION'] ?? 60);
const BODY_BYTES = 1_000_000;
const CONNECTIONS = 8;
const MB = 1024 * 1024;

function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 };
}

function sizeOf(dir: string): number {
  return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

const mb = (n: number) => `${(n / MB).toFixed(0)} MB`;

async function main(): Promise<void> {
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

await main();
