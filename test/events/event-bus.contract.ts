/**
 * The behaviour every EventBus implementation shares (in-memory today, Redis to come): one suite, run
 * by a tiny file per implementation. Delivery may be asynchronous on a shared bus, so the suite waits
 * for events rather than assuming they arrive during publish().
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EndpointChange, EventBus, MockEvent } from '../../src/events/index.js';
import { until } from '../helpers/until.js';

export interface EventBusContractOptions {
  /** A bus shared between instances cannot know whether anyone listens elsewhere: it answers true. */
  alwaysListening?: boolean;
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
