/**
 * Stops: an API write that failed with 503 store_unavailable because the history worker committed
 * between the write transaction's first read and its first write (SQLite's deferred BEGIN keeps the
 * read's snapshot, and the write can then never succeed: SQLITE_BUSY_SNAPSHOT until the budget runs
 * out). Transactions on the main connection take the write lock at BEGIN instead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../src/store/sqlite-driver.js';
import { Kysely, sql } from 'kysely';
import { PatientSqliteDialect } from '../../src/store/sqlite-patience.js';
import { configureSqlite } from '../../src/store/sqlite-insert.js';

interface Db {
  t: { id: number; who: string };
}

function fixture(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'mb-patience-'));
  const file = join(dir, 'db.sqlite');
  const main = openSqliteDatabase(file);
  configureSqlite(main, 10);
  main.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, who TEXT NOT NULL)');
  const db = new Kysely<Db>({ dialect: new PatientSqliteDialect({ database: main }, 300) });
  const other = openSqliteDatabase(file);
  other.pragma('busy_timeout = 0');
  t.after(() => {
    other.close();
    void db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, other };
}

test('a transaction that reads, then writes, is not undone by another connection committing in between', async (t) => {
  const { db, other } = fixture(t);
  let otherWrote: boolean | undefined;
  await db.transaction().execute(async (tx) => {
    const max = await tx
      .selectFrom('t')
      .select((eb) => eb.fn.max('id').as('max'))
      .executeTakeFirst();
    // Another connection (the history worker) tries to commit between the read and the write.
    try {
      other.prepare("INSERT INTO t (who) VALUES ('other')").run();
      otherWrote = true;
    } catch (err) {
      assert.match(String((err as { code?: string }).code), /^SQLITE_BUSY/);
      otherWrote = false;
    }
    await tx
      .insertInto('t')
      .values({ id: Number(max?.max ?? 0) + 1, who: 'main' })
      .execute();
  });
  // The lock was taken at BEGIN: the other connection had to wait (and would retry), not the transaction.
  assert.equal(otherWrote, false);
  const rows = await db.selectFrom('t').selectAll().execute();
  assert.deepEqual(rows, [{ id: 1, who: 'main' }]);
});

test('BEGIN waits, without failing, for a write lock held elsewhere for a moment', async (t) => {
  const { db, other } = fixture(t);
  other.exec('BEGIN IMMEDIATE');
  setTimeout(() => other.exec('COMMIT'), 100);
  const started = Date.now();
  await db.transaction().execute(async (tx) => {
    await tx.insertInto('t').values({ id: 1, who: 'main' }).execute();
  });
  assert.ok(Date.now() - started >= 90, 'the transaction began once the lock was free');
  const n = await sql<{ n: number }>`select count(*) as n from t`.execute(db);
  assert.equal(n.rows[0]!.n, 1);
});

test('a write lock held past the budget fails the transaction with SQLITE_BUSY (503 for the API)', async (t) => {
  const { db, other } = fixture(t);
  other.exec('BEGIN IMMEDIATE');
  try {
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        await tx.insertInto('t').values({ id: 1, who: 'main' }).execute();
      }),
      (err: { code?: string }) => /^SQLITE_BUSY/.test(String(err.code)),
    );
  } finally {
    other.exec('ROLLBACK');
  }
});
