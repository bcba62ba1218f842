/**
 * Opening the configured store: embedded SQLite in DATA_DIR by default, PostgreSQL when DATABASE_URL
 * is set. Migrations run before the store is handed out.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, PostgresDialect } from 'kysely';
import type SQLiteTypes from 'better-sqlite3';
import { openSqliteDatabase } from './sqlite-driver.js';
import pg from 'pg';
import type { Database } from './schema.js';
import { KyselyStore } from './kysely-store.js';
import { configureSqlite, sqliteBulkInsert } from './sqlite-insert.js';
import { BUSY_SLICE_MS, PatientSqliteDialect } from './sqlite-patience.js';
import { HistoryInsertWorker } from './history-worker-client.js';
import { fileRows, rowsOf } from './history-row.js';
import { lockDataDir } from './data-dir-lock.js';
import { PgLeader } from './leader.js';
import { ADVISORY_LOCKS, type AdvisoryLocks } from './advisory.js';
import type { NewHistoryEntry } from './types.js';
import { compileUserRegex, regexTest, type UserRegex } from '../regex/index.js';

// BIGINT columns hold epoch milliseconds, well inside Number's exact range.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * Opens (creating if needed) the SQLite database at `file` (`:memory:` for tests). History batches
 * are written by a worker thread on its own connection; an in-memory database, which a second
 * connection cannot see, writes them on this one.
 */
export async function openSqliteStore(
  file: string,
  opts: { busyTimeoutMs?: number } = {},
): Promise<KyselyStore> {
  const db = openSqliteDatabase(file);
  // A lock held elsewhere is waited for in short synchronous slices, the rest asynchronously
  // (sqlite-patience.ts), so that a long history write never freezes the requests.
  const budget = opts.busyTimeoutMs ?? 5000;
  configureSqlite(db, Math.min(BUSY_SLICE_MS, budget));
  // Regular expressions in history filters run on this thread, for any key: in the linear-time engine
  // (a `(a+)+$` over long paths would otherwise stall every tenant), over a capped input. Patterns are
  // validated by the API and compiled once.
  const cache = new Map<string, UserRegex>();
  db.function('regexp', { deterministic: true }, (pattern: unknown, value: unknown) => {
    if (typeof pattern !== 'string' || typeof value !== 'string') return 0;
    let re = cache.get(pattern);
    if (!re) {
      re = compileUserRegex(pattern);
      if (cache.size > 100) cache.clear();
      cache.set(pattern, re);
    }
    return regexTest(re, value) ? 1 : 0;
  });
  const worker = file === ':memory:' ? undefined : new HistoryInsertWorker(file);
  const store = new KyselyStore(
    new Kysely<Database>({ dialect: new PatientSqliteDialect({ database: db }, budget) }),
    'sqlite',
    worker ? (entries) => worker.insert(entries) : insertOnThisThread(db),
    () => worker?.close(),
    // The caps are kept on the worker's connection too: counting and deleting there never stall requests.
    worker && ((endpoint, caps, known) => worker.trim(endpoint, caps, known)),
  );
  await store.migrate();
  return store;
}

/** The prepared-statement insert on this thread's connection (an in-memory database). */
function insertOnThisThread(db: SQLiteTypes.Database): (entries: NewHistoryEntry[]) => void {
  const insert = sqliteBulkInsert(db);
  return (entries) => insert(rowsOf(entries), fileRows(entries));
}

/**
 * Connects to PostgreSQL at `url`; throws a clear error when it cannot be reached. `shared`: several
 * instances use the database (REDIS_URL is set), so state and CRUD writes take its advisory locks,
 * waiting for them as `locks` says (advisory.ts; 10 s).
 * `leads()` tells which instance runs the background jobs (leader.ts), and `onLeaderChange` hears
 * when this one starts or stops.
 */
export async function openPostgresStore(
  url: string,
  opts: { shared?: boolean; locks?: AdvisoryLocks; onLeaderChange?: (leads: boolean) => void } = {},
): Promise<KyselyStore> {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
  pool.on('error', () => {
    /* idle-client errors surface on the next query */
  });
  // A connection ended by the server (a restart, `pg_terminate_backend`) while checked out between two
  // queries emits 'error' on its client, where the pool listens only while it is idle: without a
  // listener that event ends the process. The next query on it fails, and the pool drops it.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const store = new KyselyStore(
    new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }),
    'postgres',
    undefined,
    undefined,
    undefined,
    opts.shared === true ? (opts.locks ?? ADVISORY_LOCKS) : undefined,
  );
  try {
    await store.migrate();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  store.useLeader(new PgLeader(url, opts.onLeaderChange));
  return store;
}

/** Where the embedded database lives in `dataDir`. */
export function sqliteFile(dataDir: string): string {
  return join(dataDir, 'mockingbird.db');
}

/**
 * The store the configuration names. The embedded one takes its data folder for this process first
 * (data-dir-lock.ts: a second instance on it is refused with DataDirInUse) and lets it go on close().
 */
export async function openStore(opts: {
  dataDir: string;
  databaseUrl: string | undefined;
  storeBusyTimeout?: number;
  /** Set: several instances coordinate through Redis, so they share the database (openPostgresStore). */
  redisUrl?: string | undefined;
  onLeaderChange?: (leads: boolean) => void;
}): Promise<KyselyStore> {
  if (opts.databaseUrl)
    return openPostgresStore(opts.databaseUrl, {
      shared: opts.redisUrl !== undefined && opts.redisUrl !== '',
      ...(opts.onLeaderChange ? { onLeaderChange: opts.onLeaderChange } : {}),
    });
  mkdirSync(opts.dataDir, { recursive: true });
  const release = lockDataDir(opts.dataDir);
  try {
    const store = await openSqliteStore(sqliteFile(opts.dataDir), {
      busyTimeoutMs: opts.storeBusyTimeout ?? 1000,
    });
    store.onClose(release);
    return store;
  } catch (err) {
    release();
    throw err;
  }
}
