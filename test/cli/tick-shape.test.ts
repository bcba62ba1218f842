import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keptTickObject } from '../../src/tick-shape.js';

const tick = (): Promise<void> => new Promise((resolve) => process.nextTick(resolve));

void describe('tick-shape', () => {
  void it("keeps one of Node's tick objects alive, the same one for good", async () => {
    await tick();
    const kept = keptTickObject();
    assert.ok(kept !== undefined, 'no tick object kept after a tick');
    // A tick object: its callback, and the async ids under Node's two symbols.
    assert.equal(typeof (kept as { callback?: unknown }).callback, 'function');
    const symbols = Object.getOwnPropertySymbols(kept).map(String);
    assert.ok(symbols.includes('Symbol(async_id_symbol)'), symbols.join());
    await tick();
    assert.equal(keptTickObject(), kept);
  });
});
