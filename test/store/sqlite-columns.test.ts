/**
 * The SQLite history worker inserts with its own column lists (prepared statements on the hot path);
 * they must name every column of the history tables, or a new column would silently stay empty.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { openSqliteStore } from '../../src/store/index.js';
import { FILE_COLUMNS, REQUEST_COLUMNS } from '../../src/store/sqlite-insert.js';

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
