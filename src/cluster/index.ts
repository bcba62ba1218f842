/** Public surface of the coordination between instances (REDIS_URL, SPEC §8). */
export { RedisLink, type RedisLinkOptions } from './redis.js';
export { DependencyStatus, type DependencyReport, type DependencyState } from './status.js';
export { RedisEventBus, type RedisEventBusOptions } from './redis-event-bus.js';
