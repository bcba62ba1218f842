/** The runner's lease (several instances, one leader): a tick runs only when the lease grants it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startJob } from '../../src/jobs/index.js';
import { until } from '../helpers/until.js';

void test('a tick runs only when the lease grants it, and says so at debug level', async () => {
  let granted = false;
  let asked = 0;
  let runs = 0;
  const debug: unknown[][] = [];
  const job = startJob({
    name: 'leased',
    intervalMs: 5,
    firstRunMs: 0,
    lease: async () => {
      asked++;
      return granted;
    },
    log: { error: () => undefined, debug: (...args: unknown[]) => void debug.push(args) },
    run: async () => void runs++,
  });
  await until(() => asked >= 5, 5000);
  assert.equal(runs, 0, 'no run without the lease');
  assert.equal(debug.length, 0);
  granted = true;
  await until(() => runs >= 2, 5000);
  await job.stop();
  assert.deepEqual(debug[0], [{ job: 'leased' }, 'leased run']);
});

void test('a lease that throws is logged as the run failing, and the next tick asks again', async () => {
  const errors: unknown[][] = [];
  let asked = 0;
  const job = startJob({
    name: 'flaky lease',
    intervalMs: 5,
    lease: async () => {
      if (++asked === 1) throw new Error('no database');
      return false;
    },
    log: { error: (...args: unknown[]) => void errors.push(args) },
    run: async () => assert.fail('never granted'),
  });
  await until(() => asked >= 3, 5000);
  await job.stop();
  assert.equal(errors.length, 1);
  assert.equal(errors[0]![1], 'flaky lease failed');
});

void test('stop while the lease is being asked: the run does not start', async () => {
  let answer: (v: boolean) => void = () => undefined;
  let runs = 0;
  const job = startJob({
    name: 'slow lease',
    intervalMs: 60_000,
    firstRunMs: 0,
    lease: () => new Promise<boolean>((r) => (answer = r)),
    log: { error: () => undefined },
    run: async () => void runs++,
  });
  const stopped = job.stop();
  answer(true);
  await stopped;
  assert.equal(runs, 0);
});
