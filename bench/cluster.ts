/**
 * bench:cluster, one run, `wrk -t1 -c50` on loopback (bench/wrk.ts), the built CLI (dist/):
 *
 * 1. The cost of coordination: the same instance on PostgreSQL (a fresh database each) with REDIS_URL
 *    unset and set (a redis-server of the bench's own), both running, loaded in turn ROUNDS times on the
 *    echo and on the templated rule (bench/templated-rule.ts). Prints the medians and the ratios set/unset;
 *    target >= 0.8 each.
 * 2. Two instances with REDIS_URL on one fresh database, behind bench/balancer.ts (round robin, one
 *    instance per connection): wrk through it on the echo and the templated rule. Every request answered
 *    (no socket error, no non-2xx), and every answer recorded once: the history's count (through the API,
 *    once both instances' queues are empty) lies between the requests wrk completed and those it sent
 *    (wrk stops with up to 50 requests sent and unread; the instances answer and record those too), and
 *    equals the requests sent.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:cluster
 *     (needs wrk and redis-server; ROUNDS=3 DURATION=8)
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startRedisServer } from '../test/helpers/redis-server.js';
import { ECHO_PATH, mockingbirdServe, startServer } from './servers.js';
import { TEMPLATED_PATH, TEMPLATED_RULE } from './templated-rule.js';
import { median, parseWrk, requireWrk, wrk, type Load } from './wrk.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const DURATION = Number(process.env['DURATION'] ?? 8);
const KEY = 'mb_bench_key_not_secret_0123456789abcdef';
const BASE = process.env['DATABASE_URL'];
const TARGET = 0.8;

requireWrk();
if (!BASE) {
  console.error('DATABASE_URL is not set: bench:cluster needs a PostgreSQL server to make databases on');
  process.exit(2);
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: BASE });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

type Health = { history: { queued: number; dropped: number } };

const databases: string[] = [];
/** A fresh database on DATABASE_URL's server, dropped at the end. */
async function freshDatabase(): Promise<string> {
  const name = 'mb_bench_' + randomBytes(6).toString('hex');
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  databases.push(name);
  const u = new URL(BASE!);
  u.pathname = '/' + name;
  return u.toString();
}

async function api(port: number, method: string, path: string, body?: unknown): Promise<unknown> {
  // wrk runs synchronously (execFileSync) and holds this process's event loop: a kept-alive connection
  // the server closed meanwhile looks open to the pool, and a GET on it is tried once more.
  const send = () =>
    fetch(`http://127.0.0.1:${port}/api/v2${path}`, {
      method,
      headers: { authorization: KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const r = await send().catch((err: unknown) => {
    if (method === 'GET') return send();
    throw err;
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

const logDir = mkdtempSync(join(tmpdir(), 'mb-bench-cluster-'));
const children: ChildProcess[] = [];

/** SIGTERM, and SIGKILL after 15 s: the databases are dropped once no instance uses them. */
async function stopAll(): Promise<void> {
  await Promise.all(
    children.map(async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((resolve) => c.once('exit', resolve));
      c.kill('SIGTERM');
      const timer = setTimeout(() => c.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** An instance of the built CLI on `databaseUrl`, with REDIS_URL when given. */
async function instance(name: string, databaseUrl: string, redisUrl?: string): Promise<number> {
  const serve = mockingbirdServe(join(logDir, `data-${name}`), {
    MOCKINGBIRD_API_KEY: KEY,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl ?? '',
    // Every answer of the bench stays in the history, to be counted.
    HISTORY_MAX_ENTRIES: '100000000',
    HISTORY_MAX_BYTES: String(2 ** 40),
  });
  const s = await startServer(serve.args, serve.env, join(logDir, `${name}.log`));
  children.push(s.child);
  return s.port;
}

async function setUp(port: number): Promise<void> {
  await api(port, 'POST', '/endpoints', { name: 'bench' });
  await api(port, 'POST', '/endpoints/bench/rules', TEMPLATED_RULE);
}

const redis = await startRedisServer();
try {
  // ---- 1. REDIS_URL unset against set, one instance each ----
  const unset = await instance('unset', await freshDatabase());
  const set = await instance('set', await freshDatabase(), redis.url);
  await setUp(unset);
  await setUp(set);
  const targets = {
    'echo, REDIS_URL unset': `http://127.0.0.1:${unset}${ECHO_PATH}`,
    'echo, REDIS_URL set': `http://127.0.0.1:${set}${ECHO_PATH}`,
    'templated rule, REDIS_URL unset': `http://127.0.0.1:${unset}/e/bench${TEMPLATED_PATH}`,
    'templated rule, REDIS_URL set': `http://127.0.0.1:${set}/e/bench${TEMPLATED_PATH}`,
  };
  type Name = keyof typeof targets;
  const results = Object.fromEntries(Object.keys(targets).map((k) => [k, [] as Load[]])) as Record<
    Name,
    Load[]
  >;
  for (const url of Object.values(targets)) wrk(url, 2);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, url] of Object.entries(targets) as [Name, string][]) {
      const r = wrk(url, DURATION);
      if (r.errors > 0)
        throw new Error(`${name}: ${r.errors} errors or non-2xx answers (${r.timeouts} unanswered in 2 s)`);
      results[name].push(r);
      console.log(
        `round ${round + 1} ${name.padEnd(32)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${r.p99.toFixed(2)} ms`,
      );
    }
  }
  const rps = (name: Name): number => median(results[name].map((r) => r.rps));
  console.log(`\nmedians of ${ROUNDS} rounds, wrk -t1 -c50 -d${DURATION}s, PostgreSQL, history and log on:`);
  for (const name of Object.keys(targets) as Name[])
    console.log(`${name.padEnd(32)} ${rps(name).toFixed(0).padStart(7)} req/s`);
  for (const what of ['echo', 'templated rule'] as const) {
    const ratio = rps(`${what}, REDIS_URL set`) / rps(`${what}, REDIS_URL unset`);
    console.log(
      `${(what + ': set / unset').padEnd(32)} ${ratio.toFixed(2)}  (target >= ${TARGET}) ${ratio >= TARGET ? 'PASS' : 'FAIL'}`,
    );
  }

  // ---- 2. Two instances behind the round-robin balancer ----
  const shared = await freshDatabase();
  const a = await instance('a', shared, redis.url);
  const b = await instance('b', shared, redis.url);
  await setUp(a);
  const balancer = await startServer(
    ['--import', 'tsx', fileURLToPath(new URL('./balancer.ts', import.meta.url)), String(a), String(b)],
    process.env,
    join(logDir, 'balancer.log'),
  );
  children.push(balancer.child);
  const lua = join(logDir, 'count-sent.lua');
  writeFileSync(
    lua,
    `local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) sent = 0; req = wrk.format(nil, wrk.path) end
function request() sent = sent + 1; return req end
function done(summary, latency, requests)
  local n = 0
  for _, t in ipairs(threads) do n = n + t:get("sent") end
  io.write(string.format("sent %d\\n", n))
end
`,
  );
  const through = `http://127.0.0.1:${balancer.port}`;
  console.log(
    `\ntwo instances (REDIS_URL set, one database) behind bench/balancer.ts, wrk -t1 -c50 -d${DURATION}s:`,
  );
  /**
   * The endpoint's history count through the API, once both instances have written their queues: no
   * entry queued, and the count the same twice 300 ms apart (`queued` leaves out the batch being written).
   */
  const recordedOf = async (endpoint: string): Promise<number> => {
    const count = async (): Promise<number> => {
      const list = (await api(a, 'GET', '/endpoints')) as { data: { name: string; requestCount: number }[] };
      return list.data.find((e) => e.name === endpoint)?.requestCount ?? 0;
    };
    let last = -1;
    for (let i = 0; i < 200; i++) {
      const queued = await Promise.all(
        [a, b].map(async (port) => ((await api(port, 'GET', '/health')) as Health).history.queued),
      );
      const now = await count();
      if (queued.every((q) => q === 0) && now === last) return now;
      last = now;
      await new Promise((r) => setTimeout(r, 300));
    }
    return count();
  };
  const cases = [
    ['echo', 'echo', ECHO_PATH],
    ['templated rule', 'bench', `/e/bench${TEMPLATED_PATH}`],
  ] as const;
  for (const [, , path] of cases) wrk(through + path, 2);
  let ok = true;
  for (const [what, endpoint, path] of cases) {
    const before = await recordedOf(endpoint);
    const out = execFileSync(
      'wrk',
      ['-t1', '-c50', `-d${DURATION}s`, '--latency', '-s', lua, through + path],
      {
        encoding: 'utf8',
      },
    );
    const load = parseWrk(out);
    // wrk calls request() once more than it sends a request, checking the request before the run (one
    // extra call a run, measured against a server that counts what it receives).
    const sent = Number(/sent (\d+)/.exec(out)?.[1] ?? NaN) - 1;
    const recorded = (await recordedOf(endpoint)) - before;
    const dropped = await Promise.all(
      [a, b].map(async (port) => ((await api(port, 'GET', '/health')) as Health).history.dropped),
    );
    const answered = load.errors === 0;
    const once = recorded === sent && recorded >= load.requests;
    ok &&= answered && once;
    console.log(
      `${what.padEnd(16)} ${load.rps.toFixed(0).padStart(7)} req/s  completed ${load.requests}, sent ${sent}, ` +
        `errors and non-2xx ${load.errors} ${answered ? 'PASS' : 'FAIL'}; recorded ${recorded} ` +
        `(dropped ${dropped.join(' + ')}) ${once ? 'PASS' : 'FAIL'}`,
    );
  }
  console.log(ok ? '\nevery request answered and recorded once: PASS' : '\nFAIL');
} finally {
  await stopAll();
  await redis.stop();
  for (const name of databases) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  rmSync(logDir, { recursive: true, force: true });
}
process.exit(0);
