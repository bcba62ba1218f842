/**
 * The runner of one-shot upload workers (src/worker-thread.ts `boundedWorker`, used by OpenAPI
 * validation and gRPC compilation): a fresh worker a call, bounded in time and heap, at most
 * `atOnce` running and `waiting` queued, the rest refused at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundedWorker, type WorkerRefusals } from '../../src/worker-thread.js';
import { AppError } from '../../src/errors.js';

interface Task {
  echo?: string;
  waitMs?: number;
  exitCode?: number;
  exhaustHeap?: boolean;
}

const refusals: WorkerRefusals = {
  tooSlow: (s) => new AppError('validation_error', `not within ${s} s`),
  tooBig: () => new AppError('validation_error', 'out of memory'),
  busy: () => new AppError('rate_limited', 'busy'),
};

const runner = (atOnce = 2, waiting = 2, heapMb = 64) =>
  boundedWorker<Task, { echo?: string }>({
    from: new URL('../fixtures/workers/', import.meta.url).href,
    name: 'task-worker',
    heapMb,
    atOnce,
    waiting,
    refusals,
  });

test('a call resolves with the worker’s answer', async () => {
  assert.deepEqual(await runner()({ echo: 'hi' }, 10_000), { echo: 'hi' });
});

test('a worker past its time is refused with tooSlow, naming the seconds', async () => {
  await assert.rejects(runner()({ waitMs: 5_000 }, 300), /not within 0.3 s/);
});

test('a worker out of its heap is refused with tooBig', async () => {
  await assert.rejects(runner(2, 2, 16)({ exhaustHeap: true }, 30_000), /out of memory/);
});

test('a worker that exits without answering rejects, naming its code', async () => {
  await assert.rejects(runner()({ exitCode: 3 }, 10_000), /task-worker exited with code 3/);
});

test('atOnce run and waiting wait; one more at the same moment is refused at once, and the queue moves on', async () => {
  const run = runner(1, 1);
  const first = run({ echo: 'a', waitMs: 300 }, 10_000);
  const second = run({ echo: 'b' }, 10_000);
  await assert.rejects(run({ echo: 'c' }, 10_000), (e) => e instanceof AppError && e.code === 'rate_limited');
  assert.deepEqual(await first, { echo: 'a' });
  assert.deepEqual(await second, { echo: 'b' });
  // The slots are free again.
  assert.deepEqual(await run({ echo: 'd' }, 10_000), { echo: 'd' });
});
