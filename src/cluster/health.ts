/**
 * What `GET /api/v2/health` reports and `/metrics` samples: the database and Redis each pinged with a
 * short timeout (a health check never hangs on a dependency), the reports of `DependencyStatus`, the
 * history writer's queue and this instance's readiness. `degraded` is true when a ping fails or a part
 * reported itself down or degraded.
 */
import type { Store } from '../store/index.js';
import type { Metrics } from '../metrics/index.js';
import type { RedisLink } from './redis.js';
import type { DependencyState, DependencyStatus } from './status.js';
import type { Readiness, ReadinessState } from './readiness.js';

/** The longest a health check waits for the database (ms); Redis has its link's command timeout. */
export const DATABASE_PING_TIMEOUT = 1000;

export interface Ping {
  state: 'up' | 'down';
  /** Round trip of the ping (ms), when it answered. */
  latencyMs?: number;
  /** Why it is down. */
  detail?: string;
}

export interface HealthReport {
  degraded: boolean;
  instance: { state: ReadinessState; uptimeSeconds: number };
  database: Ping & { dialect: Store['dialect'] };
  /** `off`: no REDIS_URL (a single instance). */
  redis: Omit<Ping, 'state'> & { state: 'up' | 'down' | 'off' };
  /** Every part's own report (`redis`, `rate_limits`, `events`, `tunnels` …), `since` in ISO 8601. */
  reports: Record<string, { state: DependencyState; detail?: string; since: string }>;
  history: { queued: number; queuedBytes: number; written: number; dropped: number };
}

export interface HealthDeps {
  store: Pick<Store, 'dialect' | 'getMeta'>;
  redis: Pick<RedisLink, 'up' | 'client'> | undefined;
  status: DependencyStatus;
  history: { stats(): HealthReport['history'] };
  readiness: Readiness;
  now: () => number;
}

/** `p`, or a rejection naming `what` after `ms`. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export class HealthProbe {
  private readonly startedAt: number;

  constructor(private readonly deps: HealthDeps) {
    this.startedAt = deps.now();
  }

  /** One primary-key read of the database. */
  async pingDatabase(timeoutMs = DATABASE_PING_TIMEOUT): Promise<Ping> {
    const t0 = performance.now();
    try {
      await within(this.deps.store.getMeta('health_ping'), timeoutMs, 'the database');
      return { state: 'up', latencyMs: round(performance.now() - t0) };
    } catch (err) {
      return { state: 'down', detail: message(err) };
    }
  }

  /** `PING` on the command connection; down at once while the link is down. */
  async pingRedis(): Promise<HealthReport['redis']> {
    const redis = this.deps.redis;
    if (!redis) return { state: 'off' };
    if (!redis.up) return { state: 'down', detail: this.deps.status.get('redis')?.detail ?? 'not connected' };
    const t0 = performance.now();
    try {
      await redis.client.ping();
      return { state: 'up', latencyMs: round(performance.now() - t0) };
    } catch (err) {
      return { state: 'down', detail: message(err) };
    }
  }

  async report(): Promise<HealthReport> {
    const [database, redis] = await Promise.all([this.pingDatabase(), this.pingRedis()]);
    const reports: HealthReport['reports'] = {};
    for (const [name, r] of Object.entries(this.deps.status.snapshot()))
      reports[name] = {
        state: r.state,
        ...(r.detail === undefined ? {} : { detail: r.detail }),
        since: new Date(r.since).toISOString(),
      };
    const h = this.deps.history.stats();
    return {
      degraded: database.state !== 'up' || redis.state === 'down' || this.deps.status.degraded,
      instance: {
        state: this.deps.readiness.state,
        uptimeSeconds: Math.floor((this.deps.now() - this.startedAt) / 1000),
      },
      database: { dialect: this.deps.store.dialect, ...database },
      redis,
      reports,
      history: { queued: h.queued, queuedBytes: h.queuedBytes, written: h.written, dropped: h.dropped },
    };
  }

  /**
   * Sets the gauges this probe owns before each scrape: the history queue's depth and drops, and
   * `mockingbird_dependency_up` for PostgreSQL (not on SQLite, which is no shared dependency) and Redis
   * (when configured).
   */
  sampleInto(
    metrics: Pick<Metrics, 'sample' | 'historyQueueDepth' | 'historyDropped' | 'dependencyUp'>,
  ): void {
    metrics.sample(async () => {
      const h = this.deps.history.stats();
      metrics.historyQueueDepth.set(h.queued);
      metrics.historyDropped.set(h.dropped);
      const [database, redis] = await Promise.all([
        this.deps.store.dialect === 'postgres' ? this.pingDatabase() : undefined,
        this.pingRedis(),
      ]);
      if (database) metrics.dependencyUp.set({ dependency: 'postgres' }, database.state === 'up' ? 1 : 0);
      if (redis.state !== 'off')
        metrics.dependencyUp.set({ dependency: 'redis' }, redis.state === 'up' ? 1 : 0);
    });
  }
}

const round = (ms: number): number => Math.round(ms * 100) / 100;
