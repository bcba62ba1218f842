/** The services the echo's pipeline draws on, typed from the folders below it. */
import type { Config } from '../config.js';
import type { RateLimiter } from '../http/index.js';

export interface EchoDeps {
  config: Config;
  /**
   * Counts the echo's requests per client address (ECHO_RATE_LIMIT a minute). With several instances
   * it may count in leases (cluster/'s LeasedRateLimiter): no Redis round trip per echo request.
   */
  echoLimiter: RateLimiter;
  /** The clock, injectable for tests. */
  now: () => number;
}
