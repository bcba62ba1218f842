/**
 * The servers the echo benchmarks compare: a bare `node:http` echo (the baseline) and Mockingbird's
 * built CLI, each started as its own process with its log in a file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The baseline: the same echo fields, computed by hand with node:http and nothing else. */
export const BARE_ECHO = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const headers = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers[req.rawHeaders[i].toLowerCase()] = req.rawHeaders[i + 1];
    const q = req.url.indexOf('?');
    const query = {};
    if (q !== -1) for (const [k, v] of new URLSearchParams(req.url.slice(q + 1))) query[k] = v;
    const body = JSON.stringify({ method: req.method, protocol: 'http', host: headers.host, path: req.url,
      ip: req.socket.remoteAddress, headers, parsedQueryParams: query });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' });
    res.end(body);
  });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
`;

/** The URL path both servers are loaded with: an echo request with a query string. */
export const ECHO_PATH = '/e/echo/bench/items?page=2&sort=name';

/** Arguments and environment that start Mockingbird (dist/) on SQLite in `dataDir`, on a free port. */
export function mockingbirdServe(
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
): { args: string[]; env: NodeJS.ProcessEnv } {
  return {
    // MB_DIST: another build's folder (beside dist/), to compare two builds with the same bench.
    args: [
      fileURLToPath(new URL(`../${process.env['MB_DIST'] ?? 'dist'}/cli.js`, import.meta.url)),
      'serve',
      '--port',
      '0',
    ],
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      ECHO_RATE_LIMIT: '10000000',
      LOG_LEVEL: 'info',
      DATABASE_URL: '',
      MOCKINGBIRD_API_KEY: 'mb_bench_key_not_secret_0123456789abcdef',
      ...env,
    },
  };
}

const children: ChildProcess[] = [];
// Never leave a server behind, whatever happens to the benchmark.
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

/**
 * Starts `node <args>` (behind `wrapper`, e.g. valgrind, when given) with stdout in `logFile`, as a
 * production log would be, and waits for the listening line there. Piping the log into the
 * benchmark's process would make the load generator share its core with it.
 */
export async function startServer(
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  opts: { wrapper?: string[]; timeoutMs?: number } = {},
): Promise<{ child: ChildProcess; port: number }> {
  const fd = openSync(logFile, 'w');
  const [cmd, ...prefix] = opts.wrapper ?? [process.execPath];
  const argv = opts.wrapper ? [...prefix, process.execPath, ...args] : args;
  const child = spawn(cmd!, argv, { env, stdio: ['ignore', fd, 'inherit'] });
  children.push(child);
  let exited: number | null | undefined;
  child.on('exit', (code) => (exited = code));
  for (let waited = 0; waited < (opts.timeoutMs ?? 30_000); waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    const m = /listening on https?:\/\/[^:]+:(\d+)/.exec(readFileSync(logFile, 'utf8'));
    if (m) return { child, port: Number(m[1]) };
    if (exited !== undefined) break;
  }
  throw new Error(`server did not start: ${readFileSync(logFile, 'utf8')}`);
}
