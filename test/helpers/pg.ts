/**
 * PostgreSQL for tests. DATABASE_URL (set by .ci/run) makes these tests mandatory; without it they skip
 * with a message saying so. Each suite gets a database of its own, dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import pg from 'pg';

export const PG_BASE_URL = process.env['DATABASE_URL'];

/** The reason PostgreSQL tests skip, or false when they run. */
export const pgSkip: string | false = PG_BASE_URL
  ? false
  : 'DATABASE_URL is not set: PostgreSQL tests skipped (CI sets it; export DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run them)';

/** Creates a fresh database on the DATABASE_URL server; returns its URL and a drop function. */
export async function freshPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!PG_BASE_URL) throw new Error('DATABASE_URL is not set');
  const name = 'mb_test_' + randomBytes(6).toString('hex');
  const admin = new pg.Client({ connectionString: PG_BASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(PG_BASE_URL);
  u.pathname = '/' + name;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_BASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * `describe(name, fn)`, or, when `skip` gives a reason, a suite holding one skipped test that says
 * why: node:test counts skipped tests, not skipped suites, and a summary reading `skipped 0` after
 * whole PostgreSQL suites were left out would hide them.
 */
export function suiteOrSkip(name: string, skip: string | false, fn: () => void): void {
  if (skip === false) {
    void describe(name, fn);
    return;
  }
  void describe(name, () => {
    void test(skip, { skip }, () => undefined);
  });
}
