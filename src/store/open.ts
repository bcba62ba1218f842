/**
 * Opening the configured store: embedded SQLite in DATA_DIR by default, PostgreSQL when DATABASE_URL
 * is set. Migrations run before the store is handed out.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, SqliteDialect, PostgresDialect } from 'kysely';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Database } from './schema.js';
import { KyselyStore } from './kysely-store.js';
import type { BulkHistoryInsert, FileRow, RequestRow } from './history-table.js';

// BIGINT columns hold epoch milliseconds, well inside Number's exact range.
pg.types.setTypeParser(20, (v) => Number(v));

/**
 * History rows through prepared statements in one transaction: the hot path of every recorded
 * request, where building a many-parameter SQL text per batch (as a query builder does) costs more
 * than the insert itself.
 */
function sqliteBulkInsert(db: SQLite.Database): BulkHistoryInsert {
  let statements: { row: SQLite.Statement; file: SQLite.Statement } | undefined;
  // Prepared lazily: the tables exist only once the migrations have run.
  const prepare = (): { row: SQLite.Statement; file: SQLite.Statement } => {
    statements ??= {
      row: db.prepare(
        `INSERT INTO requests (${REQUEST_COLUMNS.join(', ')}) VALUES (${REQUEST_COLUMNS.map((c) => '@' + c).join(', ')})
         ON CONFLICT (id) DO NOTHING`,
      ),
      file: db.prepare(
        `INSERT INTO request_files (${FILE_COLUMNS.join(', ')}) VALUES (${FILE_COLUMNS.map((c) => '@' + c).join(', ')})`,
      ),
    };
    return statements;
  };
  return db.transaction((rows: RequestRow[], files: FileRow[]) => {
    const s = prepare();
    for (const r of rows) s.row.run(r);
    for (const f of files) s.file.run(f);
  });
}

const REQUEST_COLUMNS: (keyof RequestRow)[] = [
  'id',
  'endpoint',
  'created_at',
  'method',
  'path',
  'ip',
  'status',
  'behavior',
  'rule_matched',
  'rule_id',
  'duration_ms',
  'request_headers',
  'request_body',
  'request_body_truncated',
  'response_headers',
  'response_body',
  'response_body_truncated',
  'files',
  'problems',
];
const FILE_COLUMNS: (keyof FileRow)[] = [
  'request_id',
  'endpoint',
  'field_name',
  'file_name',
  'content_type',
  'size',
  'data',
];

/** Opens (creating if needed) the SQLite database at `file` (`:memory:` for tests). */
export async function openSqliteStore(file: string): Promise<KyselyStore> {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // 64 MB of page cache instead of 2 MB: a bulk history delete touches pages all over the table,
  // and with the small default it spills dirty pages to the WAL mid-statement (about 2x slower;
  // bench/history.ts).
  db.pragma('cache_size = -65536');
  // Regular expressions in history filters. Patterns are validated (and compiled once) by the API.
  const cache = new Map<string, RegExp>();
  db.function('regexp', { deterministic: true }, (pattern: unknown, value: unknown) => {
    if (typeof pattern !== 'string' || typeof value !== 'string') return 0;
    let re = cache.get(pattern);
    if (!re) {
      re = new RegExp(pattern);
      if (cache.size > 100) cache.clear();
      cache.set(pattern, re);
    }
    return re.test(value) ? 1 : 0;
  });
  const store = new KyselyStore(
    new Kysely<Database>({ dialect: new SqliteDialect({ database: db }) }),
    'sqlite',
    sqliteBulkInsert(db),
  );
  await store.migrate();
  return store;
}

/** Connects to PostgreSQL at `url`; throws a clear error when it cannot be reached. */
export async function openPostgresStore(url: string): Promise<KyselyStore> {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
  pool.on('error', () => {
    /* idle-client errors surface on the next query */
  });
  const store = new KyselyStore(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), 'postgres');
  try {
    await store.migrate();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  return store;
}

export async function openStore(opts: {
  dataDir: string;
  databaseUrl: string | undefined;
}): Promise<KyselyStore> {
  if (opts.databaseUrl) return openPostgresStore(opts.databaseUrl);
  mkdirSync(opts.dataDir, { recursive: true });
  return openSqliteStore(join(opts.dataDir, 'mockingbird.db'));
}
