/**
 * Cost in instructions: runs the bare node:http echo, Mockingbird's echo (history recording on; once
 * with the request log line, once without) and a templated rule (`GET /users/:id`, as in
 * bench:templates: match + Handlebars + faker + history + log line) under valgrind's callgrind, and
 * counts the CPU instructions each executes per request: on the main thread, and on the other threads
 * (Mockingbird's history worker, V8's compiler and GC threads). Unlike req/s on a shared two-core
 * machine, this count hardly moves with the machine's load, so it shows where a change of a few
 * percent went. It does not see time spent in the kernel (socket writes), which is about the same
 * for all servers.
 *
 *   npm run bench:echo-instructions        (needs valgrind; REPEATS=3 WARMUP=6000 REQUESTS=3000;
 *                                            KEEP=1 keeps the dumps for callgrind_annotate)
 *
 * The load comes from 10 kept-alive connections (an undici Pool, as wrk and real load generators
 * use them): the connections are opened during the warm-up, and the counted requests open none (the
 * bench checks it), so the accept and socket set-up are not counted. Each server is warmed up with
 * WARMUP requests (so that V8 has optimised the hot code), then the counters are zeroed and REQUESTS
 * more are counted. Each case runs REPEATS times, each in a new process, and the median is printed:
 * the spread between runs comes from V8's background compilation, whose timing valgrind changes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { BARE_ECHO, ECHO_PATH, mockingbirdServe, startServer } from './servers.js';
import { TEMPLATED_PATH, TEMPLATED_RULE } from './templated-rule.js';

const WARMUP = Number(process.env['WARMUP'] ?? 6000);
const REQUESTS = Number(process.env['REQUESTS'] ?? 3000);
const REPEATS = Number(process.env['REPEATS'] ?? 3);
/** How many cases run under valgrind at once (each valgrind runs its threads one at a time). */
const PARALLEL = Number(process.env['PARALLEL'] ?? 2);
const CONNECTIONS = 10;
const KEY = 'mb_bench_key_not_secret_0123456789abcdef';

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind is not installed (Debian: apt-get install valgrind)');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'mb-bench-instr-'));

interface Count {
  main: number;
  others: number;
  /** Each other thread's count, largest first (the history worker is usually the first). */
  threads: number[];
}

/**
 * Sends `amount` GET requests over the pool's CONNECTIONS connections, CONNECTIONS at a time, and
 * returns how many connections were opened meanwhile. Any non-2xx answer fails the bench.
 */
async function load(pool: Pool, path: string, amount: number, opened: { n: number }): Promise<number> {
  const before = opened.n;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < amount) {
      next++;
      const r = await pool.request({ method: 'GET', path });
      await r.body.dump();
      if (r.statusCode < 200 || r.statusCode > 299) throw new Error(`${path}: status ${r.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return opened.n - before;
}

/** Per-request instructions of the main thread and of the others, from callgrind's per-thread dumps. */
async function readDump(name: string): Promise<Count> {
  for (let waited = 0; waited < 120_000; waited += 250) {
    // --separate-threads=yes: one file per thread, `<out>.1-01` (the main thread), `<out>.1-02`, …
    const files = readdirSync(dir).filter((f) => f.startsWith(`${name}.callgrind.1-`));
    const totals = files.map((f) => /^totals:\s+(\d+)/m.exec(readFileSync(join(dir, f), 'utf8'))?.[1]);
    if (files.length > 0 && totals.every((t) => t !== undefined)) {
      let main = 0;
      const threads: number[] = [];
      files.forEach((f, i) => {
        if (f.endsWith('-01')) main += Number(totals[i]);
        else threads.push(Number(totals[i]) / REQUESTS);
      });
      threads.sort((a, b) => b - a);
      return { main: main / REQUESTS, others: threads.reduce((a, b) => a + b, 0), threads };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name}: no callgrind dump`);
}

interface Case {
  label: string;
  args: () => { args: string[]; env: NodeJS.ProcessEnv };
  path: string;
  setup?: (port: number) => Promise<void>;
}

async function measure(c: Case, run: number): Promise<Count> {
  const name = `${c.label.replace(/\W+/g, '-')}-${run}`;
  const out = join(dir, `${name}.callgrind`);
  const { args, env } = c.args();
  const server = await startServer(args, env, join(dir, `${name}.log`), {
    wrapper: [
      'valgrind',
      '--tool=callgrind',
      '--smc-check=all',
      '--separate-threads=yes',
      `--callgrind-out-file=${out}`,
    ],
    timeoutMs: 600_000,
  });
  const opened = { n: 0 };
  const pool = new Pool(`http://127.0.0.1:${server.port}`, {
    connections: CONNECTIONS,
    pipelining: 1,
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
    keepAliveTimeout: 600_000,
    keepAliveMaxTimeout: 600_000,
  });
  pool.on('connect', () => opened.n++);
  try {
    await c.setup?.(server.port);
    await load(pool, c.path, WARMUP, opened);
    const pid = String(server.child.pid);
    execFileSync('callgrind_control', ['--zero', pid], { stdio: 'ignore' });
    const reconnects = await load(pool, c.path, REQUESTS, opened);
    execFileSync('callgrind_control', ['--dump', pid], { stdio: 'ignore' });
    if (reconnects > 0) throw new Error(`${name}: ${reconnects} connections opened while counting`);
    return await readDump(name);
  } finally {
    await pool.destroy();
    server.child.kill('SIGKILL');
  }
}

async function api(port: number, method: string, path: string, body: unknown): Promise<void> {
  const r = await fetch(`http://127.0.0.1:${port}/api/v2${path}`, {
    method,
    headers: { authorization: KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
}

/**
 * Under valgrind a server runs some 50 times slower, and a pause of a few seconds (a collection, a
 * compilation, callgrind_control zeroing the counters) would let its 5 s keep-alive timer close a
 * connection just as the next request is sent on it (ECONNRESET): the servers here keep idle
 * connections for 10 minutes instead. That changes no per-request work.
 */
const PATIENT = {
  KEEP_ALIVE_TIMEOUT: '600000',
  HEADERS_TIMEOUT: '600000',
  REQUEST_TIMEOUT: '600000',
};
const PATIENT_BARE = `${BARE_ECHO}\nserver.keepAliveTimeout = 600000;\nserver.headersTimeout = 600000;\nserver.requestTimeout = 600000;\n`;

let dataDirs = 0;
const CASES: Case[] = [
  {
    label: 'bare node:http echo',
    args: () => ({ args: ['-e', PATIENT_BARE], env: process.env }),
    path: ECHO_PATH,
  },
  {
    label: 'echo, history + log line',
    args: () => mockingbirdServe(join(dir, `data-${dataDirs++}`), { ...PATIENT, MOCKINGBIRD_API_KEY: KEY }),
    path: ECHO_PATH,
  },
  {
    label: 'echo, history, no log line',
    args: () => mockingbirdServe(join(dir, `data-${dataDirs++}`), { ...PATIENT, LOG_LEVEL: 'warn' }),
    path: ECHO_PATH,
  },
  {
    label: 'templated rule, history + log',
    args: () => mockingbirdServe(join(dir, `data-${dataDirs++}`), { ...PATIENT, MOCKINGBIRD_API_KEY: KEY }),
    path: `/e/bench${TEMPLATED_PATH}`,
    setup: async (port) => {
      await api(port, 'POST', '/endpoints', { name: 'bench' });
      await api(port, 'POST', '/endpoints/bench/rules', TEMPLATED_RULE);
    },
  },
];

/** ONLY=<regex>: run the bare echo and the cases whose label matches (the others print as skipped). */
const ONLY = process.env['ONLY'] ? new RegExp(process.env['ONLY'], 'i') : undefined;
const wanted = (c: Case, i: number): boolean => i === 0 || !ONLY || ONLY.test(c.label);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  // Every (case, run) in its own process, PARALLEL at a time: the counts do not depend on how the
  // machine's cores are shared.
  const jobs = CASES.flatMap((c, ci) =>
    wanted(c, ci) ? Array.from({ length: REPEATS }, (_, run) => ({ c, ci, run })) : [],
  );
  const results: Count[][] = CASES.map(() => []);
  let nextJob = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (nextJob < jobs.length) {
        const { c, ci, run } = jobs[nextJob++]!;
        const r = await measure(c, run);
        results[ci]!.push(r);
        console.error(
          `  ${c.label} run ${run + 1}: main ${k(r.main)}, other threads ${k(r.others)} (${r.threads
            .filter((t) => t >= 500)
            .map(k)
            .join(' + ')})`,
        );
      }
    }),
  );
  const summary = results.map((rs) => {
    const all = median(rs.map((r) => r.main + r.others));
    return { all, main: median(rs.map((r) => r.main)), others: median(rs.map((r) => r.others)), rs };
  });
  const bare = summary[0]!;
  console.log(
    `\ninstructions per request, median of ${REPEATS} runs (${REQUESTS} requests counted after ${WARMUP} to warm up, ${CONNECTIONS} kept-alive connections):`,
  );
  console.log(
    `${''.padEnd(32)} ${'all threads'.padStart(20)} ${'main thread'.padStart(20)} ${'other threads'.padStart(14)}`,
  );
  CASES.forEach((c, i) => {
    const s = summary[i]!;
    if (s.rs.length === 0) return console.log(`${c.label.padEnd(32)} skipped (ONLY)`);
    const x = (n: number, b: number): string => (i === 0 ? '' : ` (${(n / b).toFixed(2)} x)`);
    console.log(
      `${c.label.padEnd(32)} ${(k(s.all) + x(s.all, bare.all)).padStart(20)} ${(k(s.main) + x(s.main, bare.main)).padStart(20)} ${k(s.others).padStart(14)}`,
    );
  });
  const [, echo, quiet, rule] = summary as [typeof bare, typeof bare, typeof bare, typeof bare];
  if (echo.rs.length > 0 && quiet.rs.length > 0)
    console.log(`\nthe request log line (echo with it minus without): ${k(echo.all - quiet.all)}`);
  console.log('against the bare echo (all threads against all threads, main thread against main thread):');
  const check = (what: string, ratio: number, target: number): void =>
    void (
      Number.isNaN(ratio) ||
      console.log(
        `  ${what.padEnd(44)} ${ratio.toFixed(2)} x  (target <= ${target.toFixed(1)}) ${ratio <= target ? 'PASS' : 'FAIL'}`,
      )
    );
  check('echo, history + log, all threads', echo.all / bare.all, 3);
  check('echo, history + log, main thread', echo.main / bare.main, 2);
  check('templated rule, all threads', rule.all / bare.all, 4);
} finally {
  // KEEP=1: the callgrind dumps stay, for `callgrind_annotate <dump>.1-01` (the main thread's functions).
  if (process.env['KEEP'] === '1') console.log(`\ncallgrind dumps kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

function k(n: number): string {
  return `${(n / 1000).toFixed(0)}k`;
}
