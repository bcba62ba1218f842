/**
 * One instance per data folder (SPEC §8: several instances on one SQLite file are refused at start).
 * Each instance keeps the caches of what it read (endpoints, rules, domains) and learns of changes only
 * from its own commands; a second process on the same file would serve stale rules and count limits
 * apart. The holder keeps a write transaction open on `mockingbird.lock` (an empty SQLite database
 * beside the data) for its whole life: SQLite's file lock, which the system frees when the process
 * ends, however it ends, so that a killed holder never blocks the next start. `mockingbird.pid` only
 * says who holds it, for the refusal's message.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openSqliteDatabase } from './sqlite-driver.js';

export const LOCK_FILE = 'mockingbird.lock';
export const PID_FILE = 'mockingbird.pid';

/** Another process holds the data folder. */
export class DataDirInUse extends Error {
  override readonly name = 'DataDirInUse';
}

function holderOf(dataDir: string): string {
  try {
    const pid = readFileSync(join(dataDir, PID_FILE), 'utf8').trim();
    return /^\d+$/.test(pid) ? ` (pid ${pid})` : '';
  } catch {
    return '';
  }
}

/**
 * Takes the data folder for this process; returns what lets it go. Throws DataDirInUse, with a
 * message naming the folder and what to do, when another process holds it.
 */
export function lockDataDir(dataDir: string): () => void {
  const db = openSqliteDatabase(join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    db.close();
    if ((err as { code?: unknown }).code !== 'SQLITE_BUSY') throw err;
    throw new DataDirInUse(
      `the data folder ${resolve(dataDir)} is in use by another Mockingbird process${holderOf(dataDir)}: ` +
        'one SQLite database serves one instance. Stop that process, give this one another DATA_DIR, ' +
        'or set DATABASE_URL (PostgreSQL) to run several instances on one database.',
    );
  }
  const pidFile = join(dataDir, PID_FILE);
  writeFileSync(pidFile, `${process.pid}\n`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // Before the lock goes: once it has, the file may already be the next holder's.
    if (holderOf(dataDir) === ` (pid ${process.pid})`) rmSync(pidFile, { force: true });
    db.close();
  };
}
