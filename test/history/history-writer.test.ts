/**
 * The history writer's bounds (issue 11 item 1): memory held in bytes as well as entries, a write
 * never a copy of the whole queue, the oldest dropped and counted when the store cannot keep up,
 * each endpoint trimmed to its caps as entries arrive, and a close that says what it could not write.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HistoryWriter } from '../../src/history/index.js';
import type { NewHistoryEntry, Store } from '../../src/store/index.js';
import { entry } from '../helpers/history-fixtures.js';

const MB = 1024 * 1024;
const big = (endpoint = 'shop') => entry(endpoint, { requestBody: 'x'.repeat(MB) });

/** A store whose writes wait until released (a database that cannot keep up), recording each batch. */
function slowStore() {
  const batches: NewHistoryEntry[][] = [];
  const waiting: (() => void)[] = [];
  const trims: string[] = [];
  const store = {
    insertHistory(entries: NewHistoryEntry[]) {
      batches.push(entries);
      return new Promise<void>((resolve) => waiting.push(resolve));
    },
    trimHistory(endpoint: string) {
      trims.push(endpoint);
      return Promise.resolve({ entries: 0, bytes: 0, deleted: 0 });
    },
  } as unknown as Store;
  return {
    store,
    batches,
    trims,
    /** Lets every write under way finish. */
    release: () => {
      for (const r of waiting.splice(0)) r();
    },
  };
}

test('a store that cannot keep up: the queue stays within its bytes, the oldest go, every entry is counted', async () => {
  const s = slowStore();
  const w = new HistoryWriter(s.store, undefined, { maxQueuedBytes: 4 * MB, batchBytes: 2 * MB });
  const recorded = Array.from({ length: 20 }, () => big());
  for (const e of recorded) w.record(e);
  const st = w.stats();
  assert.ok(st.queuedBytes <= 4 * MB, `queued ${st.queuedBytes} bytes`);
  assert.ok(st.dropped >= 14, `dropped ${st.dropped}`);
  const inFlight = s.batches.flat().length;
  assert.equal(st.queued + st.dropped + inFlight, 20, 'every recorded entry is queued, written or dropped');
  // What stays queued is the newest.
  const flushed = w.flush();
  for (let i = 0; i < 10 && s.batches.flat().length < 20 - st.dropped; i++) {
    s.release();
    await new Promise((r) => setImmediate(r));
  }
  s.release();
  await flushed;
  const written = s.batches.flat();
  assert.deepEqual(
    written.slice(inFlight).map((e) => e.entry.id),
    recorded.slice(20 - st.queued).map((e) => e.entry.id),
  );
  assert.equal(w.stats().written, written.length);
  assert.equal(w.stats().written + w.stats().dropped, 20);
});

test('one write takes at most batchBytes (one entry at least), not the whole queue', async () => {
  const s = slowStore();
  const w = new HistoryWriter(s.store, undefined, { batchBytes: 2.5 * MB, intervalMs: 1 });
  for (let i = 0; i < 7; i++) w.record(big());
  const done = w.flush();
  while (s.batches.flat().length < 7) {
    s.release();
    await new Promise((r) => setImmediate(r));
  }
  s.release();
  await done;
  assert.ok(
    s.batches.every((b) => b.length <= 2),
    `batches of ${s.batches.map((b) => b.length).join(', ')}`,
  );
  assert.equal(w.stats().dropped, 0);
});

test('under load, entries that came in during a write gather into a fuller batch instead of being written at once', async () => {
  const s = slowStore();
  const w = new HistoryWriter(s.store, undefined, { batchSize: 5, intervalMs: 40 });
  const tick = () => new Promise((r) => setImmediate(r));
  w.record(entry('shop'));
  await new Promise((r) => setTimeout(r, 60)); // the lone entry's wait
  assert.deepEqual(
    s.batches.map((b) => b.length),
    [1],
  );
  // Three arrive while that write is under way; when it is done they wait, short of a batch.
  for (let i = 0; i < 3; i++) w.record(entry('shop'));
  s.release();
  for (let i = 0; i < 5; i++) await tick();
  assert.deepEqual(
    s.batches.map((b) => b.length),
    [1],
    'no write of the three at once',
  );
  // A full batch goes at once.
  for (let i = 0; i < 2; i++) w.record(entry('shop'));
  await tick();
  assert.deepEqual(
    s.batches.map((b) => b.length),
    [1, 5],
  );
  // What is short of a batch goes when its wait is over...
  w.record(entry('shop'));
  s.release();
  for (let i = 0; i < 5; i++) await tick();
  assert.deepEqual(
    s.batches.map((b) => b.length),
    [1, 5],
  );
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(
    s.batches.map((b) => b.length),
    [1, 5, 1],
  );
  // ...or at once for a reader that flushes.
  w.record(entry('shop'));
  const flushed = w.flush();
  s.release();
  for (let i = 0; i < 5; i++) await tick();
  assert.deepEqual(
    s.batches.map((b) => b.length),
    [1, 5, 1, 1],
  );
  s.release();
  await flushed;
  assert.equal(w.stats().written, 8);
});

test('the entry-count bound drops the oldest too', () => {
  const s = slowStore();
  const w = new HistoryWriter(s.store, undefined, { maxQueued: 100 });
  for (let i = 0; i < 1000; i++) w.record(entry('shop'));
  const inFlight = s.batches.flat().length;
  assert.equal(w.stats().queued, 100);
  assert.equal(w.stats().dropped, 1000 - 100 - inFlight);
});

test('flush during a flood resolves once the entries queued before it are written', async () => {
  let writes = 0;
  const store = {
    insertHistory: async () => {
      writes++;
      await new Promise((r) => setTimeout(r, 2));
    },
  } as unknown as Store;
  const w = new HistoryWriter(store, undefined, { batchSize: 10 });
  for (let i = 0; i < 30; i++) w.record(entry('shop'));
  let flood = true;
  const feed = setInterval(() => {
    for (let i = 0; i < 20 && flood; i++) w.record(entry('shop'));
  }, 1);
  try {
    await w.flush();
    assert.ok(w.stats().written >= 30, `written ${w.stats().written}`);
  } finally {
    flood = false;
    clearInterval(feed);
  }
  await w.close();
  assert.ok(writes > 0);
});

/** A store of one endpoint's entry count that trims it as asked, recording each trim's endpoint and cap. */
function countingStore() {
  const trims: { endpoint: string; maxEntries: number }[] = [];
  const state = { stored: 0 };
  const store = {
    insertHistory: (entries: NewHistoryEntry[]) => {
      state.stored += entries.length;
      return Promise.resolve();
    },
    trimHistory: (endpoint: string, caps: { maxEntries: number }) => {
      trims.push({ endpoint, maxEntries: caps.maxEntries });
      const deleted = Math.max(0, state.stored - caps.maxEntries);
      state.stored -= deleted;
      return Promise.resolve({ entries: state.stored, bytes: 0, deleted });
    },
  } as unknown as Store;
  return { store, trims, state };
}

test('entries past an endpoint cap are trimmed after the write that brought them, not hours later', async () => {
  const { store, trims, state } = countingStore();
  const trimmed = () => trims.map((t) => t.endpoint);
  const w = new HistoryWriter(store, undefined, { perEndpoint: { maxEntries: 5, maxBytes: 1e9 } });
  for (let i = 0; i < 3; i++) w.record(entry('shop'));
  await w.flush();
  assert.deepEqual(trimmed(), ['shop'], 'measured once, at its first write');
  for (let i = 0; i < 2; i++) w.record(entry('shop'));
  await w.flush();
  assert.deepEqual(trimmed(), ['shop'], 'within its caps: no query');
  for (let i = 0; i < 4; i++) w.record(entry('shop'));
  await w.flush();
  assert.deepEqual(trimmed(), ['shop', 'shop']);
  assert.equal(state.stored, 5);
  assert.equal(w.stats().trimmed, 4);
});

test('an endpoint at its cap is trimmed 1 % below it, so that a steady load measures it once per hundredth of the cap', async () => {
  const { store, trims, state } = countingStore();
  const measures = () => trims.map((t) => t.maxEntries);
  const w = new HistoryWriter(store, undefined, { perEndpoint: { maxEntries: 1000, maxBytes: 1e9 } });
  const write = async (n: number) => {
    for (let i = 0; i < n; i++) w.record(entry('shop'));
    await w.flush();
  };
  await write(1000);
  assert.deepEqual(measures(), [1000], 'the first measure trims to the cap only');
  assert.equal(state.stored, 1000);
  await write(5);
  assert.deepEqual(measures(), [1000, 990], 'past the cap: down to the low-water mark');
  assert.equal(state.stored, 990);
  for (let i = 0; i < 10; i++) await write(1);
  assert.deepEqual(measures(), [1000, 990], 'ten more batches within the cap: no query');
  await write(1);
  assert.deepEqual(measures(), [1000, 990, 990]);
  assert.equal(state.stored, 990);
});

test('the cap hands the store its estimate between counts, and asks for a count a minute after the last, after a removal the store reports, and after a failed write', async () => {
  const calls: { estimate: { entries: number; removals: number } | undefined }[] = [];
  const state = { stored: 0, removals: 0, failNext: false };
  const seen = new Set<string>();
  const store = {
    insertHistory: (entries: NewHistoryEntry[]) => {
      // Entries written before are skipped, as the real insert does.
      for (const e of entries) if (!seen.has(e.entry.id)) state.stored += seen.add(e.entry.id) && 1;
      if (state.failNext) {
        // Written, but the acknowledgement is lost: the writer will write the batch again.
        state.failNext = false;
        return Promise.reject(new Error('acknowledgement lost'));
      }
      return Promise.resolve();
    },
    trimHistory: (
      _endpoint: string,
      caps: { maxEntries: number },
      estimate?: { entries: number; removals: number },
    ) => {
      calls.push({ estimate: estimate && { entries: estimate.entries, removals: estimate.removals } });
      const taken = estimate?.removals === state.removals;
      const deleted = Math.max(0, (taken ? estimate.entries : state.stored) - caps.maxEntries);
      state.stored -= deleted;
      return Promise.resolve({
        entries: taken ? estimate.entries - deleted : state.stored,
        bytes: 0,
        deleted,
        removals: state.removals,
        ...(taken && { estimated: true }),
      });
    },
  } as unknown as Store;
  let now = 0;
  const w = new HistoryWriter(store, undefined, {
    perEndpoint: { maxEntries: 1000, maxBytes: 1e9 },
    now: () => now,
  });
  const write = async (n: number) => {
    for (let i = 0; i < n; i++) w.record(entry('shop'));
    await w.flush();
  };
  const last = () => calls[calls.length - 1]!.estimate;
  await write(1000);
  assert.equal(last(), undefined, 'the first trim counts');
  await write(20);
  assert.deepEqual(last(), { entries: 1020, removals: 0 }, 'past the cap: the count plus what came since');
  assert.equal(state.stored, 990);
  now += 30_000;
  await write(20);
  assert.deepEqual(last(), { entries: 1010, removals: 0 }, 'an estimated trim continues the estimate');
  now += 31_000;
  await write(20);
  assert.equal(last(), undefined, 'a minute after the last count: counted again, estimated trims or not');
  await write(20);
  assert.deepEqual(last(), { entries: 1020, removals: 0 });
  state.removals++;
  state.stored -= 500;
  const before = calls.length;
  await write(20);
  assert.equal(calls.length, before + 1);
  assert.equal(state.stored, 510, 'the stale estimate (1010) was not used: nothing went');
  state.failNext = true;
  const beforeFailure = calls.length;
  for (let i = 0; i < 600; i++) w.record(entry('shop'));
  await w.flush(); // returns at the failure
  now += 2000; // past the writer's pause after a failure (its timer is real: about a second)
  for (let i = 0; i < 50 && calls.length === beforeFailure; i++) await new Promise((r) => setTimeout(r, 100));
  await w.flush();
  assert.equal(
    calls[beforeFailure]!.estimate,
    undefined,
    'after a failed write the cap counts: the batch may have been stored the first time',
  );
  assert.ok(state.stored <= 1000, `${state.stored} stored`);
  await w.close();
});

test('close() retries a failing store, then reports (and logs) how many entries are lost', async () => {
  const lines: unknown[][] = [];
  const log = { error: (...a: unknown[]) => lines.push(a) } as never;
  const store = { insertHistory: () => Promise.reject(new Error('SQLITE_FULL: database or disk is full')) };
  const w = new HistoryWriter(store as unknown as Store, log);
  for (let i = 0; i < 7; i++) w.record(entry('shop'));
  assert.equal(await w.close(), 7);
  assert.ok(
    lines.some(
      ([obj, msg]) =>
        (obj as { lost?: number }).lost === 7 && /7 answered requests .* lost/.test(String(msg)),
    ),
    JSON.stringify(lines.map((l) => l[1])),
  );
});

/** An error as a driver raises it, with its code. */
const coded = (code: string, message: string) => Object.assign(new Error(message), { code });

test('an entry whose value the store refuses is dropped and logged; the rest of its batch and the queue behind it are written', async () => {
  const lines: unknown[][] = [];
  const log = { error: (...a: unknown[]) => lines.push(a) } as never;
  const stored: string[] = [];
  const store = {
    insertHistory: (entries: NewHistoryEntry[]) => {
      // PostgreSQL refuses the whole statement when one row holds U+0000 (22021).
      if (entries.some((e) => e.entry.path === '/bad'))
        return Promise.reject(coded('22021', 'invalid byte sequence for encoding "UTF8": 0x00'));
      stored.push(...entries.map((e) => e.entry.path));
      return Promise.resolve();
    },
  } as unknown as Store;
  const w = new HistoryWriter(store, log, { batchSize: 3 });
  for (const path of ['/a', '/bad', '/b', '/c', '/d']) w.record(entry('shop', { path }));
  await w.flush();
  await w.flush();
  assert.deepEqual(stored, ['/a', '/b', '/c', '/d']);
  assert.equal(w.stats().written, 4);
  assert.equal(w.stats().dropped, 1);
  assert.equal(w.stats().queued, 0);
  assert.ok(
    lines.some(
      ([obj, msg]) => (obj as { endpoint?: string }).endpoint === 'shop' && /refused/.test(String(msg)),
    ),
    JSON.stringify(lines.map((l) => l[1])),
  );
  assert.equal(await w.close(), 0);
});

test('a store that goes away while a refused batch is written entry by entry keeps the rest queued, not dropped', async () => {
  const stored: string[] = [];
  let away = false;
  const store = {
    insertHistory: (entries: NewHistoryEntry[]) => {
      if (away) return Promise.reject(coded('57P01', 'terminating connection due to administrator command'));
      if (entries.some((e) => e.entry.path === '/bad')) {
        // The first write alone goes; then the server shuts down.
        if (entries.length === 1) away = true;
        return Promise.reject(coded('22021', 'invalid byte sequence for encoding "UTF8": 0x00'));
      }
      stored.push(...entries.map((e) => e.entry.path));
      return Promise.resolve();
    },
  } as unknown as Store;
  const w = new HistoryWriter(store, undefined, { batchSize: 10 });
  for (const path of ['/a', '/bad', '/b']) w.record(entry('shop', { path }));
  await w.flush();
  assert.deepEqual(stored, ['/a'], 'written alone before the refused one');
  assert.equal(w.stats().dropped, 1, 'the refused entry');
  assert.equal(w.stats().queued, 1, '/b waits for the store to come back');
  away = false;
  await w.flush();
  assert.deepEqual(stored, ['/a', '/b']);
  assert.equal(w.stats().dropped, 1);
});
