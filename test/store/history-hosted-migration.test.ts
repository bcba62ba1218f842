/**
 * Migration 0008_history_hosted on a database that already holds history: entries written before it
 * answer in the new shape (HTTP version 1.1, `isMultipart` from their stored Content-Type or files),
 * on SQLite and on PostgreSQL.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../src/store/sqlite-driver.js';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { openPostgresStore, openSqliteStore, type Store } from '../../src/store/index.js';
import { migrationProvider } from '../../src/store/migrations.js';
import { freshPgDatabase, pgSkip } from '../helpers/pg.js';

/** The last migration before the one under test. */
const BEFORE = '0007_oas_specs';

/** Rows as the previous version wrote them (no http_version, no is_multipart). */
const OLD_ROWS: [id: string, headers: Record<string, string>, files: string][] = [
  ['multipart-file', { 'content-type': 'multipart/form-data; boundary=x' }, '[{"name":"f"}]'],
  ['multipart-upper', { 'content-type': 'Multipart/Form-Data; boundary=x' }, '[]'],
  ['json', { 'content-type': 'application/json' }, '[]'],
  ['none', {}, '[]'],
];

async function writeOldRows(db: Kysely<unknown>): Promise<void> {
  await sql`INSERT INTO endpoints (name, created_at, settings) VALUES ('old', 1, '{}')`.execute(db);
  for (const [id, headers, files] of OLD_ROWS) {
    await sql`INSERT INTO requests (id, endpoint, created_at, method, path, ip, status, behavior,
        rule_matched, rule_id, duration_ms, request_headers, request_body, request_body_truncated,
        response_headers, response_body, response_body_truncated, files, problems)
      VALUES (${id}, 'old', 1000, 'POST', '/', '127.0.0.1', 200, 'default', 0, NULL, 1.5,
        ${JSON.stringify(headers)}, '', 0, '{}', '', 0, ${files}, '[]')`.execute(db);
  }
}

async function migrateBefore(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  const { error } = await new Migrator({ db, provider: migrationProvider(dialect) }).migrateTo(BEFORE);
  if (error) throw error as Error;
}

async function assertNewShape(store: Store): Promise<void> {
  const multipart: Record<string, boolean> = {};
  for (const [id] of OLD_ROWS) {
    const e = await store.getHistory('old', id);
    assert.ok(e, id);
    assert.equal(e.httpVersion, '1.1', id);
    multipart[id] = e.isMultipart;
  }
  assert.deepEqual(multipart, { 'multipart-file': true, 'multipart-upper': true, json: false, none: false });
  const page = await store.listHistory('old', { isMultipart: true }, 10);
  assert.deepEqual(page.data.map((e) => e.id).sort(), ['multipart-file', 'multipart-upper']);
}

void describe('0008_history_hosted', () => {
  void test('SQLite: old entries answer in the new shape', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mb-mig-'));
    try {
      const file = join(dir, 'db.sqlite');
      const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: openSqliteDatabase(file) }) });
      await migrateBefore(db, 'sqlite');
      await writeOldRows(db);
      await db.destroy();
      const store = await openSqliteStore(file);
      try {
        await assertNewShape(store);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('PostgreSQL: old entries answer in the new shape', { skip: pgSkip }, async () => {
    const { url, drop } = await freshPgDatabase();
    try {
      const db = new Kysely<unknown>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }),
      });
      await migrateBefore(db, 'postgres');
      await writeOldRows(db);
      await db.destroy();
      const store = await openPostgresStore(url);
      try {
        await assertNewShape(store);
      } finally {
        await store.close();
      }
    } finally {
      await drop();
    }
  });
});
