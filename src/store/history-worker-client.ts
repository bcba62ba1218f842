/**
 * The main thread's side of the history worker (history-worker.ts): `insert` resolves once the batch
 * is committed, so a caller that awaits it can read the entries back. A worker that dies fails the
 * batches it held (the HistoryWriter retries them) and is started again for the next one.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker-thread.js';
import { fileRow } from './history-row.js';
import type { NewHistoryEntry } from './types.js';
import type { InsertMessage, InsertReply } from './history-worker.js';

/** A batch sent and not answered yet: how to settle it, and its promise (which `close` waits for). */
type Pending = { resolve: () => void; reject: (err: Error) => void; done: Promise<void> };

export class HistoryInsertWorker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;

  constructor(private readonly file: string) {}

  /**
   * Hands a batch to the worker in a compact form: the entries as one JSON string (one copy, where
   * a structured clone of row objects walked every field of every row on this thread), the files,
   * rare, as rows. The worker builds the rows (headers as JSON, sizes) on its own thread.
   */
  insert(entries: NewHistoryEntry[]): Promise<void> {
    const worker = (this.worker ??= this.spawn());
    const seq = ++this.seq;
    let settle!: Omit<Pending, 'done'>;
    const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    this.pending.set(seq, { ...settle, done });
    const files = entries.flatMap((e) => e.files.map((f) => fileRow(e.entry.endpoint, f)));
    const message: InsertMessage = { seq, entries: JSON.stringify(entries.map((e) => e.entry)), files };
    worker.postMessage(message);
    return done;
  }

  private spawn(): Worker {
    const worker = startWorker(import.meta.url, 'history-worker', { workerData: { file: this.file } });
    worker.on('message', (m: InsertReply) => {
      const p = this.pending.get(m.seq);
      if (!p) return;
      this.pending.delete(m.seq);
      if (m.error === undefined) p.resolve();
      else p.reject(new Error(`history insert failed: ${m.error}`));
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`history worker exited with code ${code}`)));
    return worker;
  }

  /**
   * Lets the batches under way finish, then closes the worker's connection. A worker that has not
   * exited 5 s later is terminated, so that a shutdown cannot hang on it.
   */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await Promise.allSettled([...this.pending.values()].map((p) => p.done));
    this.worker = undefined;
    const exited = new Promise<void>((r) => worker.once('exit', () => r()));
    worker.postMessage('close');
    const timer = setTimeout(() => void worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }
}
