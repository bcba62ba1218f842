/** The EventBus contract, run against the Redis bus on a redis-server of the test's own. */
import { after, before } from 'node:test';
import { redisServerSkip, startRedisServer, type TestRedis } from '../helpers/redis-server.js';
import { suiteOrSkip } from '../helpers/pg.js';
import { redisBus } from '../helpers/redis-bus.js';
import { eventBusContract } from './event-bus.contract.js';

suiteOrSkip('the Redis event bus', redisServerSkip, () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    await redis?.stop();
  });
  // Marks renewed every 50 ms: a resume is served for events 2 beats after the first listener came.
  eventBusContract('redis', () => redisBus(redis.url), { alwaysListening: true, resumableAfterMs: 150 });
});
