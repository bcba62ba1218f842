/** Request ids (src/http/request-id.ts): UUIDv7 that keep their order within a millisecond and past a clock step back. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { v7 } from 'uuid';
import { idFromParts, requestId } from '../../src/http/request-id.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string): number => parseInt(id.replace(/-/g, '').slice(0, 12), 16);

test('ids made in one millisecond, across pool refills, sort in the order they were made', () => {
  const t = Date.now() + 10_000; // later than any id made so far in this process
  const ids = Array.from({ length: 1000 }, () => requestId(t)); // four pool refills
  for (const id of ids) assert.match(id, V7);
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(msOf(ids[0]!), t);
});

test('a clock that steps back does not make an id sort before the previous one', () => {
  const t = Date.now() + 20_000;
  const a = requestId(t);
  const b = requestId(t - 5_000);
  assert.ok(b > a, `${b} sorts after ${a}`);
  const c = requestId(t + 1);
  assert.ok(c > b);
  assert.equal(msOf(c), t + 1, 'the id carries the new time once the clock moves on');
});

test('an id is laid out as the uuid package lays out a v7 with the same time, counter and random bytes', () => {
  const random = new Uint8Array(16);
  const counters = [0, 1, 0x3f, 0x40, 0xfffff, 0x7fffffff, -1, -0x80000000];
  const times = [0, 1, 0xffffffff, 0x1_0000_0000, Date.now(), 2 ** 48 - 1];
  for (let i = 0; i < 400; i++) {
    crypto.getRandomValues(random);
    const ms = i < times.length ? times[i]! : Math.floor(Math.random() * 2 ** 48);
    const seq = i < counters.length ? counters[i]! : (Math.random() * 2 ** 32) | 0;
    assert.equal(idFromParts(ms, seq, random), v7({ msecs: ms, seq, random }), `ms ${ms}, seq ${seq}`);
  }
});
