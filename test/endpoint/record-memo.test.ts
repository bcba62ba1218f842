/** RecordMemo: compiled state kept per cached endpoint record, built once, built again after a failure. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RecordMemo } from '../../src/endpoint/index.js';

test('one build per record; a failed build is forgotten and retried; a new record builds afresh', async () => {
  const memo = new RecordMemo<number>();
  const ep = { name: 'shop', createdAt: 0, settings: {} };
  let builds = 0;
  const ok = () => Promise.resolve(++builds);
  assert.equal(await memo.get(ep, ok), 1);
  assert.equal(await memo.get(ep, ok), 1, 'kept for the same record');

  const other = { ...ep };
  await assert.rejects(
    memo.get(other, () => Promise.reject(new Error('store down'))),
    /store down/,
  );
  assert.equal(await memo.get(other, ok), 2, 'the failure was not kept');
  assert.equal(await memo.get(other, ok), 2);
});
