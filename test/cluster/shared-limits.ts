/**
 * Shared rate limiters on a Redis of the test's own, each on a link of its own (one "instance" each),
 * for the limiters' unit tests.
 */
import {
  DependencyStatus,
  RedisLink,
  SharedWindows,
  type SharedWindowsOptions,
} from '../../src/cluster/index.js';
import { createMetrics, type Metrics } from '../../src/metrics/index.js';
import type { RateLimiter } from '../../src/http/index.js';

export interface Instance<L extends RateLimiter> {
  limiter: L;
  windows: SharedWindows;
  link: RedisLink;
  status: DependencyStatus;
  metrics: Metrics;
  close(): Promise<void>;
}

/** One instance's limiter on `url`, its link ready. */
export async function instanceOn<L extends RateLimiter>(
  url: string,
  make: (w: SharedWindows) => L,
  opts: Omit<SharedWindowsOptions, 'status' | 'metrics'> & { commandTimeout?: number } = {},
): Promise<Instance<L>> {
  const link = new RedisLink(url, { commandTimeout: opts.commandTimeout ?? 500, maxReconnectDelay: 100 });
  await link.ready();
  const status = new DependencyStatus();
  const metrics = createMetrics();
  const windows = new SharedWindows(link, { probeMs: 50, ...opts, status, metrics });
  const limiter = make(windows);
  return {
    limiter,
    windows,
    link,
    status,
    metrics,
    async close() {
      await limiter.close?.();
      windows.close();
      await link.close();
    },
  };
}

/** What a metric of `m` reads now. */
export async function metricValue(m: Metrics, name: string): Promise<number> {
  const line = (await m.text()).split('\n').find((l) => l.startsWith(name + ' '));
  return line === undefined ? NaN : Number(line.split(' ')[1]);
}
