/**
 * A probe from another client: GET requests from 127.0.0.2 (so a per-IP cap on the client under test
 * is not mistaken for everyone being served), one after another while some work runs, each timed.
 */
import http from 'node:http';

export interface ProbeReport {
  /** Probes answered while the work ran. */
  served: number;
  /** The slowest probe's time, in ms. */
  slowestMs: number;
}

function once(url: string): Promise<{ status: number; ms: number }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress: '127.0.0.2', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - start }));
    });
    req.on('error', reject);
  });
}

/**
 * Probes `url` from 127.0.0.2 until `work` settles (and at least once after it started); every
 * probe must answer `status`. Resolves with the work's result and the probes' report.
 */
export async function probeWhile<T>(
  url: string,
  work: Promise<T>,
  status = 200,
): Promise<{ result: T; probe: ProbeReport }> {
  let done = false;
  const settled = work.finally(() => (done = true));
  const report: ProbeReport = { served: 0, slowestMs: 0 };
  const loop = (async () => {
    do {
      const r = await once(url);
      if (r.status !== status) throw new Error(`a probe answered ${r.status}, not ${status}`);
      report.served++;
      report.slowestMs = Math.max(report.slowestMs, r.ms);
      if (!done) await new Promise((r) => setTimeout(r, 5));
    } while (!done);
  })();
  const [result] = await Promise.all([settled, loop]);
  return { result, probe: report };
}
