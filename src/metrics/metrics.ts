/**
 * The Prometheus metrics of one instance (`GET /metrics`, SPEC §8), on a registry of its own: a process
 * that builds several apps (the tests) keeps their counts apart. A capability increments the metric of
 * its concern; gauges that mirror a state kept elsewhere (queue depth, dependencies) are read when
 * scraped, through `sample`.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  readonly registry: Registry;
  /** Endpoint requests answered, by the behavior their history entry names (`echo`, `mock-rule`, …). */
  readonly requests: Counter<'behavior'>;
  /** Endpoint entries read again because their shared configuration version moved. */
  readonly configReloads: Counter;
  /** History entries waiting to be written. */
  readonly historyQueueDepth: Gauge;
  /** History entries dropped (queue full, store unavailable, a value the store refused). */
  readonly historyDropped: Gauge;
  /** 1 when the dependency answers, 0 when it does not (`postgres`, `redis`). */
  readonly dependencyUp: Gauge<'dependency'>;
  /** Requests forwarded to the instance holding their endpoint's tunnel, by outcome. */
  readonly tunnelHops: Counter<'outcome'>;
  /** 1 while rate limits and quotas are counted across instances (Redis), 0 while each counts its own. */
  readonly rateLimitsShared: Gauge;
  /** Rate-limit hits counted in this instance's memory because Redis was unreachable. */
  readonly rateLimitLocalHits: Counter;
  /** 1 while this instance runs the background jobs (the leader of those on one database), else 0. */
  readonly jobsLeader: Gauge;
  /** Live events this instance could deliver only to its own event streams (Redis unreachable). */
  readonly eventsLocalOnly: Counter;
  /** How far this instance's reader of the shared event stream is behind its last entry, in seconds. */
  readonly eventStreamLag: Gauge;
  /** Violations of endpoints' OpenAPI documents found (SPEC §7), by `direction`: `request` or `response`. */
  readonly contractViolations: Counter<'direction'>;
  /** Registers a function run before each scrape, to set the gauges it owns. */
  sample(fn: () => void | Promise<void>): void;
  /** The text exposition. */
  text(): Promise<string>;
  readonly contentType: string;
}

/** `processMetrics`: also Node's own (CPU, memory, event loop lag), which start a monitor per registry. */
export function createMetrics(opts: { processMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.processMetrics === true) collectDefaultMetrics({ register: registry, prefix: 'mockingbird_' });
  const samplers: Array<() => void | Promise<void>> = [];
  const m = {
    registry,
    requests: new Counter({
      name: 'mockingbird_requests_total',
      help: 'Endpoint requests answered, by behavior',
      labelNames: ['behavior'] as const,
      registers: [registry],
    }),
    configReloads: new Counter({
      name: 'mockingbird_config_reloads_total',
      help: 'Endpoint configurations read again after their shared version moved',
      registers: [registry],
    }),
    historyQueueDepth: new Gauge({
      name: 'mockingbird_history_queue_depth',
      help: 'History entries waiting to be written',
      registers: [registry],
    }),
    historyDropped: new Gauge({
      name: 'mockingbird_history_dropped_total',
      help: 'History entries dropped since start (queue full, store unavailable, or a value the store refused)',
      registers: [registry],
    }),
    dependencyUp: new Gauge({
      name: 'mockingbird_dependency_up',
      help: '1 when the shared dependency answers, 0 when it does not',
      labelNames: ['dependency'] as const,
      registers: [registry],
    }),
    tunnelHops: new Counter({
      name: 'mockingbird_tunnel_hops_total',
      help: 'Requests forwarded to the instance holding their tunnel, by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    rateLimitsShared: new Gauge({
      name: 'mockingbird_rate_limits_shared',
      help: '1 while rate limits are counted across instances (Redis), 0 while this instance counts its own',
      registers: [registry],
    }),
    rateLimitLocalHits: new Counter({
      name: 'mockingbird_rate_limit_local_hits_total',
      help: 'Rate-limit hits counted in this instance alone because Redis was unreachable',
      registers: [registry],
    }),
    jobsLeader: new Gauge({
      name: 'mockingbird_jobs_leader',
      help: '1 while this instance runs the background jobs (the leader of the instances on one database)',
      registers: [registry],
    }),
    eventsLocalOnly: new Counter({
      name: 'mockingbird_events_local_only_total',
      help: "Live events delivered to this instance's own event streams only (Redis unreachable)",
      registers: [registry],
    }),
    eventStreamLag: new Gauge({
      name: 'mockingbird_event_stream_lag_seconds',
      help: "How far this instance's reader of the shared event stream is behind (0 when idle)",
      registers: [registry],
    }),
    contractViolations: new Counter({
      name: 'mockingbird_contract_violations_total',
      help: "Violations of endpoints' OpenAPI documents found, by direction (request, response)",
      labelNames: ['direction'] as const,
      registers: [registry],
    }),
    sample(fn: () => void | Promise<void>) {
      samplers.push(fn);
    },
    async text() {
      for (const fn of samplers) await fn();
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
  return m;
}
