/**
 * Resuming on one instance (the in-memory bus): what it keeps, and when it must answer `reset`
 * instead of a replay that would silently miss events.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryEventBus, type MockEvent } from '../../src/events/index.js';

function listen(bus: MemoryEventBus, ep: string): { got: MockEvent[]; off: () => void } {
  const got: MockEvent[] = [];
  return { got, off: bus.subscribe(ep, (e) => got.push(e)) };
}

const publish = (bus: MemoryEventBus, ep: string, n: number): void => {
  for (let i = 0; i < n; i++) bus.publish({ endpoint: ep, name: 'rule.created', data: { i } });
};

void test('an event built while nobody listened makes a resume from before it a reset', async () => {
  const bus = new MemoryEventBus();
  const a = listen(bus, 'shop');
  publish(bus, 'shop', 2);
  a.off();
  // Nobody listens: a publisher asks first and skips building the event.
  assert.equal(bus.isListening('shop'), false);
  const back = listen(bus, 'shop');
  const r = await bus.replay('shop', a.got[1]!.id!);
  assert.equal(r.reset, true);
  back.off();
});

void test('a gap without any event of the endpoint resumes with nothing to replay', async () => {
  const bus = new MemoryEventBus();
  const a = listen(bus, 'shop');
  publish(bus, 'shop', 2);
  a.off();
  publish(bus, 'other', 3); // nobody listens to other: not kept, not a skip of shop
  listen(bus, 'shop');
  assert.deepEqual(await bus.replay('shop', a.got[1]!.id!), { reset: false, events: [] });
});

void test('an event published to nobody makes a resume from before it a reset', async () => {
  const bus = new MemoryEventBus();
  const a = listen(bus, 'shop');
  publish(bus, 'shop', 1);
  a.off();
  publish(bus, 'shop', 1);
  listen(bus, 'shop');
  assert.equal((await bus.replay('shop', a.got[0]!.id!)).reset, true);
});

void test('ids older than the events kept (EVENT_STREAM_LENGTH) are a reset; the reset says where to resume', async () => {
  const bus = new MemoryEventBus({ length: 10 });
  const keep = listen(bus, 'shop');
  publish(bus, 'shop', 15);
  const ids = keep.got.map((e) => e.id!);
  // Kept: events 6…15. From 5 on, every later event is there; from 4, event 5 is gone.
  assert.equal((await bus.replay('shop', ids[4]!)).reset, false);
  const r = await bus.replay('shop', ids[3]!);
  assert.deepEqual(r, { reset: true, id: ids[14], reason: 'older than the events kept' });
});

void test("a server's ids mean nothing to the next one (restart): reset", async () => {
  const before = new MemoryEventBus({ now: () => 1000 });
  const a = listen(before, 'shop');
  publish(before, 'shop', 3);
  const after = new MemoryEventBus({ now: () => 2000 });
  const b = listen(after, 'shop');
  publish(after, 'shop', 5);
  assert.equal((await after.replay('shop', a.got[0]!.id!)).reset, true);
  b.off();
});

for (const [missed, reset] of [
  [4, false],
  [5, false],
  [6, true],
] as const) {
  void test(`EVENT_REPLAY_MAX 5: ${missed} events missed → ${reset ? 'reset' : 'replayed'}`, async () => {
    const bus = new MemoryEventBus({ replayMax: 5 });
    const stays = listen(bus, 'shop');
    publish(bus, 'shop', 1);
    publish(bus, 'shop', missed);
    const r = await bus.replay('shop', stays.got[0]!.id!);
    assert.equal(r.reset, reset);
    if (!r.reset) assert.equal(r.events.length, missed);
  });
}
