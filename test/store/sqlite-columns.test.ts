/**
 * The SQLite history worker inserts with its own column lists (prepared statements on the hot path);
 * they must name every column of the history tables, or a new column would silently stay empty, and
 * the values handed to the worker must come in the same order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { openSqliteStore } from '../../src/store/index.js';
import { FILE_COLUMNS, REQUEST_COLUMNS, ROW_WIDTH, sqliteBulkInsert } from '../../src/store/sqlite-insert.js';
import { rowValues, toRow } from '../../src/store/history-row.js';
import { entryWeight } from '../../src/store/history-size.js';
import type { HistoryEntry } from '../../src/store/index.js';
import { entry } from '../api/history-fixtures.js';

test("the worker's column lists cover every column of requests and request_files", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mb-columns-'));
  try {
    const file = join(dir, 'db.sqlite');
    const store = await openSqliteStore(file); // creates the tables, every migration applied
    await store.close();
    const db = new SQLite(file, { readonly: true });
    try {
      const columns = (table: string) =>
        (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string; pk: number; type: string }[])
          .map((c) => c.name)
          .sort();
      assert.deepEqual([...REQUEST_COLUMNS].sort(), columns('requests'));
      // `seq` is the table's own row id (INTEGER PRIMARY KEY), filled in by SQLite.
      assert.deepEqual([...FILE_COLUMNS, 'seq'].sort(), columns('request_files'));
    } finally {
      db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rowValues lists an entry in REQUEST_COLUMNS order, every column as toRow has it', () => {
  const full: Partial<HistoryEntry> = {
    status: 418,
    behavior: 'mock-rule',
    ruleId: 'r1',
    durationMs: 2.5,
    requestBody: 'req',
    responseBody: 'res',
    problems: ['p'],
    responseName: 'second',
    callout: { request: { method: 'POST', url: 'http://x/' } } as unknown as HistoryEntry['callout'],
    httpVersion: '1.0',
  };
  // The flags as 0 and 1 differ pairwise in one entry or the other: any two swapped would show.
  const entries = [
    entry('cols', {
      ...full,
      ruleMatched: true,
      requestBodyTruncated: false,
      responseBodyTruncated: true,
      isMultipart: false,
    }),
    entry('cols', {
      ...full,
      ruleMatched: true,
      requestBodyTruncated: true,
      responseBodyTruncated: false,
      isMultipart: false,
    }),
    entry('plain'),
  ];
  for (const e of entries) {
    const row = toRow(e);
    assert.deepEqual(
      rowValues(e),
      REQUEST_COLUMNS.map((c) => row[c]),
    );
  }
  assert.equal(ROW_WIDTH, REQUEST_COLUMNS.length);
  assert.equal(REQUEST_COLUMNS[0], 'id', "the insert reads a row's id from its first value");
  // The weight the history writer measured is stored as it is, not measured again.
  const e = entries[0]!;
  assert.equal(rowValues({ ...e, weight: 12_345 })[REQUEST_COLUMNS.indexOf('size')], 12_345);
  assert.equal(rowValues(e)[REQUEST_COLUMNS.indexOf('size')], entryWeight(e));
});

test('the bulk insert refuses values that are not a whole number of rows, and writes none of them', () => {
  const db = new SQLite(':memory:');
  try {
    const insert = sqliteBulkInsert(db);
    assert.throws(() => insert(['only-an-id'], []), /1 values is not a whole number of rows/);
  } finally {
    db.close();
  }
});
