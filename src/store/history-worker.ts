/**
 * The history worker thread: owns a second SQLite connection and writes the request history's
 * batches on it, so that inserting (about 10 µs a row, with its indexes and checkpoints) is not paid
 * on the thread that answers requests. One message per batch: `{ seq, entries, files }` in (the
 * entries as one JSON string; this thread turns them into rows), `{ seq, error? }` out once the
 * transaction has committed (or failed).
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { configureSqlite, sqliteBulkInsert } from './sqlite-insert.js';
import { toRow, type FileRow } from './history-row.js';
import type { HistoryEntry, HistoryFile } from './types.js';

export interface InsertMessage {
  seq: number;
  /** `JSON.stringify(HistoryEntry[])`. */
  entries: string;
  files: FileRow[];
}
export interface InsertReply {
  seq: number;
  error?: string;
}

const port = parentPort;
if (!port) throw new Error('history-worker runs as a worker thread');
const db = new SQLite((workerData as { file: string }).file);
configureSqlite(db);
const insert = sqliteBulkInsert(db);

port.on('message', (m: InsertMessage | 'close') => {
  if (m === 'close') {
    db.close();
    port.close();
    return;
  }
  let reply: InsertReply;
  try {
    // Files arrive as Uint8Array (structured clone); better-sqlite3 binds Buffers as blobs.
    const files = m.files.map((f) => ({
      ...f,
      data: Buffer.from(f.data.buffer, f.data.byteOffset, f.data.length),
    }));
    const entryFiles = new Map<string, HistoryFile[]>();
    for (const f of files) {
      const list = entryFiles.get(f.request_id) ?? [];
      list.push({
        requestId: f.request_id,
        fieldName: f.field_name,
        fileName: f.file_name,
        contentType: f.content_type,
        size: f.size,
        data: f.data,
      });
      entryFiles.set(f.request_id, list);
    }
    const entries = JSON.parse(m.entries) as HistoryEntry[];
    insert(
      entries.map((entry) => toRow({ entry, files: entryFiles.get(entry.id) ?? [] })),
      files,
    );
    reply = { seq: m.seq };
  } catch (err) {
    reply = { seq: m.seq, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
