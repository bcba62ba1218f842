/**
 * History benchmark: loads 1,000,000 entries into one endpoint (the worst case: every query of that
 * endpoint sees them all) and times the Store calls behind the history API: list pages, counts and
 * filtered deletes, against the targets list page < 100 ms and filtered delete < 1 s.
 *
 *   node --import tsx bench/history.ts                   SQLite in a temporary directory
 *   DATABASE_URL=postgres://… node --import tsx bench/history.ts   also PostgreSQL, in a database
 *                                                         `mb_bench_<pid>` created and dropped here
 * HISTORY_BENCH_ROWS=100000 runs a smaller load.
 *
 * Loading bypasses the Store (prepared statements in one SQLite transaction; `unnest` arrays on
 * PostgreSQL); everything timed goes through the Store, as the API does.
 *
 * A delete answers once the entries are hidden (gone from every read); the rows are then removed by
 * the server's background purge. Both are timed: the delete against the target, the purge as info.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { openSqliteDatabase } from '../src/store/sqlite-driver.js';
import pg from 'pg';
import { openPostgresStore, openSqliteStore, type HistoryFilter, type Store } from '../src/store/index.js';

const ROWS = Number(process.env['HISTORY_BENCH_ROWS'] ?? 1_000_000);
const BATCH = 10_000;
const ENDPOINT = 'bench';
const DAY = 86_400_000;
const NOW = Date.now();
/** Entries are spread evenly over the last ten days (the default retention). */
const SPAN = 10 * DAY;

const LIST_TARGET_MS = 100;
const DELETE_TARGET_MS = 1000;
/** Entries per purge transaction, as the server's purge job (src/history/purge.ts). */
const PURGE_CHUNK = 500;

/** Deterministic pseudo-random numbers (mulberry32), so that both databases get the same data. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const METHODS = ['GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'POST', 'POST', 'PUT', 'DELETE'];
const BEHAVIORS = ['mock-rule', 'mock-rule', 'mock-rule', 'default', 'proxy', 'echo'];
/** 65 % 200, 10 % 201, 10 % 404, 10 % 500, 4.9 % 502, 0.1 % 503. */
function status(r: number): number {
  return r < 0.65 ? 200 : r < 0.75 ? 201 : r < 0.85 ? 404 : r < 0.95 ? 500 : r < 0.999 ? 502 : 503;
}

type Row = [
  string, // id
  string, // endpoint
  number, // created_at
  string, // method
  string, // path
  string, // ip
  number, // status
  string, // behavior
  number, // rule_matched
  string | null, // rule_id
  number, // duration_ms
  string, // request_headers
  string, // request_body
  number, // request_body_truncated
  string, // response_headers
  string, // response_body
  number, // response_body_truncated
  string, // files
  string, // problems
];

/** A UUIDv7 from the seeded generator: time-ordered, as the server makes them (src/http/capture.ts). */
function uuid(ms: number, rand: () => number): string {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
  const t = ms.toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8)}-7${hex(3)}-8${hex(3)}-${hex(12)}`;
}

const COLUMNS =
  'id, endpoint, created_at, method, path, ip, status, behavior, rule_matched, rule_id, duration_ms, ' +
  'request_headers, request_body, request_body_truncated, response_headers, response_body, ' +
  'response_body_truncated, files, problems';

/** Rows `from`..`from+count`, oldest first; about 0.1 % carry an uploaded file. */
function makeRows(from: number, count: number, rand: () => number): { rows: Row[]; files: number[] } {
  const rows: Row[] = [];
  const files: number[] = [];
  for (let i = from; i < from + count; i++) {
    const method = METHODS[Math.floor(rand() * METHODS.length)]!;
    const behavior = BEHAVIORS[Math.floor(rand() * BEHAVIORS.length)]!;
    const n = Math.floor(rand() * 100_000);
    const path = rand() < 0.5 ? `/api/users/${n}` : `/api/orders/${n}?page=${n % 7}`;
    const hasBody = method !== 'GET' && method !== 'DELETE';
    const matched = behavior === 'mock-rule';
    const withFile = rand() < 0.001;
    if (withFile) files.push(i);
    const createdAt = NOW - SPAN + Math.floor((i * SPAN) / ROWS);
    rows.push([
      uuid(createdAt, rand),
      ENDPOINT,
      createdAt,
      method,
      path,
      `10.0.${n % 256}.${i % 256}`,
      status(rand()),
      behavior,
      matched ? 1 : 0,
      matched ? `rule-${n % 20}` : null,
      Math.round(rand() * 5000) / 100,
      JSON.stringify({
        host: 'bench.localhost:8080',
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) bench/1.0',
        accept: 'application/json',
        'accept-encoding': 'gzip, deflate, br',
        'x-request-id': `req-${i}`,
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
      }),
      hasBody
        ? JSON.stringify({ name: `user ${n}`, email: `user${n}@example.com`, tags: ['a', 'b'], n })
        : '',
      0,
      JSON.stringify({ 'content-type': 'application/json; charset=utf-8', 'x-mock': 'mockingbird' }),
      JSON.stringify({ id: n, status: 'ok', items: [n, n + 1, n + 2], note: `response for ${path}` }),
      0,
      withFile
        ? JSON.stringify([{ name: 'doc', fileName: 'a.bin', contentType: 'application/pdf', size: 1024 }])
        : '[]',
      '[]',
    ]);
  }
  return { rows, files };
}

const FILE = Buffer.alloc(1024, 7);

async function loadSqlite(file: string): Promise<void> {
  const db = openSqliteDatabase(file);
  // Loading only: a small cache makes the indexes crawl.
  db.pragma('cache_size = -262144');
  const insert = db.prepare(
    `INSERT INTO requests (${COLUMNS}) VALUES (${COLUMNS.split(',')
      .map(() => '?')
      .join(', ')})`,
  );
  const insertFile = db.prepare(
    'INSERT INTO request_files (request_id, endpoint, field_name, file_name, content_type, size, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const rand = rng(42);
  const tx = db.transaction((rows: Row[], files: Row[]) => {
    for (const r of rows) insert.run(...r);
    for (const r of files)
      insertFile.run(r[0], ENDPOINT, 'doc', 'a.bin', 'application/pdf', FILE.length, FILE);
  });
  for (let from = 0; from < ROWS; from += BATCH) {
    const { rows, files } = makeRows(from, Math.min(BATCH, ROWS - from), rand);
    tx(
      rows,
      files.map((i) => rows[i - from]!),
    );
  }
  db.close();
}

const PG_TYPES = [
  'text',
  'text',
  'bigint',
  'text',
  'text',
  'text',
  'integer',
  'text',
  'integer',
  'text',
  'double precision',
  'text',
  'text',
  'integer',
  'text',
  'text',
  'integer',
  'text',
  'text',
];

async function loadPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const rand = rng(42);
  const select = PG_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ');
  try {
    for (let from = 0; from < ROWS; from += BATCH) {
      const { rows, files } = makeRows(from, Math.min(BATCH, ROWS - from), rand);
      // One statement per batch: each column travels as one array.
      const columns = PG_TYPES.map((_, c) => rows.map((r) => r[c]));
      await client.query(`INSERT INTO requests (${COLUMNS}) SELECT * FROM unnest(${select})`, columns);
      for (const i of files) {
        await client.query(
          'INSERT INTO request_files (request_id, endpoint, field_name, file_name, content_type, size, data) VALUES ($1, $2, $3, $4, $5, $6, $7)',
          [rows[i - from]![0], ENDPOINT, 'doc', 'a.bin', 'application/pdf', FILE.length, FILE],
        );
      }
    }
    // What autovacuum does after a load this size: statistics for the planner, and hint bits set
    // once (else the first statement to read each page pays for writing it back).
    await client.query('VACUUM ANALYZE requests');
    await client.query('VACUUM ANALYZE request_files');
  } finally {
    await client.end();
  }
}

interface Result {
  label: string;
  ms: number;
  target?: number;
  note?: string;
}

function print(db: string, r: Result): boolean {
  const verdict =
    r.target === undefined ? '' : r.ms < r.target ? `PASS (< ${r.target} ms)` : `FAIL (>= ${r.target} ms)`;
  const ms = r.ms < 10 ? r.ms.toFixed(2) : r.ms.toFixed(0);
  console.log(
    `${db.padEnd(8)} ${r.label.padEnd(52)} ${ms.padStart(9)} ms  ${verdict}${r.note ? '  ' + r.note : ''}`,
  );
  return r.target === undefined || r.ms < r.target;
}

async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

/** Median of five runs (the first one cold) of a read. */
async function median(fn: () => Promise<unknown>): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) runs.push((await time(fn)).ms);
  runs.sort((a, b) => a - b);
  return runs[2]!;
}

/** Runs the timed operations on a loaded store; returns whether every target was met. */
async function measure(db: string, store: Store): Promise<boolean> {
  let ok = true;
  const list = (filter: HistoryFilter, cursor?: string) => store.listHistory(ENDPOINT, filter, 20, cursor);
  const pageOf = async (filter: HistoryFilter, n: number): Promise<string | undefined> => {
    let cursor: string | undefined;
    for (let i = 1; i < n; i++) cursor = (await list(filter, cursor)).cursor ?? undefined;
    return cursor;
  };

  ok =
    print(db, {
      label: 'list newest page (limit 20)',
      ms: await median(() => list({})),
      target: LIST_TARGET_MS,
    }) && ok;
  const s500: HistoryFilter = { status: 500 };
  ok =
    print(db, {
      label: 'list status=500 (limit 20)',
      ms: await median(() => list(s500)),
      target: LIST_TARGET_MS,
    }) && ok;
  const c5 = await pageOf(s500, 5);
  ok =
    print(db, {
      label: 'list status=500, 5th page by cursor',
      ms: await median(() => list(s500, c5)),
      target: LIST_TARGET_MS,
    }) && ok;
  const rare: HistoryFilter = { status: 503 };
  ok =
    print(db, {
      label: 'list status=503 (0.1 % of entries)',
      ms: await median(() => list(rare)),
      target: LIST_TARGET_MS,
    }) && ok;
  const combo: HistoryFilter = { method: 'POST', status: 201, behavior: 'mock-rule', ruleMatched: true };
  ok =
    print(db, {
      label: 'list method+status+behavior+ruleMatched (AND)',
      ms: await median(() => list(combo)),
      target: LIST_TARGET_MS,
    }) && ok;
  const regex: HistoryFilter = { path: { regex: '^/api/orders/[0-9]+\\?page=3$' } };
  ok =
    print(db, {
      label: 'list path regex (limit 20)',
      ms: await median(() => list(regex)),
      target: LIST_TARGET_MS,
    }) && ok;
  const dayAgo: HistoryFilter = { dateFrom: NOW - 5 * DAY, dateTo: NOW - 4 * DAY, status: 502 };
  ok =
    print(db, {
      label: 'list dateFrom..dateTo + status=502',
      ms: await median(() => list(dayAgo)),
      target: LIST_TARGET_MS,
    }) && ok;
  // A substring that no entry holds: the whole endpoint is read; no index serves a substring.
  print(db, {
    label: 'list responseBody substring, no match (full scan)',
    ms: await median(() => list({ responseBody: 'no-such-text' })),
    note: 'info: scans every entry',
  });

  const all = await time(() => store.countHistory(ENDPOINT, {}));
  print(db, { label: 'count all', ms: all.ms, note: `info: ${all.value} entries` });
  const c = await time(() => store.countHistory(ENDPOINT, s500));
  print(db, { label: 'count status=500', ms: c.ms, note: `info: ${c.value}` });

  const d1 = await time(() => store.deleteHistory(ENDPOINT, { status: 404 }));
  ok =
    print(db, {
      label: 'delete status=404 (~10 %, scattered)',
      ms: d1.ms,
      target: DELETE_TARGET_MS,
      note: `${d1.value} deleted`,
    }) && ok;
  const d2 = await time(() =>
    store.deleteHistory(ENDPOINT, { dateFrom: NOW - 3 * DAY, dateTo: NOW - 2 * DAY }),
  );
  ok =
    print(db, {
      label: 'delete one day by dateFrom..dateTo (~10 %)',
      ms: d2.ms,
      target: DELETE_TARGET_MS,
      note: `${d2.value} deleted`,
    }) && ok;
  // The deletes hid their entries; until the background purge has run, every read skips them.
  ok =
    print(db, {
      label: 'list status=500, purge pending',
      ms: await median(() => list(s500)),
      target: LIST_TARGET_MS,
    }) && ok;
  const pendingCount = await time(() => store.countHistory(ENDPOINT, {}));
  print(db, { label: 'count all, purge pending', ms: pendingCount.ms, note: `info: ${pendingCount.value}` });

  // What the server's purge job does after a delete: 500 entries per transaction until none are left.
  let purged = 0;
  let longest = 0;
  const purge = await time(async () => {
    for (;;) {
      const step = await time(() => store.purgeHistory(PURGE_CHUNK));
      purged += step.value;
      longest = Math.max(longest, step.ms);
      if (step.value < PURGE_CHUNK) break;
    }
  });
  print(db, {
    label: 'background purge of the deleted entries',
    ms: purge.ms,
    note: `info: ${purged} entries, longest transaction ${longest.toFixed(0)} ms`,
  });
  ok =
    print(db, {
      label: 'list status=500 after the purge',
      ms: await median(() => list(s500)),
      target: LIST_TARGET_MS,
    }) && ok;

  // The hourly retention pass, here over the two oldest days (~20 %): it deletes in chunks and
  // yields between them, so the longest the event loop waits is one chunk, not the whole pass.
  const stalls = monitorEventLoopDelay({ resolution: 5 });
  stalls.enable();
  await new Promise((r) => setTimeout(r, 20)); // the monitor records from its first interval on
  const retention = await time(() => store.pruneHistory(NOW - 8 * DAY, Number.MAX_SAFE_INTEGER));
  await new Promise((r) => setTimeout(r, 20)); // the monitor's timer records a stall when it fires late
  stalls.disable();
  print(db, {
    label: 'retention pass over the 2 oldest days',
    ms: retention.ms,
    note: `info: ${retention.value} entries, longest event-loop stall ${(stalls.max / 1e6).toFixed(0)} ms`,
  });
  return ok;
}

async function runSqlite(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'mockingbird-bench-'));
  const file = join(dir, 'bench.db');
  try {
    const store = await openSqliteStore(file);
    const load = await time(() => loadSqlite(file));
    print('sqlite', { label: `load ${ROWS.toLocaleString('en')} entries`, ms: load.ms, note: 'info' });
    try {
      return await measure('sqlite', store);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runPostgres(adminUrl: string): Promise<boolean> {
  const name = `mb_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = '/' + name;
  try {
    const store = await openPostgresStore(url.toString());
    try {
      const load = await time(() => loadPostgres(url.toString()));
      print('postgres', { label: `load ${ROWS.toLocaleString('en')} entries`, ms: load.ms, note: 'info' });
      return await measure('postgres', store);
    } finally {
      await store.close();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

const cpus = os.cpus();
console.log(
  `history bench: ${ROWS.toLocaleString('en')} entries in one endpoint; node ${process.version}; ` +
    `${cpus.length} x ${cpus[0]?.model ?? 'cpu'}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
);
let ok = await runSqlite();
const databaseUrl = process.env['DATABASE_URL'];
if (databaseUrl) ok = (await runPostgres(databaseUrl)) && ok;
else console.log('postgres (skipped: DATABASE_URL is not set)');
console.log(
  `load average at the end: ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(ok ? 'PASS: every target met' : 'FAIL: some targets missed');
process.exitCode = ok ? 0 : 1;
