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
import { openSqliteDatabase } from '../../src/store/sqlite-driver.js';
import { openSqliteStore } from '../../src/store/index.js';
import { FILE_COLUMNS, ROW_WIDTH, sqliteBulkInsert } from '../../src/store/sqlite-insert.js';
import { REQUEST_COLUMNS, rowValues, toRow } from '../../src/store/history-row.js';
import { entryWeight } from '../../src/store/history-size.js';
import type { HistoryEntry, NewHistoryEntry } from '../../src/store/index.js';
import { entry } from '../helpers/history-fixtures.js';

test("the worker's column lists cover every column of requests and request_files", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mb-columns-'));
  try {
    const file = join(dir, 'db.sqlite');
    const store = await openSqliteStore(file); // creates the tables, every migration applied
    await store.close();
    const db = openSqliteDatabase(file, { readonly: true });
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

/** Each column's value for `n`, written out by name: what rowValues and toRow must both give. */
function expectedRow(n: NewHistoryEntry): Record<string, unknown> {
  const e = n.entry;
  return {
    id: e.id,
    endpoint: e.endpoint,
    created_at: e.createdAt,
    method: e.method,
    path: e.path,
    ip: e.ip,
    status: e.status,
    behavior: e.behavior,
    rule_matched: e.ruleMatched ? 1 : 0,
    rule_id: e.ruleId,
    duration_ms: e.durationMs,
    request_headers: JSON.stringify(e.requestHeaders),
    request_body: e.requestBody,
    request_body_truncated: e.requestBodyTruncated ? 1 : 0,
    response_headers: JSON.stringify(e.responseHeaders),
    response_body: e.responseBody,
    response_body_truncated: e.responseBodyTruncated ? 1 : 0,
    files: JSON.stringify(e.files),
    problems: JSON.stringify(e.problems),
    response_name: e.responseName ?? null,
    size: entryWeight(n),
    callout: e.callout ? JSON.stringify(e.callout) : null,
    http_version: e.httpVersion,
    is_multipart: e.isMultipart ? 1 : 0,
    grpc: e.grpc ? JSON.stringify(e.grpc) : null,
    validation: e.validation ? JSON.stringify(e.validation) : null,
    response_validation: e.responseValidation ? JSON.stringify(e.responseValidation) : null,
  };
}

test('rowValues lists an entry in REQUEST_COLUMNS order, and toRow names every column as the table does', () => {
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
    // Two different lists: swapped columns would show; an empty one is stored as `[]`, not null.
    entry('checked', {
      validation: [{ in: 'query', path: 'limit', message: 'must be integer' }],
      responseValidation: [],
    }),
    entry('grpc', {
      behavior: 'grpc',
      grpc: { service: 'a.B', method: 'C', callType: 'unary', status: 5, statusMessage: 'gone' },
    }),
  ];
  for (const e of entries) {
    const expected = expectedRow(e);
    assert.deepEqual(
      rowValues(e),
      REQUEST_COLUMNS.map((c) => expected[c]),
    );
    assert.deepEqual({ ...toRow(e) }, expected);
  }
  assert.equal(ROW_WIDTH, REQUEST_COLUMNS.length);
  assert.equal(REQUEST_COLUMNS[0], 'id', "the insert reads a row's id from its first value");
  // The weight the history writer measured is stored as it is, not measured again.
  const e = entries[0]!;
  assert.equal(rowValues({ ...e, weight: 12_345 })[REQUEST_COLUMNS.indexOf('size')], 12_345);
  assert.equal(rowValues(e)[REQUEST_COLUMNS.indexOf('size')], entryWeight(e));
});

test('the bulk insert refuses values that are not a whole number of rows, and writes none of them', () => {
  const db = openSqliteDatabase(':memory:');
  try {
    const insert = sqliteBulkInsert(db);
    assert.throws(() => insert(['only-an-id'], []), /1 values is not a whole number of rows/);
  } finally {
    db.close();
  }
});
