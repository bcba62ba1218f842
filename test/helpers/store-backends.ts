/**
 * The Store implementations the store tests run against: SQLite always (in a temporary folder),
 * PostgreSQL when DATABASE_URL is set (a fresh database, dropped afterwards; mandatory in CI).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgresStore, openSqliteStore, type KyselyStore } from '../../src/store/index.js';
import { freshPgDatabase, pgSkip } from './pg.js';

export interface StoreBackend {
  name: 'sqlite' | 'postgres';
  /** Why the backend's tests skip, or false when they run. */
  skip: string | false;
  open(): Promise<{ store: KyselyStore; cleanup: () => Promise<void> }>;
}

export const STORE_BACKENDS: readonly StoreBackend[] = [
  {
    name: 'sqlite',
    skip: false,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'mb-store-'));
      const store = await openSqliteStore(join(dir, 'db.sqlite'));
      return { store, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'postgres',
    skip: pgSkip,
    async open() {
      const db = await freshPgDatabase();
      const store = await openPostgresStore(db.url);
      return { store, cleanup: db.drop };
    },
  },
];
