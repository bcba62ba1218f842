/**
 * The SQLite side of history writes, shared by the main connection and the history worker's own:
 * the connection settings and the prepared-statement bulk insert.
 */
import type SQLite from 'better-sqlite3';
import { REQUEST_COLUMNS, type FileRow, type RowValue } from './history-row.js';

/**
 * WAL (readers never wait for the writer), no fsync per commit, a bounded wait instead of
 * SQLITE_BUSY, and a page cache of `cacheKib` KiB.
 */
export function configureSqlite(db: SQLite.Database, busyTimeoutMs = 5000, cacheKib = 65_536): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // better-sqlite3 waits synchronously: on the main thread the wait freezes every request, so there
  // it is short (STORE_BUSY_TIMEOUT, then 503); the history worker may wait longer.
  db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  // 64 MB of page cache by default instead of 2 MB: a bulk history delete touches pages all over
  // the table, and with the small default it spills dirty pages to the WAL mid-statement (about 2x
  // slower; bench/history.ts). The history worker takes less (history-worker.ts).
  db.pragma(`cache_size = ${-Math.trunc(cacheKib)}`);
}

export const FILE_COLUMNS: (keyof FileRow)[] = [
  'request_id',
  'endpoint',
  'field_name',
  'file_name',
  'content_type',
  'size',
  'data',
];

/** How many values a `requests` row has (`rowValues`, history-row.ts). */
export const ROW_WIDTH = REQUEST_COLUMNS.length;

/**
 * History rows through prepared statements in one transaction: the hot path of every recorded
 * request, where building a many-parameter SQL text per batch (as a query builder does) costs more
 * than the insert itself. The rows come as one flat list of values, ROW_WIDTH a row (`rowValues`),
 * each row's id first. A batch written again (its acknowledgement was lost, and the writer retried)
 * changes nothing: rows already there are skipped, and so are their files.
 */
export function sqliteBulkInsert(
  db: SQLite.Database,
): (values: readonly RowValue[], files: readonly FileRow[]) => void {
  let statements: { row: SQLite.Statement; file: SQLite.Statement } | undefined;
  // Prepared lazily: the tables exist only once the migrations have run.
  const prepare = (): { row: SQLite.Statement; file: SQLite.Statement } => {
    statements ??= {
      // Positional parameters: better-sqlite3 binds an array by index, where named ones cost a
      // property lookup by name per column (24 a row).
      row: db.prepare(
        `INSERT INTO requests (${REQUEST_COLUMNS.join(', ')}) VALUES (${REQUEST_COLUMNS.map(() => '?').join(', ')})
         ON CONFLICT (id) DO NOTHING`,
      ),
      file: db.prepare(
        `INSERT INTO request_files (${FILE_COLUMNS.join(', ')}) VALUES (${FILE_COLUMNS.map(() => '?').join(', ')})`,
      ),
    };
    return statements;
  };
  return db.transaction((values: readonly RowValue[], files: readonly FileRow[]) => {
    if (values.length % ROW_WIDTH !== 0)
      throw new Error(`history rows: ${values.length} values is not a whole number of rows`);
    const s = prepare();
    const skipped = new Set<RowValue>();
    // Values go as arguments, not as one array: better-sqlite3 reads an array's elements through V8's
    // generic property lookup (Object::Get), arguments directly (docs/performance.md).
    for (let i = 0; i < values.length; i += ROW_WIDTH) {
      if (s.row.run(...values.slice(i, i + ROW_WIDTH)).changes === 0) skipped.add(values[i]!);
    }
    for (const f of files) if (!skipped.has(f.request_id)) s.file.run(...FILE_COLUMNS.map((c) => f[c]));
  });
}
