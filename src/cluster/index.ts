/** Public surface of the coordination between instances (REDIS_URL, SPEC §8). */
export { RedisLink, type RedisLinkOptions } from './redis.js';
export { DependencyStatus, type DependencyReport, type DependencyState } from './status.js';
export { SharedWindows, RATE_LIMITS, type SharedWindowsOptions } from './shared-windows.js';
export { SharedRateLimiter } from './shared-rate-limit.js';
export { LeasedRateLimiter, leaseBlock } from './leased-rate-limit.js';
export { Leases, type LeaseOptions } from './leases.js';
export {
  VersionFence,
  DOMAINS_VERSION_KEY,
  ENDPOINT_VERSION_KEY,
  SUSPENSION_KEY,
  type FenceStore,
  type SharedVersion,
  type VersionFenceOptions,
} from './version-fence.js';
export { RedisEventBus, type RedisEventBusOptions } from './redis-event-bus.js';
export { Readiness, type ReadinessState } from './readiness.js';
export {
  DATABASE_PING_TIMEOUT,
  HealthProbe,
  type HealthDeps,
  type HealthReport,
  type Ping,
} from './health.js';
