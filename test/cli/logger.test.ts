/** The log output (src/logger.ts): lines gathered per event-loop turn, nothing lost at shutdown. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { LineBatcher } from '../../src/logger.js';

function sink(): { writes: string[]; synced: number; write(s: string): void; flushSync(): void } {
  return {
    writes: [],
    synced: 0,
    write(s: string) {
      this.writes.push(s);
    },
    flushSync() {
      this.synced++;
    },
  };
}

test('lines written in one turn reach the output as one write, in order', async () => {
  const out = sink();
  const b = new LineBatcher(out);
  b.write('a\n');
  b.write('b\n');
  assert.deepEqual(out.writes, [], 'held until the turn ends');
  await turn();
  assert.deepEqual(out.writes, ['a\nb\n']);
  b.write('c\n');
  await turn();
  assert.deepEqual(out.writes, ['a\nb\n', 'c\n']);
});

test('a turn that writes a lot hands it over every 16 KiB', () => {
  const out = sink();
  const b = new LineBatcher(out);
  const line = 'x'.repeat(1023) + '\n';
  for (let i = 0; i < 40; i++) b.write(line);
  assert.equal(out.writes.length, 2);
  assert.equal(out.writes[0], line.repeat(16));
  b.flushSync();
  assert.equal(out.writes.join(''), line.repeat(40), 'nothing lost, nothing repeated');
});

test('flushSync writes what is pending and syncs the output (shutdown)', () => {
  const out = sink();
  const b = new LineBatcher(out);
  b.write('last words\n');
  b.flushSync();
  assert.deepEqual(out.writes, ['last words\n']);
  assert.equal(out.synced, 1);
});
