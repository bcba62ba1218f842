/** The RateLimiter contract, run against the in-memory limiter. */
import { MemoryRateLimiter } from '../../src/http/index.js';
import { rateLimiterContract } from './rate-limiter.contract.js';

rateLimiterContract('memory', (now) => new MemoryRateLimiter(now));
