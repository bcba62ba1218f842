/**
 * Unary gRPC calls against a bare @grpc/grpc-js server (the baseline, bench/grpc-bare.ts): Mockingbird
 * (the built CLI, dist/, on SQLite in a temp dir, history and the request log line on) with BENCH_PROTO
 * uploaded to an endpoint and a rule answering `bench.Echo/Echo` with a template that reads the request
 * message, against grpc-js answering the request message by hand. Both are loaded in turn, ROUNDS
 * alternating rounds, by a grpc-js client in its own process (bench/grpc-load.ts: CONCURRENCY calls in
 * flight on one HTTP/2 connection, h2c, the endpoint named by :authority `bench.localhost`). Prints each
 * round's calls/s and the server's CPU time a call (from /proc), the medians, the ratio Mockingbird /
 * grpc-js (target >= 0.5), then p50/p99 latency of both at half Mockingbird's measured rate (paced runs,
 * calls started on a schedule). A failed call stops the bench.
 *
 *   npm run bench:grpc          (ROUNDS=3 DURATION=8 CONCURRENCY=50; about 1.5 minutes with the build)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_METHOD, BENCH_PROTO } from './grpc-proto.js';
import { api, BENCH_KEY, uploadSpec } from './api.js';
import { mockingbirdServe, startServer } from './servers.js';
import { cpuPerRequest, threadTicks } from './thread-cpu.js';
import { median } from './wrk.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const DURATION = Number(process.env['DURATION'] ?? 8);
const CONCURRENCY = Number(process.env['CONCURRENCY'] ?? 50);
const TARGET = 0.5;
const AUTHORITY = 'bench.localhost';

/** What bench/grpc-load.ts prints. */
interface Load {
  calls: number;
  errors: number;
  firstError?: string;
  rate: number;
  p50: number;
  p99: number;
  cpuSeconds: number;
}

const LOAD = fileURLToPath(new URL('./grpc-load.ts', import.meta.url));
/** One run of the load process against `port`; throws on any failed call. */
function load(name: string, port: number, seconds: number, mode: 'closed' | 'paced', n: number): Load {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', LOAD, `127.0.0.1:${port}`, AUTHORITY, String(seconds), mode, String(n)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const r = JSON.parse(out.trim().split('\n').pop()!) as Load;
  if (r.errors > 0 || r.calls === 0) throw new Error(`${name}: ${r.errors} failed calls (${r.firstError})`);
  return r;
}

const dataDir = mkdtempSync(join(tmpdir(), 'mb-bench-'));
const logDir = mkdtempSync(join(tmpdir(), 'mb-bench-logs-'));
const bare = await startServer(
  ['--import', 'tsx', fileURLToPath(new URL('./grpc-bare.ts', import.meta.url))],
  process.env,
  join(logDir, 'bare.log'),
);
// h2c on the cleartext port, which the load client speaks (GRPC_CLEARTEXT, explicit whatever the default).
const serve = mockingbirdServe(dataDir, { MOCKINGBIRD_API_KEY: BENCH_KEY, GRPC_CLEARTEXT: 'true' });
const mb = await startServer(serve.args, serve.env, join(logDir, 'mockingbird.log'));
const targets = { 'bare grpc-js': bare, mockingbird: mb } as const;
type Name = keyof typeof targets;
type Round = Load & { cpu?: { main: number; others: number } };
const results: Record<Name, Round[]> = { 'bare grpc-js': [], mockingbird: [] };
const paced: Partial<Record<Name, Load>> = {};
let pacedRate = 0;
const us = (n: number): string => n.toFixed(1).padStart(6);
const cpuText = (c: { main: number; others: number } | undefined): string =>
  c ? `  server cpu µs/call main ${us(c.main)} others ${us(c.others)}` : '';
try {
  await api(mb.port, 'POST', '/endpoints', { name: 'bench' });
  await uploadSpec(mb.port, 'bench', BENCH_PROTO, 'text/plain');
  await api(mb.port, 'POST', '/endpoints/bench/rules', {
    method: 'POST',
    conditions: [{ type: 'grpc_method', value: BENCH_METHOD }],
    action: {
      type: 'grpc',
      callType: 'unary',
      responses: [{ body: `{"text": "{{body 'text'}}", "n": {{body 'n'}} }` }],
    },
  });
  // Warm-up (V8 optimises the hot code; a failed call stops here), then alternate so that drift on a
  // shared machine hits both alike.
  for (const [name, s] of Object.entries(targets)) load(name, s.port, 2, 'closed', CONCURRENCY);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, s] of Object.entries(targets) as [Name, (typeof targets)[Name]][]) {
      const before = threadTicks(s.child.pid!);
      const r = load(name, s.port, DURATION, 'closed', CONCURRENCY);
      const round_: Round = { ...r, cpu: cpuPerRequest(before, threadTicks(s.child.pid!), r.calls) };
      results[name].push(round_);
      console.log(
        `round ${round + 1} ${name.padEnd(14)} ${r.rate.toFixed(0).padStart(7)} calls/s  p99 ${r.p99.toFixed(2)} ms  client cpu ${((r.cpuSeconds / DURATION) * 100).toFixed(0)} %${cpuText(round_.cpu)}`,
      );
    }
  }
  pacedRate = Math.max(1, Math.round(median(results.mockingbird.map((r) => r.rate)) / 2));
  for (const [name, s] of Object.entries(targets) as [Name, (typeof targets)[Name]][])
    paced[name] = load(name, s.port, DURATION, 'paced', pacedRate);
} finally {
  bare.child.kill('SIGTERM');
  mb.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(logDir, { recursive: true, force: true });
}

const rate = (name: Name): number => median(results[name].map((r) => r.rate));
console.log(
  `\nmedians of ${ROUNDS} rounds, ${CONCURRENCY} unary calls in flight for ${DURATION} s (history and request log on):`,
);
for (const name of Object.keys(targets) as Name[]) {
  const cpus = results[name].flatMap((r) => (r.cpu ? [r.cpu] : []));
  const cpu = cpus.length
    ? { main: median(cpus.map((c) => c.main)), others: median(cpus.map((c) => c.others)) }
    : undefined;
  console.log(`${name.padEnd(14)} ${rate(name).toFixed(0).padStart(7)} calls/s${cpuText(cpu)}`);
}
const ratio = rate('mockingbird') / rate('bare grpc-js');
console.log(
  `mockingbird / bare grpc-js: ${ratio.toFixed(2)}  (target >= ${TARGET}) ${ratio >= TARGET ? 'PASS' : 'FAIL'}`,
);
console.log(`\npaced at ${pacedRate} calls/s (half Mockingbird's rate) for ${DURATION} s:`);
for (const [name, r] of Object.entries(paced))
  console.log(`${name.padEnd(14)} ${r.calls} calls  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`);
process.exit(0);
