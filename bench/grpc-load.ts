/**
 * bench:grpc's load generator, run as its own process (so that it has a core of its own):
 *
 *   node --import tsx bench/grpc-load.ts <host:port> <authority> <seconds> closed <concurrency>
 *   node --import tsx bench/grpc-load.ts <host:port> <authority> <seconds> paced <calls per second>
 *
 * `closed`: `concurrency` unary calls in flight for `seconds`, each started when one ends (calls/s).
 * `paced`: calls started on a schedule of `rate` a second whatever the answers (latency at that load).
 * One grpc-js channel (one HTTP/2 connection). Prints one JSON line: calls, errors (the first error's
 * text), seconds, calls/s, p50 and p99 in ms, and this process's CPU seconds.
 */
import * as grpc from '@grpc/grpc-js';
import { BENCH_MESSAGE, benchService } from './grpc-proto.js';

const [address, authority, secondsArg, mode, nArg] = process.argv.slice(2);
const seconds = Number(secondsArg);
const n = Number(nArg);
if (!address || !authority || !(seconds > 0) || !(n > 0) || (mode !== 'closed' && mode !== 'paced')) {
  console.error('usage: grpc-load.ts <host:port> <authority> <seconds> closed|paced <n>');
  process.exit(2);
}

const { Client } = benchService();
const client = new Client(address, grpc.credentials.createInsecure(), {
  'grpc.default_authority': authority,
}) as unknown as {
  Echo(req: unknown, cb: (err: grpc.ServiceError | null, res?: unknown) => void): void;
  close(): void;
};

const latencies: number[] = [];
let errors = 0;
let firstError: string | undefined;
/** One call; resolves with whether it succeeded, its latency recorded. */
function once(): Promise<void> {
  const start = process.hrtime.bigint();
  return new Promise((resolve) =>
    client.Echo(BENCH_MESSAGE, (err) => {
      if (err) {
        errors++;
        firstError ??= `${err.code} ${err.details}`;
      } else latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
      resolve();
    }),
  );
}

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const end = t0 + seconds * 1000;
if (mode === 'closed') {
  const loop = async (): Promise<void> => {
    while (performance.now() < end) await once();
  };
  await Promise.all(Array.from({ length: n }, loop));
} else {
  const pending: Promise<void>[] = [];
  let started = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      const due = Math.min(Math.floor(((now - t0) / 1000) * n), Math.floor(seconds * n));
      while (started < due) {
        started++;
        pending.push(once());
      }
      if (now >= end) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  await Promise.all(pending);
}
const elapsed = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
client.close();

const sorted = latencies.sort((a, b) => a - b);
const pct = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
console.log(
  JSON.stringify({
    calls: latencies.length,
    errors,
    firstError,
    seconds: elapsed,
    rate: latencies.length / elapsed,
    p50: pct(0.5),
    p99: pct(0.99),
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  }),
);
process.exit(0);
