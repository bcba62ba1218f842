/**
 * The settings every SQLite connection of the store gets (configureSqlite): the main connection's and
 * the history worker's, which keeps a smaller page cache (history-worker.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type SQLiteTypes from 'better-sqlite3';
import { openSqliteDatabase } from '../../src/store/sqlite-driver.js';
import { configureSqlite } from '../../src/store/sqlite-insert.js';

function open(t: { after(fn: () => void): void }): SQLiteTypes.Database {
  const dir = mkdtempSync(join(tmpdir(), 'mb-settings-'));
  const db = openSqliteDatabase(join(dir, 'db.sqlite'));
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return db;
}

test('a connection is in WAL mode without an fsync a commit, with the busy wait it is given and 64 MiB of cache', (t) => {
  const db = open(t);
  configureSqlite(db, 250);
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(db.pragma('synchronous', { simple: true }), 1); // NORMAL
  assert.equal(db.pragma('busy_timeout', { simple: true }), 250);
  assert.equal(db.pragma('cache_size', { simple: true }), -65_536); // negative: KiB, not pages
});

test('the page cache takes the size in KiB it is given (the history worker takes 8 MiB)', (t) => {
  const db = open(t);
  configureSqlite(db, 5000, 8192);
  assert.equal(db.pragma('cache_size', { simple: true }), -8192);
});
