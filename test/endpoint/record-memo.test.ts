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

test('ready gives what was built once it is built, nothing before or after a failure', async () => {
  const memo = new RecordMemo<string>();
  const ep = { name: 'shop', createdAt: 0, settings: {} };
  let finish!: (v: string) => void;
  const building = memo.get(ep, () => new Promise<string>((resolve) => (finish = resolve)));
  assert.equal(memo.ready(ep), undefined, 'ready before the build ended');
  finish('rules');
  await building;
  assert.equal(memo.ready(ep), 'rules');

  const failing = { ...ep };
  await assert.rejects(memo.get(failing, () => Promise.reject(new Error('store down'))));
  assert.equal(memo.ready(failing), undefined);
  assert.equal(memo.ready({ ...ep }), undefined, 'another record has nothing built');
});
