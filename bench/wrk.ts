/**
 * `wrk -t1 -c50`, the load generator of the throughput benchmarks: one thread, so that on a
 * two-core machine it leaves the server a core (autocannon, in Node, takes a whole one).
 */
import { execFileSync } from 'node:child_process';

export interface Load {
  rps: number;
  /** Requests completed in the run. */
  requests: number;
  /** ms */
  p99: number;
  /** Non-2xx/3xx answers and socket errors. */
  errors: number;
  /** Of the errors: requests unanswered within wrk's timeout (2 s). */
  timeouts?: number;
}

/** Exits with a hint when wrk is not installed. */
export function requireWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      console.error('wrk is not installed (Debian: apt-get install wrk)');
      process.exit(2);
    }
  }
}

/** `wrk -t1 -c<connections> -d<seconds>s --latency url`: requests a second, p99, errors. */
export function wrk(url: string, seconds: number, connections = 50): Load {
  return parseWrk(
    execFileSync('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', url], { encoding: 'utf8' }),
  );
}

/** Reads wrk's report. */
export function parseWrk(out: string): Load {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const p = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99 = p ? Number(p[1]) * (p[2] === 'us' ? 0.001 : p[2] === 's' ? 1000 : 1) : NaN;
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = non2xx + (sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
  return { rps, requests, p99, errors, timeouts: Number(sock?.[4] ?? 0) };
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
