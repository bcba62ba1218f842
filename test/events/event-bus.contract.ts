/**
 * The behaviour every EventBus implementation shares (in memory, and Redis: event-bus.redis.test.ts): one suite, run
 * by a tiny file per implementation. Delivery may be asynchronous on a shared bus, so the suite waits
 * for events rather than assuming they arrive during publish().
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  EVENT_ID,
  idAfter,
  type EndpointChange,
  type EventBus,
  type MockEvent,
} from '../../src/events/index.js';
import { until } from '../helpers/until.js';

export interface EventBusContractOptions {
  /** A bus shared between instances cannot know whether anyone listens elsewhere: it answers true. */
  alwaysListening?: boolean;
  /** How long a listener must have listened before a resume from its events is served (ms). */
  resumableAfterMs?: number;
}

export function eventBusContract(
  name: string,
  make: () => EventBus | Promise<EventBus>,
  opts: EventBusContractOptions = {},
): void {
  void describe(`EventBus contract: ${name}`, () => {
    let seq = 0;
    const endpoint = () => `ep-${process.pid}-${++seq}`; // fresh names for a shared backend

    async function withBus(run: (bus: EventBus) => Promise<void>): Promise<void> {
      const bus = await make();
      try {
        await run(bus);
      } finally {
        await bus.close();
      }
    }

    void it("a subscriber gets its endpoint's events in publish order, and no other endpoint's", async () => {
      await withBus(async (bus) => {
        const ep = endpoint();
        const other = endpoint();
        const got: MockEvent[] = [];
        bus.subscribe(ep, (e) => got.push(e));
        bus.publish({ endpoint: other, name: 'rule.created', data: { id: 'x' } });
        for (let i = 0; i < 5; i++) bus.publish({ endpoint: ep, name: 'rule.updated', data: { i } });
        await until(() => got.length >= 5);
        assert.deepEqual(
          got.map((e) => [e.endpoint, e.name, e.data]),
          [0, 1, 2, 3, 4].map((i) => [ep, 'rule.updated', { i }]),
        );
      });
    });

    void it('every subscriber gets every event; unsubscribing stops delivery', async () => {
      await withBus(async (bus) => {
        const ep = endpoint();
        const a: unknown[] = [];
        const b: unknown[] = [];
        const offA = bus.subscribe(ep, (e) => a.push(e.data));
        bus.subscribe(ep, (e) => b.push(e.data));
        bus.publish({ endpoint: ep, name: 'rule.deleted', data: { id: '1' } });
        await until(() => a.length === 1 && b.length === 1);
        offA();
        bus.publish({ endpoint: ep, name: 'rule.deleted', data: { id: '2' } });
        await until(() => b.length === 2);
        await new Promise((r) => setTimeout(r, 20));
        assert.deepEqual(a, [{ id: '1' }]);
        assert.deepEqual(b, [{ id: '1' }, { id: '2' }]);
      });
    });

    void it('a throwing listener does not stop the others', async () => {
      await withBus(async (bus) => {
        const ep = endpoint();
        const got: unknown[] = [];
        bus.subscribe(ep, () => {
          throw new Error('broken dashboard');
        });
        bus.subscribe(ep, (e) => got.push(e.data));
        bus.publish({ endpoint: ep, name: 'settings.updated', data: 1 });
        await until(() => got.length === 1);
      });
    });

    void it('isListening is true while someone listens', async () => {
      await withBus(async (bus) => {
        const ep = endpoint();
        if (!opts.alwaysListening) assert.equal(bus.isListening(ep), false);
        const off = bus.subscribe(ep, () => undefined);
        assert.equal(bus.isListening(ep), true);
        off();
        if (!opts.alwaysListening) assert.equal(bus.isListening(ep), false);
      });
    });

    void it("a change reaches every change listener, and its notice the endpoint's subscribers", async () => {
      await withBus(async (bus) => {
        const ep = endpoint();
        const changes: EndpointChange[] = [];
        const events: MockEvent[] = [];
        const off = bus.subscribeChanges((c) => changes.push(c));
        bus.subscribeChanges(() => {
          throw new Error('broken listener');
        });
        bus.subscribe(ep, (e) => events.push(e));
        bus.publishChange({
          endpoint: ep,
          what: 'rules',
          notice: { name: 'rule.deleted', data: { id: '1' } },
        });
        bus.publishChange({ endpoint: ep, what: 'spec' });
        await until(() => changes.length === 2 && events.length === 1);
        assert.deepEqual(
          changes.map((c) => [c.endpoint, c.what]),
          [
            [ep, 'rules'],
            [ep, 'spec'],
          ],
        );
        assert.deepEqual(
          events.map((e) => [e.endpoint, e.name, e.data]),
          [[ep, 'rule.deleted', { id: '1' }]],
        );
        off();
        bus.publishChange({ endpoint: ep, what: 'state' });
        await new Promise((r) => setTimeout(r, 20));
        assert.equal(changes.length, 2, 'unsubscribed');
      });
    });

    void it('delivered events have ids, in increasing order', async () => {
      await withBus(async (bus) => {
        const ep = endpoint();
        const got: MockEvent[] = [];
        bus.subscribe(ep, (e) => got.push(e));
        for (let i = 0; i < 3; i++) bus.publish({ endpoint: ep, name: 'rule.created', data: { i } });
        bus.publishChange({ endpoint: ep, what: 'rules', notice: { name: 'rule.deleted', data: {} } });
        await until(() => got.length === 4);
        const ids = got.map((e) => e.id!);
        for (const id of ids) assert.match(id, EVENT_ID);
        for (let i = 1; i < ids.length; i++)
          assert.ok(idAfter(ids[i]!, ids[i - 1]!), `${ids[i]} after ${ids[i - 1]}`);
      });
    });

    void it('a resume from an event id gets the later events of its endpoint, exactly once', async () => {
      await withBus(async (bus) => {
        const ep = endpoint();
        const other = endpoint();
        const stays: MockEvent[] = [];
        bus.subscribe(ep, (e) => stays.push(e));
        bus.subscribe(other, () => undefined);
        await new Promise((r) => setTimeout(r, opts.resumableAfterMs ?? 0));
        const leaves: MockEvent[] = [];
        const off = bus.subscribe(ep, (e) => leaves.push(e));
        for (let i = 0; i < 3; i++) bus.publish({ endpoint: ep, name: 'rule.created', data: { i } });
        await until(() => leaves.length === 3);
        off();
        for (let i = 3; i < 6; i++) {
          bus.publish({ endpoint: ep, name: 'rule.created', data: { i } });
          bus.publish({ endpoint: other, name: 'rule.created', data: { i } });
        }
        await until(() => stays.length === 6);
        const r = await bus.replay(ep, leaves[2]!.id!);
        assert.equal(r.reset, false, JSON.stringify(r));
        assert.deepEqual(
          r.reset ? [] : r.events.map((e) => [e.endpoint, e.id, e.data]),
          stays.slice(3).map((e) => [ep, e.id, e.data]),
        );
        const latest = await bus.replay(ep, stays[5]!.id!);
        assert.deepEqual(latest, { reset: false, events: [] });
      });
    });

    void it('a resume from an id the bus never gave is a reset', async () => {
      await withBus(async (bus) => {
        const ep = endpoint();
        bus.subscribe(ep, () => undefined);
        for (const id of ['1-1', 'nonsense', '99999999999999-0'])
          assert.equal((await bus.replay(ep, id)).reset, true, id);
      });
    });

    void it('close() resolves and nothing is delivered after it', async () => {
      const bus = await make();
      const ep = endpoint();
      const got: unknown[] = [];
      bus.subscribe(ep, (e) => got.push(e.data));
      await bus.close();
      bus.publish({ endpoint: ep, name: 'rule.created', data: 1 });
      await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(got, []);
    });
  });
}
