/**
 * The services the management API draws on, typed from the folders below it: the endpoint commands'
 * (src/admin/, whose routes are adapters around them) and what the routes read themselves.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { EndpointDeps, SpecDeps } from '../admin/index.js';
import type { EventBus } from '../events/index.js';
import type { HistoryWriter } from '../history/index.js';
import type { RateLimiter } from '../http/index.js';
import type { TunnelHub } from '../tunnel/index.js';
import type { HealthProbe, Readiness } from '../cluster/index.js';
import type { Metrics } from '../metrics/index.js';
import type { SseHub } from './sse-hub.js';

export interface ApiDeps extends EndpointDeps, SpecDeps {
  /** Endpoint changes and the dashboards' live events. */
  events: EventBus;
  /** The request history, flushed before a route reads it. */
  history: HistoryWriter;
  /** Counts failed authentications per client address. */
  limiter: RateLimiter;
  log: FastifyBaseLogger;
  /** Connected local-tunnel clients, by endpoint: the tunnel's connection route and its status. */
  tunnels: TunnelHub;
  /** Every open event stream, for the bound on what their readers leave unread together. */
  sse: SseHub;
  /** Pings the dependencies for GET /health. */
  health: HealthProbe;
  /** Whether this instance takes traffic (GET /readyz). */
  readiness: Readiness;
  /** This instance's Prometheus metrics (GET /metrics). */
  metrics: Pick<Metrics, 'text' | 'contentType'>;
}
