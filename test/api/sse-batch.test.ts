/**
 * @runs-alone: it times the event loop, so scripts/run-tests.mjs runs it after the other files, by itself.
 * The SSE batcher (src/api/sse-batch.ts): the events an endpoint's streams receive within one turn go
 * to each stream in one write of one shared Buffer (a stream that joined mid-turn gets the part from
 * its first event on), batches keep their order, and writing to many streams is cut into slices of
 * about SLICE_MS so that other work runs in between (a fan-out of 100 streams costing 3 ms each was
 * one 300 ms stall).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SLICE_MS, SseBatcher } from '../../src/api/sse-batch.js';
import type { SseStream } from '../../src/api/sse.js';
import type { MockEvent } from '../../src/events/index.js';
import { until } from '../helpers/until.js';

/** A stream that records what it is sent, and costs `costMs` of the event loop per write. */
function fakeStream(costMs = 0): SseStream & { got: Buffer[] } {
  const got: Buffer[] = [];
  return {
    got,
    send: () => true,
    sendFrame(frame) {
      const end = performance.now() + costMs;
      while (performance.now() < end) {
        /* the kernel's copy of the frame into the socket */
      }
      got.push(frame);
      return true;
    },
    close: () => undefined,
    closed: false,
    onClose: () => undefined,
  };
}

const event = (i: number): MockEvent => ({ endpoint: 'ep', name: 'rule.updated', data: { i } });

void test('one write per stream per turn, of one shared Buffer; a stream that joined mid-turn gets its part; order kept', async () => {
  const b = new SseBatcher();
  const early = fakeStream();
  const late = fakeStream();
  const e1 = event(1);
  const e2 = event(2);
  b.deliver(early, e1);
  b.deliver(early, e2);
  b.deliver(late, e2);
  await until(() => b.stats().batches === 0 && early.got.length === 1 && late.got.length === 1);
  assert.equal(
    early.got[0]!.toString(),
    'event: rule.updated\ndata: {"i":1}\n\nevent: rule.updated\ndata: {"i":2}\n\n',
  );
  assert.equal(late.got[0]!.toString(), 'event: rule.updated\ndata: {"i":2}\n\n');
  assert.equal(late.got[0]!.buffer, early.got[0]!.buffer, 'a view of the same memory, not a copy');
  b.deliver(early, event(3));
  await until(() => early.got.length === 2);
  assert.match(early.got[1]!.toString(), /"i":3/);
});

void test(`writing to many streams yields every ~${SLICE_MS} ms: 100 streams of 3 ms each never hold the loop 60 ms`, async () => {
  const b = new SseBatcher();
  const streams = Array.from({ length: 100 }, () => fakeStream(3));
  let worstGap = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    worstGap = Math.max(worstGap, now - last - 2);
    last = now;
  }, 2);
  try {
    for (let i = 0; i < 2; i++) {
      const e = event(i);
      for (const s of streams) b.deliver(s, e);
      await new Promise((r) => setImmediate(r)); // two batches, from two turns
    }
    await until(() => b.stats().batches === 0, 10_000, 'the batches were written');
  } finally {
    clearInterval(ticker);
  }
  assert.ok(worstGap < 60, `the loop was held ${worstGap.toFixed(0)} ms at once`);
  for (const s of streams) {
    assert.equal(s.got.length, 2);
    assert.match(s.got[0]!.toString(), /"i":0/, 'the first batch first, on every stream');
    assert.match(s.got[1]!.toString(), /"i":1/);
  }
});
