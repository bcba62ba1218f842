/**
 * The QR pool (src/totp/qr-pool.ts) with stand-in workers that speak its protocol: each "image" is a
 * word telling the stand-in what to do (read, crash, exit, hang). A worker that crashes, exits or
 * hangs fails its own image only, with 422, and the next image is read by a fresh worker; the queue
 * bound; images handed over, not copied; closing refuses what is left and ends the workers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { AppError } from '../../src/errors.js';
import { QrPool, type QrPoolOptions } from '../../src/totp/qr-pool.js';

const STAND_IN = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ image }) => {
  const word = Buffer.from(image).toString();
  if (word === 'crash') throw new Error('boom');
  if (word === 'exit') process.exit(3);
  if (word === 'hang') for (;;);
  if (word === 'refuse') {
    parentPort.postMessage({ refused: { code: 'validation_error', message: 'not an image', details: [{ path: '/qrcode', message: 'x' }] } });
    return;
  }
  if (word === 'fail') return parentPort.postMessage({ failed: 'vips said no' });
  parentPort.postMessage({ text: word === 'none' ? undefined : 'read ' + image.byteLength + ' bytes: ' + word.slice(0, 20) });
});
parentPort.postMessage('ready');
`;

function pool(opts: Partial<QrPoolOptions> = {}) {
  const started: Worker[] = [];
  const logged: string[] = [];
  const p = new QrPool({
    workers: 1,
    queue: 8,
    timeoutMs: 2000,
    log: {
      warn: (_o: unknown, m?: string) => logged.push(`warn ${m}`),
      error: (_o: unknown, m?: string) => logged.push(`error ${m}`),
    } as QrPoolOptions['log'],
    start: () => {
      const w = new Worker(STAND_IN, { eval: true });
      started.push(w);
      return w;
    },
    ...opts,
  });
  return { p, started, logged };
}

const word = (w: string) => Buffer.from(w);

async function rejectsWith(promise: Promise<unknown>, code: string, message: RegExp) {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, code);
    assert.match(err.message, message);
    return true;
  });
}

test('a worker that throws, or exits, fails its own image only (422); a fresh worker reads the next', async () => {
  const { p, started, logged } = pool();
  try {
    const crash = p.read(word('crash'));
    const exit = p.read(word('exit'));
    const next = p.read(word('hello'));
    await rejectsWith(crash, 'qr_unreadable', /decoder failed/);
    await rejectsWith(exit, 'qr_unreadable', /decoder failed/);
    assert.equal(await next, 'read 5 bytes: hello');
    assert.equal(started.length, 3);
    assert.deepEqual(logged, [
      'error QR worker crashed while reading an image; starting a fresh one',
      'error QR worker crashed while reading an image; starting a fresh one',
    ]);
  } finally {
    await p.close();
  }
});

test('a worker still busy at the time limit is terminated (422); the next image gets a fresh worker', async () => {
  const { p, started, logged } = pool({ timeoutMs: 200 });
  try {
    const hang = p.read(word('hang'));
    const next = p.read(word('after'));
    await rejectsWith(hang, 'qr_unreadable', /stopped after 200 ms/);
    assert.equal(await next, 'read 5 bytes: after');
    assert.equal(started.length, 2);
    assert.deepEqual(logged, ['warn QR decoding ran out of time; worker terminated']);
  } finally {
    await p.close();
  }
});

test("the worker's answers: text, none, a client error with its details, a decoder fault", async () => {
  const { p, started } = pool();
  try {
    assert.equal(await p.read(word('abc')), 'read 3 bytes: abc');
    assert.equal(await p.read(word('none')), undefined);
    await assert.rejects(p.read(word('refuse')), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.deepEqual(err.toBody(), {
        error: {
          code: 'validation_error',
          message: 'not an image',
          details: [{ path: '/qrcode', message: 'x' }],
        },
      });
      return true;
    });
    await rejectsWith(p.read(word('fail')), 'qr_unreadable', /decoder failed/);
    assert.equal(started.length, 1, 'one worker read them all, in turn');
  } finally {
    await p.close();
  }
});

test('queue: workers + queue images are held, one more is refused at once with 503 and Retry-After', async () => {
  const { p } = pool({ workers: 2, queue: 1, timeoutMs: 1500 });
  try {
    const held = [p.read(word('hang')), p.read(word('hang')), p.read(word('hang'))];
    for (const h of held) h.catch(() => undefined);
    await assert.rejects(p.read(word('one more')), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.status, 503);
      assert.equal(err.code, 'qr_busy');
      assert.match(err.message, /2 being decoded and 1 waiting/);
      assert.deepEqual(err.headers, { 'retry-after': '2' });
      return true;
    });
  } finally {
    await p.close();
  }
});

test('QR_QUEUE 0: an image arriving while every worker is busy is refused', async () => {
  const { p } = pool({ workers: 1, queue: 0 });
  try {
    const first = p.read(word('hang'));
    first.catch(() => undefined);
    await rejectsWith(p.read(word('second')), 'qr_busy', /1 being decoded and 0 waiting/);
  } finally {
    await p.close();
  }
});

test("an image's bytes are handed to the worker, not copied; a view on a shared pool buffer is copied once", async () => {
  const { p } = pool();
  try {
    const own = Buffer.alloc(100_000, 0x61);
    assert.equal(own.buffer.byteLength, own.length);
    assert.equal(await p.read(own), 'read 100000 bytes: ' + 'a'.repeat(20));
    assert.equal(own.length, 0, 'transferred: the main thread no longer holds the bytes');
    const pooled = Buffer.from('pooled');
    assert.notEqual(pooled.buffer.byteLength, pooled.length);
    assert.equal(await p.read(pooled), 'read 6 bytes: pooled');
    assert.equal(pooled.toString(), 'pooled', 'the shared pool is left whole');
  } finally {
    await p.close();
  }
});

test('close refuses the image being read and those waiting, ends the workers, and refuses new images', async () => {
  const { p, started } = pool();
  const reading = p.read(word('hang'));
  const waiting = p.read(word('later'));
  for (const r of [reading, waiting]) r.catch(() => undefined);
  await new Promise((r) => setTimeout(r, 300));
  const exited = new Promise((r) => started[0]!.once('exit', r));
  await p.close();
  await exited;
  await rejectsWith(reading, 'qr_busy', /shutting down/);
  await rejectsWith(waiting, 'qr_busy', /shutting down/);
  await rejectsWith(p.read(word('new')), 'qr_busy', /shutting down/);
});
