/**
 * Throughput against a bare node:http echo (the baseline): Mockingbird's echo and a templated rule
 * (`GET /users/:id`, as in bench:templates: match + Handlebars + faker), history recording and the
 * request log line on, all started here on loopback and loaded in turn by `wrk -t1 -c50` (one
 * thread: on two cores the load generator must leave the server a core), ROUNDS alternating rounds.
 * Prints each round, the medians and the ratios to the bare echo. Targets: echo >= 0.6, templated
 * rule >= 0.45. On a machine shared with other work, req/s move from run to run; the ratios of one
 * run, taken alternately, much less. Each round also prints the server's CPU time a request (its
 * main thread and its other threads, from /proc), which moves less than req/s and shows which bound a
 * run is against. bench:echo-instructions counts the same in CPU instructions.
 *
 *   npm run bench:echo            (ROUNDS=3 DURATION=8 by default; needs wrk)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BARE_ECHO, ECHO_PATH, mockingbirdServe, startServer } from './servers.js';
import { TEMPLATED_PATH, TEMPLATED_RULE } from './templated-rule.js';
import { cpuPerRequest, threadTicks } from './thread-cpu.js';
import { median, requireWrk, wrk, type Load } from './wrk.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const DURATION = Number(process.env['DURATION'] ?? 8);
const KEY = 'mb_bench_key_not_secret_0123456789abcdef';

requireWrk();

async function api(port: number, method: string, path: string, body: unknown): Promise<void> {
  const r = await fetch(`http://127.0.0.1:${port}/api/v2${path}`, {
    method,
    headers: { authorization: KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
}

const dataDir = mkdtempSync(join(tmpdir(), 'mb-bench-'));
const logDir = mkdtempSync(join(tmpdir(), 'mb-bench-logs-'));
const bare = await startServer(['-e', BARE_ECHO], process.env, join(logDir, 'bare.log'));
const serve = mockingbirdServe(dataDir, { MOCKINGBIRD_API_KEY: KEY });
const mb = await startServer(serve.args, serve.env, join(logDir, 'mockingbird.log'));
const pids = { bare: bare.child.pid!, mb: mb.child.pid! };
const targets = {
  'bare node:http echo': `http://127.0.0.1:${bare.port}${ECHO_PATH}`,
  'mockingbird echo': `http://127.0.0.1:${mb.port}${ECHO_PATH}`,
  'mockingbird templated rule': `http://127.0.0.1:${mb.port}/e/bench${TEMPLATED_PATH}`,
};
type Name = keyof typeof targets;
type Round = Load & { cpu?: { main: number; others: number } };
const results = Object.fromEntries(Object.keys(targets).map((k) => [k, [] as Round[]])) as Record<
  Name,
  Round[]
>;
const us = (n: number): string => n.toFixed(1).padStart(5);
try {
  await api(mb.port, 'POST', '/endpoints', { name: 'bench' });
  await api(mb.port, 'POST', '/endpoints/bench/rules', TEMPLATED_RULE);
  for (const [name, url] of Object.entries(targets)) {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${name}: ${r.status} ${await r.text()}`);
  }
  // Warm-up (V8 optimises the hot code), then alternate so that drift on a shared machine hits all alike.
  for (const url of Object.values(targets)) wrk(url, 2);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, url] of Object.entries(targets) as [Name, string][]) {
      const pid = name.startsWith('bare') ? pids.bare : pids.mb;
      const before = threadTicks(pid);
      const load = wrk(url, DURATION);
      const r: Round = { ...load, cpu: cpuPerRequest(before, threadTicks(pid), load.requests) };
      if (r.errors > 0) throw new Error(`${name}: ${r.errors} errors or non-2xx answers`);
      results[name].push(r);
      const cpu = r.cpu ? `  cpu µs/req main ${us(r.cpu.main)} others ${us(r.cpu.others)}` : '';
      console.log(
        `round ${round + 1} ${name.padEnd(28)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${r.p99.toFixed(2)} ms${cpu}`,
      );
    }
  }
} finally {
  bare.child.kill('SIGTERM');
  mb.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(logDir, { recursive: true, force: true });
}

const rps = (name: Name): number => median(results[name].map((r) => r.rps));
console.log(`\nmedians of ${ROUNDS} rounds, wrk -t1 -c50 -d${DURATION}s (history and request log line on):`);
for (const name of Object.keys(targets) as Name[]) {
  const cpus = results[name].flatMap((r) => (r.cpu ? [r.cpu] : []));
  const cpu = cpus.length
    ? `  cpu µs/req main ${us(median(cpus.map((c) => c.main)))} others ${us(median(cpus.map((c) => c.others)))}`
    : '';
  console.log(
    `${name.padEnd(28)} ${rps(name).toFixed(0).padStart(7)} req/s  p99 ${median(results[name].map((r) => r.p99)).toFixed(2)} ms${cpu}`,
  );
}
const check = (name: Name, target: number): void => {
  const ratio = rps(name) / rps('bare node:http echo');
  console.log(
    `${(name + ' / bare echo').padEnd(40)} ${ratio.toFixed(2)}  (target >= ${target}) ${ratio >= target ? 'PASS' : 'FAIL'}`,
  );
};
console.log('');
check('mockingbird echo', 0.6);
check('mockingbird templated rule', 0.45);
process.exit(0);
