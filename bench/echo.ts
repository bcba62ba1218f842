/**
 * Echo throughput: a bare node:http echo (the baseline) against Mockingbird's echo with history
 * recording on, both started here on loopback, loaded alternately with autocannon (50 connections,
 * no pipelining). Prints req/s and p99 latency of each, and the ratio. Target: ratio >= 0.85.
 * Then loads each at a fixed rate both sustain and prints the server CPU time per request (from
 * /proc, on Linux), which the load generator sharing the machine disturbs less.
 *
 *   npm run bench:echo            (ROUNDS=3 DURATION=8 by default)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { BARE_ECHO, ECHO_PATH, mockingbirdServe, startServer } from './servers.js';

const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const DURATION = Number(process.env['DURATION'] ?? 8);
const CONNECTIONS = 50;
/** Requests a second for the CPU-per-request measurement: well under what either server sustains. */
const FIXED_RATE = Number(process.env['FIXED_RATE'] ?? 5000);

async function load(url: string): Promise<{ rps: number; p99: number; non2xx: number }> {
  const r = await autocannon({ url, connections: CONNECTIONS, pipelining: 1, duration: DURATION });
  return { rps: r.requests.average, p99: r.latency.p99, non2xx: r.non2xx + r.errors };
}

/** User + system CPU seconds of a process (all threads) and of its main thread, from /proc. */
function cpuSeconds(pid: number): { total: number; main: number } | undefined {
  const read = (file: string): number => {
    // Fields after the command name (which is in parentheses); utime and stime are the 14th and 15th.
    const f = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // clock ticks: 100 a second on Linux
  };
  try {
    return { total: read(`/proc/${pid}/stat`), main: read(`/proc/${pid}/task/${pid}/stat`) };
  } catch {
    return undefined; // not Linux
  }
}

/**
 * CPU time a server spends per request at a fixed rate both servers sustain: less sensitive to the
 * load generator sharing the machine than the saturated req/s.
 */
async function cpuPerRequest(url: string, pid: number): Promise<{ total: number; main: number } | undefined> {
  const before = cpuSeconds(pid);
  if (!before) return undefined;
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, overallRate: FIXED_RATE });
  const after = cpuSeconds(pid)!;
  const n = r.requests.total;
  return { total: ((after.total - before.total) / n) * 1e6, main: ((after.main - before.main) / n) * 1e6 };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const dataDir = mkdtempSync(join(tmpdir(), 'mb-bench-'));
const logDir = mkdtempSync(join(tmpdir(), 'mb-bench-logs-'));
const bare = await startServer(['-e', BARE_ECHO], process.env, join(logDir, 'bare.log'));
const serve = mockingbirdServe(dataDir);
const mb = await startServer(serve.args, serve.env, join(logDir, 'mockingbird.log'));
const path = ECHO_PATH;
let cpu: { bare: { total: number; main: number }; mockingbird: { total: number; main: number } } | undefined;
const results = {
  bare: [] as { rps: number; p99: number }[],
  mockingbird: [] as { rps: number; p99: number }[],
};
try {
  // Warm-up, then alternate so that drift on a shared machine hits both alike.
  await autocannon({ url: `http://127.0.0.1:${bare.port}${path}`, connections: CONNECTIONS, duration: 2 });
  await autocannon({ url: `http://127.0.0.1:${mb.port}${path}`, connections: CONNECTIONS, duration: 2 });
  for (let i = 0; i < ROUNDS; i++) {
    const b = await load(`http://127.0.0.1:${bare.port}${path}`);
    const m = await load(`http://127.0.0.1:${mb.port}${path}`);
    if (b.non2xx > 0 || m.non2xx > 0)
      throw new Error(`non-2xx answers: bare ${b.non2xx}, mockingbird ${m.non2xx}`);
    results.bare.push(b);
    results.mockingbird.push(m);
    console.log(
      `round ${i + 1}: bare ${b.rps.toFixed(0)} req/s p99 ${b.p99} ms | mockingbird ${m.rps.toFixed(0)} req/s p99 ${m.p99} ms`,
    );
  }
  const bareCpu = await cpuPerRequest(`http://127.0.0.1:${bare.port}${path}`, bare.child.pid!);
  const mbCpu = await cpuPerRequest(`http://127.0.0.1:${mb.port}${path}`, mb.child.pid!);
  if (bareCpu && mbCpu) cpu = { bare: bareCpu, mockingbird: mbCpu };
} finally {
  bare.child.kill('SIGTERM');
  mb.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(logDir, { recursive: true, force: true });
}
const bRps = median(results.bare.map((r) => r.rps));
const mRps = median(results.mockingbird.map((r) => r.rps));
const ratio = mRps / bRps;
console.log(
  `\nbare node:http echo : ${bRps.toFixed(0)} req/s, p99 ${median(results.bare.map((r) => r.p99))} ms`,
);
console.log(
  `mockingbird echo    : ${mRps.toFixed(0)} req/s, p99 ${median(results.mockingbird.map((r) => r.p99))} ms (history on)`,
);
console.log(`ratio               : ${ratio.toFixed(2)} (target >= 0.85) ${ratio >= 0.85 ? 'PASS' : 'FAIL'}`);
if (cpu) {
  console.log(
    `\nserver CPU per request at ${FIXED_RATE} req/s: bare ${cpu.bare.total.toFixed(1)} µs, ` +
      `mockingbird ${cpu.mockingbird.total.toFixed(1)} µs (main thread ${cpu.mockingbird.main.toFixed(1)} µs, ` +
      `history worker and GC threads the rest)`,
  );
}
