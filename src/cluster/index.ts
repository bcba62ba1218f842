/** Public surface of the coordination between instances (REDIS_URL, SPEC §8). */
export { RedisLink, type RedisLinkOptions } from './redis.js';
export { DependencyStatus, type DependencyReport, type DependencyState } from './status.js';
export { Readiness, type ReadinessState } from './readiness.js';
export {
  DATABASE_PING_TIMEOUT,
  HealthProbe,
  type HealthDeps,
  type HealthReport,
  type Ping,
} from './health.js';
