/** The services the TOTP generator draws on (its routes, the purge job), typed from the folders below it. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { RateLimiter } from '../http/index.js';
import type { Store } from '../store/index.js';

export interface TotpDeps {
  config: Config;
  store: Store;
  /** Counts requests per client address (TOTP_RATE_LIMIT a minute). */
  limiter: RateLimiter;
  log: FastifyBaseLogger;
  /** The clock, injectable for tests. */
  now: () => number;
}
