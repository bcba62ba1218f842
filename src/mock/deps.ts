/**
 * The services the mock pipeline draws on, typed from the folders below it. Each step takes the few
 * it uses (`Pick<MockDeps, …>`); the server's composition satisfies them all.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { HistoryWriter } from '../history/index.js';
import type { RateLimiter } from '../http/index.js';
import type { CalloutQueue, OutboundClient } from '../outbound/index.js';
import type { Metrics } from '../metrics/index.js';
import type { Store } from '../store/index.js';
import type { TunnelHub } from '../tunnel/index.js';
import type { CrudListBudget } from './crud-list-budget.js';

export interface MockDeps {
  config: Config;
  store: Store;
  history: HistoryWriter;
  limiter: RateLimiter;
  log: FastifyBaseLogger;
  /** The one outbound HTTP client and its SSRF guard (proxy, callouts). */
  outbound: OutboundClient;
  /** Async rule callouts waiting or being sent (bounded; settled at shutdown). */
  callouts: CalloutQueue;
  /** Bytes of CRUD list answers being written (bounded per instance and per client address). */
  crudLists: CrudListBudget;
  /** Connected local-tunnel clients, by endpoint. */
  tunnels: Pick<TunnelHub, 'forward'>;
  /** Contract violations are counted here (SPEC §7). */
  metrics: Pick<Metrics, 'contractViolations'>;
  /** The clock, injectable for tests. */
  now: () => number;
}
