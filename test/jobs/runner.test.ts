/** The background job runner: no overlapping runs, errors logged and retried, stop waits for the run in flight. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startJob } from '../../src/jobs/index.js';
import { until } from '../helpers/until.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quiet = { error: () => undefined };

void test('a run longer than the interval is never overlapped by the next tick', async () => {
  let active = 0;
  let most = 0;
  let runs = 0;
  const job = startJob({
    name: 'slow',
    intervalMs: 5,
    log: quiet,
    run: async () => {
      runs++;
      most = Math.max(most, ++active);
      await sleep(40);
      active--;
    },
  });
  await until(() => runs >= 3, 5000);
  await job.stop();
  assert.equal(most, 1);
});

void test('stop clears the timers and waits for the run in flight, whose signal it aborts', async () => {
  let release: () => void = () => undefined;
  let calls = 0;
  let aborted = false;
  const job = startJob({
    name: 'held',
    intervalMs: 10,
    log: quiet,
    run: async (signal) => {
      calls++;
      await new Promise<void>((r) => (release = r));
      aborted = signal.aborted;
    },
  });
  await until(() => calls === 1, 5000);
  let stopped = false;
  const stopping = job.stop().then(() => (stopped = true));
  await sleep(50);
  assert.equal(stopped, false, 'stop waits for the run in flight');
  release();
  await stopping;
  assert.equal(aborted, true, 'the run saw the stop');
  await sleep(50);
  assert.equal(calls, 1, 'nothing runs after stop');
});

void test('a failing run is logged with the job name, and the next tick runs again', async () => {
  const errors: unknown[][] = [];
  let calls = 0;
  const job = startJob({
    name: 'flaky job',
    intervalMs: 10,
    log: { error: (...args: unknown[]) => void errors.push(args) },
    run: async () => {
      calls++;
      if (calls === 1) throw new Error('database is locked');
    },
  });
  await until(() => calls >= 2, 5000);
  await job.stop();
  assert.equal(errors.length, 1);
  assert.equal(errors[0]![1], 'flaky job failed');
  assert.equal((errors[0]![0] as { err: Error }).err.message, 'database is locked');
});

void test('a run that throws before its first await does not wedge the job', async () => {
  let calls = 0;
  const job = startJob({
    name: 'sync throw',
    intervalMs: 10,
    firstRunMs: 0,
    log: quiet,
    run: () => {
      calls++;
      throw new Error('at once');
    },
  });
  assert.equal(calls, 1, 'firstRunMs 0 runs at start');
  await until(() => calls >= 3, 5000);
  await job.stop();
});

void test('firstRunMs schedules the first run apart from the interval; stop before it cancels it', async () => {
  let calls = 0;
  const early = startJob({
    name: 'e',
    intervalMs: 60_000,
    firstRunMs: 10,
    log: quiet,
    run: async () => void calls++,
  });
  await until(() => calls === 1, 5000);
  await early.stop();

  const cancelled = startJob({
    name: 'c',
    intervalMs: 60_000,
    firstRunMs: 20,
    log: quiet,
    run: async () => void calls++,
  });
  await cancelled.stop();
  await sleep(60);
  assert.equal(calls, 1);
});
