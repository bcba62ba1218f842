/** The services every capability receives from the server: built once at start, passed explicitly. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Store } from './store/index.js';
import type { HistoryWriter } from './history/index.js';
import type { RateLimiter } from './http/index.js';
import type { EventBus } from './events/index.js';
import type { CustomDomains, EndpointCache } from './endpoint/index.js';
import type { TunnelHub } from './tunnel/index.js';
import type { OutboundClient } from './outbound/index.js';
import type { CalloutQueue, CrudListBudget, Endpoint } from './mock/index.js';
import type { SseHub } from './api/index.js';

export interface AppContext {
  config: Config;
  store: Store;
  history: HistoryWriter;
  limiter: RateLimiter;
  events: EventBus;
  log: FastifyBaseLogger;
  /**
   * The endpoints the request path reads, resolved (settings and plan) once per entry; it drops an
   * endpoint when a change of it is announced.
   */
  endpoints: EndpointCache<Endpoint>;
  /** Custom domains claimed by endpoints, read by the dispatch (one map lookup per request). */
  domains: CustomDomains;
  /** Connected local-tunnel clients, by endpoint. */
  tunnels: TunnelHub;
  /** The one outbound HTTP client and its SSRF guard (proxy, callouts). */
  outbound: OutboundClient;
  /** Async rule callouts waiting or being sent (bounded; settled at shutdown). */
  callouts: CalloutQueue;
  /** Bytes of CRUD list answers being written (bounded per instance and per client address). */
  crudLists: CrudListBudget;
  /** Every open event stream, for the bound on what their readers leave unread together. */
  sse: SseHub;
  /** The clock, injectable for tests. */
  now: () => number;
}
