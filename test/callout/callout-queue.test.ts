/**
 * The async callout queue's bounds (SPEC §12): CALLOUT_CONCURRENCY in flight, CALLOUT_QUEUE and
 * CALLOUT_QUEUE_PER_ENDPOINT waiting (limit − 1, limit, limit + 1), and a shutdown that cancels the
 * waiting ones and aborts those in flight at its deadline instead of hanging.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CalloutQueue, type CalloutJob } from '../../src/outbound/index.js';
import { nextHopWithin } from '../../src/outbound/index.js';

function job(
  endpoint: string,
  delayMs: number,
  run: CalloutJob['run'],
  cancelled: string[] = [],
): CalloutJob {
  return {
    endpoint,
    delayMs,
    run,
    cancel: async (reason) => {
      cancelled.push(reason);
    },
  };
}

const never: CalloutJob['run'] = (signal) =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve()));

test('CALLOUT_QUEUE: limit − 1 and limit are scheduled, limit + 1 is not', async () => {
  const q = new CalloutQueue({ concurrency: 1, maxQueued: 3, maxPerEndpoint: 100 });
  for (let i = 0; i < 3; i++) assert.equal(q.schedule(job(`e${i}`, 60_000, never)), undefined);
  assert.match(q.schedule(job('e9', 60_000, never)) ?? '', /CALLOUT_QUEUE\)/);
  assert.deepEqual(q.stats(), { waiting: 3, running: 0 });
  assert.deepEqual(await q.close(0), { cancelled: 3, aborted: 0 });
});

test('CALLOUT_QUEUE_PER_ENDPOINT: bounds one endpoint, not the others', async () => {
  const q = new CalloutQueue({ concurrency: 1, maxQueued: 100, maxPerEndpoint: 2 });
  assert.equal(q.schedule(job('a', 60_000, never)), undefined);
  assert.equal(q.schedule(job('a', 60_000, never)), undefined);
  assert.match(q.schedule(job('a', 60_000, never)) ?? '', /CALLOUT_QUEUE_PER_ENDPOINT/);
  assert.equal(q.schedule(job('b', 60_000, never)), undefined);
  await q.close(0);
});

test('CALLOUT_CONCURRENCY: at most that many are sent at once; the others wait their turn', async () => {
  const q = new CalloutQueue({ concurrency: 2, maxQueued: 100, maxPerEndpoint: 100 });
  let running = 0;
  let most = 0;
  let finished = 0;
  const run: CalloutJob['run'] = async () => {
    running++;
    most = Math.max(most, running);
    await new Promise((r) => setTimeout(r, 30));
    running--;
    finished++;
  };
  for (let i = 0; i < 5; i++) q.schedule(job('a', 0, run));
  while (finished < 5) await new Promise((r) => setTimeout(r, 10));
  assert.equal(most, 2);
  assert.deepEqual(q.stats(), { waiting: 0, running: 0 });
  await q.close(0);
});

test('close: waiting callouts are cancelled at once; one in flight is aborted at the deadline', async () => {
  const q = new CalloutQueue({ concurrency: 1, maxQueued: 100, maxPerEndpoint: 100 });
  const cancelled: string[] = [];
  let aborted = false;
  q.schedule(
    job('a', 0, async (signal) => {
      await never(signal);
      aborted = signal.aborted;
    }),
  );
  q.schedule(job('a', 60_000, never, cancelled));
  await new Promise((r) => setTimeout(r, 20)); // the first is in flight now
  const started = Date.now();
  assert.deepEqual(await q.close(150), { cancelled: 1, aborted: 1 });
  const took = Date.now() - started;
  assert.ok(took >= 100 && took < 1000, `took ${took} ms`);
  assert.equal(aborted, true);
  assert.match(cancelled[0] ?? '', /shut down/);
  assert.match(q.schedule(job('a', 0, never)) ?? '', /shutting down/);
});

test('the depth limit counts this instance in X-Mockingbird-Hop: depth − 1 and depth pass, not beyond', () => {
  assert.deepEqual(nextHopWithin(undefined, 'me', 2), { loop: false, depth: 0, value: 'me' });
  assert.equal(nextHopWithin('me', 'me', 2).loop, false);
  assert.equal(nextHopWithin('me, other, me', 'me', 2).loop, true);
  assert.equal(nextHopWithin('a, b, c, d, e, f, g, h', 'me', 7).loop, true, 'MAX_HOPS whatever the ids');
  assert.equal(nextHopWithin('me', 'me', 1).loop, true, 'depth 1 is the proxy: never back through itself');
});
