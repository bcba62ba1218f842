/**
 * The history worker thread: owns a second SQLite connection and writes the request history's
 * batches on it, so that inserting (with its indexes and checkpoints) is not paid
 * on the thread that answers requests. One message per batch: `{ seq, rows, files }` in (the rows as
 * one flat list of the values the insert binds), `{ seq, error? }` out once the transaction has
 * committed (or failed). The per-endpoint caps are kept here too: `{ seq, trim }` counts an endpoint
 * (unless the store vouches for what it holds) and deletes its oldest entries (history-trim.ts),
 * answered with `{ seq, usage }`; on the main thread that count over 100,000 index entries and the
 * deletes stalled every request. Messages are handled one at a time, in order.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openSqliteDatabase } from './sqlite-driver.js';
import { Kysely } from 'kysely';
import { configureSqlite, sqliteBulkInsert } from './sqlite-insert.js';
import type { FileRow, RowValue } from './history-row.js';
import { trimHistoryRows, type HistoryUsage } from './history-trim.js';
import { PatientSqliteDialect } from './sqlite-patience.js';
import type { Database } from './schema.js';

export interface InsertMessage {
  seq: number;
  /** The rows' values, ROW_WIDTH a row in REQUEST_COLUMNS order (`rowValues`, history-row.ts). */
  rows: RowValue[];
  files: FileRow[];
  /** How many parts of the batch (PartMessage, the same seq) came before: their rows go first. */
  parts?: number;
}
/**
 * Rows of a batch posted ahead of its InsertMessage, so that the main thread hands a large batch
 * over a slice a turn (history-worker-client.ts); not answered. The batch is written, in one
 * transaction, when its InsertMessage comes, and fails if a part is missing (a worker that died
 * between them).
 */
export interface PartMessage {
  seq: number;
  part: RowValue[];
}
export interface TrimMessage {
  seq: number;
  /** `known`: what the endpoint holds, when the store can vouch for it (trimHistoryRows). */
  trim: { endpoint: string; caps: { maxEntries: number; maxBytes: number }; known?: HistoryUsage };
}
/** The answer to an insert or a trim. */
export interface WorkerReply {
  seq: number;
  error?: string;
  /** A trim's outcome: what the endpoint holds afterwards, and how many entries went. */
  usage?: HistoryUsage & { deleted: number };
}

if (!parentPort) throw new Error('history-worker runs as a worker thread');
const port: MessagePort = parentPort;
const db = openSqliteDatabase((workerData as { file: string }).file);
/**
 * The worker's page cache: 8 MiB, not the main connection's 64. SQLite moves a page through a
 * temporary number past the end of the file when a b-tree split reorders pages taken from the free
 * list (balance_nonroot); the commit after such a move then scans the cache's whole hash table to drop
 * pages past the end (pcache1TruncateUnsafe), a slot a cached page: at the history cap, where every
 * batch reuses the pages its trims freed, a cost that grows with the cache. The worker's inserts and trims touch the table's two ends, which 8 MiB holds.
 */
const CACHE_KIB = 8192;
/** How long this thread waits for the write lock (synchronously: no request waits on it). */
const BUSY_WAIT_MS = 5000;
configureSqlite(db, BUSY_WAIT_MS, CACHE_KIB);
const insert = sqliteBulkInsert(db);
// Transactions begin immediate, so that the main connection committing between a trim's read and
// its delete cannot fail it (sqlite-patience.ts); this thread may wait for the lock synchronously.
const kdb = new Kysely<Database>({ dialect: new PatientSqliteDialect({ database: db }, BUSY_WAIT_MS) });

/** The parts of the batch being handed over. */
let held: { seq: number; parts: RowValue[][] } | undefined;

let queue: Promise<void> = Promise.resolve();
port.on('message', (m: InsertMessage | PartMessage | TrimMessage | 'close') => {
  // A trim awaits between its statements: the next message waits for it, not interleaves.
  queue = queue.then(() => handle(m));
});

async function handle(m: InsertMessage | PartMessage | TrimMessage | 'close'): Promise<void> {
  if (m === 'close') {
    db.close();
    port.close();
    return;
  }
  if ('part' in m) {
    if (held?.seq !== m.seq) held = { seq: m.seq, parts: [] };
    held.parts.push(m.part);
    return;
  }
  if ('trim' in m)
    await answer(m.seq, async () => ({
      usage: await trimHistoryRows(kdb, m.trim.endpoint, m.trim.caps, {
        known: m.trim.known,
        writeLocked: true,
      }),
    }));
  else await answer(m.seq, () => insertBatch(m));
}

/** Posts `{ seq, ...result }`, or `{ seq, error }` when `work` throws. */
async function answer(
  seq: number,
  work: () => Omit<WorkerReply, 'seq'> | Promise<Omit<WorkerReply, 'seq'>>,
): Promise<void> {
  let reply: WorkerReply;
  try {
    reply = { seq, ...(await work()) };
  } catch (err) {
    reply = { seq, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
}

/** Writes one batch, its parts' rows first, in one transaction. */
function insertBatch(m: InsertMessage): Omit<WorkerReply, 'seq'> {
  const parts = held?.seq === m.seq ? held.parts : [];
  held = undefined;
  if (parts.length !== (m.parts ?? 0))
    throw new Error(`batch ${m.seq}: ${parts.length} of its ${m.parts ?? 0} parts arrived`);
  // Files arrive as Uint8Array (structured clone); better-sqlite3 binds Buffers as blobs.
  const files = m.files.map((f) => ({
    ...f,
    data: Buffer.from(f.data.buffer, f.data.byteOffset, f.data.length),
  }));
  // One copy of a large batch's values, not two (flat(), then a spread of it).
  insert(parts.length === 0 ? m.rows : [...parts, m.rows].flat(), files);
  return {};
}
