/**
 * The SQLite driver for the running Node.js: one module, loaded once, that the main connection and the
 * history worker both open databases with (open.ts, history-worker.ts).
 *
 * Two majors of better-sqlite3 are declared, because no single one runs on every line we support:
 * - 13 (the `better-sqlite3` dependency) is a Node-API addon built for Node-API 10, shipped prebuilt
 *   inside the package, so it installs without a compiler; it needs Node 22.14 or later (Node-API 10)
 *   and crashes on an older Node when loaded.
 * - 12 (the optional `better-sqlite3-12` alias) is built against Node's own ABI; it runs on Node 20 and
 *   22, but on Node 24 its statements abort the process when the garbage collector finalises them
 *   (`Assertion failed: (env) != nullptr` in Statement::~Statement).
 * Which one loads is decided by the Node-API version the running Node offers, never by trying: a
 * failed attempt at 13 is a segmentation fault, not an exception. Both have the same API and write the
 * same file format, so a database moves between lines (test/store/sqlite-driver.test.ts).
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** The Node-API version better-sqlite3 13's prebuilt addons are compiled for. */
const NAPI_FOR_13 = 10;

export type SqliteDriverName = 'better-sqlite3' | 'better-sqlite3-12';

/** The package that runs on a Node offering Node-API `napi` (`process.versions.napi`). */
export function sqliteDriverFor(napi: string | undefined): SqliteDriverName {
  return Number(napi) >= NAPI_FOR_13 ? 'better-sqlite3' : 'better-sqlite3-12';
}

/** Which package this process uses, for the start banner and the tests. */
export const SQLITE_DRIVER: SqliteDriverName = sqliteDriverFor(process.versions.napi);

function load(name: SqliteDriverName): typeof BetterSqlite3 {
  try {
    return createRequire(import.meta.url)(name) as typeof BetterSqlite3;
  } catch (err) {
    // The optional package is missing where its native build failed at install (no compiler).
    throw new Error(
      `Node.js ${process.versions.node} needs the SQLite driver package ${name}, which did not load ` +
        `(${err instanceof Error ? err.message.split('\n')[0] : String(err)}). Run \`npm install\` again ` +
        `with a C++ toolchain (python3, make, g++), or use Node.js 24 LTS, which needs none.`,
    );
  }
}

let driver: typeof BetterSqlite3 | undefined;

/**
 * Opens the database at `file` with the driver for this Node. The package is loaded on the first
 * call (a command that never opens a database never loads it); a missing one is an Error whose
 * message says what to do.
 */
export function openSqliteDatabase(file: string, options?: BetterSqlite3.Options): BetterSqlite3.Database {
  driver ??= load(SQLITE_DRIVER);
  return new driver(file, options);
}
