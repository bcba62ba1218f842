/** The history worker thread: batches committed before `insert` resolves, failures reported, close drains. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../src/store/sqlite-driver.js';
import { openSqliteStore } from '../../src/store/index.js';
import { HistoryInsertWorker } from '../../src/store/history-worker-client.js';
import { entry } from '../helpers/history-fixtures.js';

type SqliteStore = Awaited<ReturnType<typeof openSqliteStore>>;

/** Runs `body` against a store on a new SQLite file (so with its history worker), then removes it. */
async function withFileStore(body: (store: SqliteStore) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mb-hw-'));
  try {
    const store = await openSqliteStore(join(dir, 'db.sqlite'));
    try {
      await body(store);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `body` with the file of a new SQLite database whose tables exist (no store open on it), then removes it. */
async function withTables(body: (file: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mb-hw-'));
  try {
    const file = join(dir, 'db.sqlite');
    await (await openSqliteStore(file)).close(); // creates the tables
    await body(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The ids of the `requests` rows in `file`. */
function storedRows(file: string): { id: string }[] {
  const db = openSqliteDatabase(file);
  try {
    return db.prepare('SELECT id FROM requests').all() as { id: string }[];
  } finally {
    db.close();
  }
}

test('entries inserted through the worker are readable once insert resolves, files included', () =>
  withFileStore(async (store) => {
    await store.createEndpoint({ name: 'w', createdAt: 1, settings: {} });
    const withFile = entry('w', {}, [
      {
        fieldName: 'doc',
        fileName: 'a.bin',
        contentType: 'application/octet-stream',
        size: 3,
        data: Buffer.from([0, 255, 7]),
      },
    ]);
    const batch = [withFile, ...Array.from({ length: 999 }, () => entry('w'))];
    await store.insertHistory(batch);
    assert.equal(await store.countHistory('w', {}), 1000);
    const file = await store.getHistoryFile('w', withFile.entry.id, 'doc');
    assert.deepEqual(file?.data, Buffer.from([0, 255, 7]), 'binary file contents survive the thread hop');
  }));

test('a worker that cannot write fails the batch with a clear error, and the next batch gets a new worker', () =>
  withTables(async (file) => {
    const worker = new HistoryInsertWorker(file);
    const row = entry('echo');
    // A NOT NULL column left null: SQLite refuses the row inside the worker.
    await assert.rejects(
      worker.insert([{ ...row, entry: { ...row.entry, method: null as unknown as string } }]),
      /history insert failed: .*NOT NULL/,
    );
    await worker.insert([row]);
    await worker.close();
    assert.deepEqual(storedRows(file), [{ id: row.entry.id }]);
  }));

test('a large batch goes over in parts; with a part missing (a worker that died between them) it fails whole, never written in part', (t) =>
  withTables(async (file) => {
    const worker = new HistoryInsertWorker(file);
    t.after(() => worker.close());
    const batch = Array.from({ length: 450 }, () => entry('echo'));
    const inserting = worker.insert(batch);
    // The first of the batch's four parts is posted at once; the next three are lost on the way.
    const thread = (worker as unknown as { worker: { postMessage(m: unknown): void } }).worker;
    const post = thread.postMessage.bind(thread);
    thread.postMessage = (m) => {
      if (!(typeof m === 'object' && m !== null && 'part' in m)) post(m);
    };
    await assert.rejects(inserting, /history insert failed: batch \d+: 1 of its 4 parts arrived/);
    assert.equal(storedRows(file).length, 0, 'nothing of the failed batch is written');
    // Written again (as the history writer retries it), the batch goes whole.
    thread.postMessage = post;
    await worker.insert(batch);
    await worker.close();
    assert.equal(storedRows(file).length, 450);
  }));

test('close() waits for a batch still being handed over in parts, which is written whole', () =>
  withTables(async (file) => {
    const worker = new HistoryInsertWorker(file);
    const inserting = worker.insert(Array.from({ length: 450 }, () => entry('echo')));
    await worker.close();
    await inserting;
    assert.equal(storedRows(file).length, 450);
  }));

test('a worker that cannot open the database rejects the batch instead of hanging', async () => {
  const worker = new HistoryInsertWorker(join(tmpdir(), 'mb-no-such-dir', 'x', 'db.sqlite'));
  await assert.rejects(worker.insert([]), /history worker|unable to open|directory/i);
  await worker.close();
});

test('bodies reach the database as they were: JSON, quotes, backslashes, new lines and non-ASCII text', () =>
  withFileStore(async (store) => {
    await store.createEndpoint({ name: 'b', createdAt: 1, settings: {} });
    const bodies = [
      ['', JSON.stringify({ headers: { 'x-a': 'say "hi"\\n' }, path: '/ü?q=✓' })],
      ['line one\nline "two"\t\\', ''],
      ['{"a":[1,2,{"b":null}]}', 'plain'],
    ];
    const batch = bodies.map(([requestBody, responseBody], i) =>
      entry('b', { createdAt: 1000 + i, requestBody, responseBody }),
    );
    await store.insertHistory(batch);
    const stored = (await store.listHistory('b', {}, 10)).data.reverse();
    assert.deepEqual(
      stored.map((e) => [e.requestBody, e.responseBody]),
      bodies,
    );
  }));
