/**
 * Clients that never read, and a client that watches the service meanwhile, for bench/flood.ts: raw
 * connections that send one request, read the status line and stop reading; a probe that GETs the
 * echo from another loopback address (127.0.0.2, so that a per-address cap on the readers is not
 * counted as the service being free) and keeps the worst latency; and a sampler of a process's RSS.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';

/** The RSS of `pid` now and its high-water mark, in bytes (Linux). */
export function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 };
}

/** Samples the RSS of `pid` every 100 ms; `stop()` gives the highest sample. */
export function rssSampler(pid: number): { stop(): number } {
  let peak = 0;
  const take = (): void => {
    try {
      peak = Math.max(peak, rssOf(pid).rss);
    } catch {
      /* the process is gone */
    }
  };
  take();
  const timer = setInterval(take, 100);
  return {
    stop() {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}

export interface StalledReader {
  /** The answer's status, 0 when the connection closed before one came. */
  status: number;
  socket: net.Socket;
}

/** Sends `request` on a fresh connection from 127.0.0.1, reads the status line, then never reads again. */
export function stalledReader(port: number, request: string): Promise<StalledReader> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => resolve({ status: 0, socket }));
    socket.on('close', () => resolve({ status: 0, socket }));
    socket.write(request);
    socket.once('data', (c: Buffer) => {
      socket.pause();
      resolve({ status: Number(c.toString('latin1').split(' ')[1] ?? 0), socket });
    });
  });
}

/** Opens `n` stalled readers, `batch` at a time; returns them and a count of their statuses. */
export async function stalledReaders(
  n: number,
  port: number,
  request: string,
  batch = 16,
): Promise<{ readers: StalledReader[]; statuses: string }> {
  const readers: StalledReader[] = [];
  for (let i = 0; i < n; i += batch)
    readers.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(batch, n - i) }, () => stalledReader(port, request)),
      )),
    );
  const counts = new Map<number, number>();
  for (const r of readers) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const statuses = [...counts]
    .sort((a, b) => a[0] - b[0])
    .map(([s, c]) => `${c} × ${s === 0 ? 'closed' : s}`)
    .join(', ');
  return { readers, statuses };
}

/** GETs `path` from 127.0.0.2 and resolves with the status and the milliseconds it took (5 s at most). */
export function probeOnce(port: number, path: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (status: number) => resolve({ status, ms: performance.now() - started });
    const req = http.get(
      { host: '127.0.0.1', port, path, localAddress: '127.0.0.2', agent: false },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode ?? 0));
      },
    );
    req.on('error', () => done(0));
    req.setTimeout(5000, () => req.destroy());
  });
}

/** Probes `path` from 127.0.0.2 every 100 ms until `stop()`, which gives the worst latency and failures. */
export function prober(
  port: number,
  path: string,
): { stop(): Promise<{ worstMs: number; failed: number; n: number }> } {
  let running = true;
  let worstMs = 0;
  let failed = 0;
  let n = 0;
  const loop = (async () => {
    while (running) {
      const r = await probeOnce(port, path);
      n++;
      worstMs = Math.max(worstMs, r.ms);
      if (r.status !== 200) failed++;
      await new Promise((res) => setTimeout(res, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { worstMs, failed, n };
    },
  };
}
