/**
 * Starting a worker thread from a module of src/, both from the compiled JavaScript (`dist/`) and
 * from the TypeScript sources under tsx (the tests, `npm run bench:*`), where the worker needs tsx's
 * loader too. Used by the history writer (store/) and the QR decoder (totp/); `boundedWorker` runs the
 * one-shot workers of uploads (OpenAPI validation in oas/, gRPC compilation in grpc/).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { AppError } from './errors.js';

/**
 * Starts the worker module `name` (without extension) that lies beside the module `from`
 * (its `import.meta.url`), with `options` (workerData, resource limits …).
 */
export function startWorker(from: string, name: string, options: WorkerOptions = {}): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, from);
  if (!fromSource) return new Worker(url, options);
  const code = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(code, { ...options, eval: true });
}

/** How a bounded worker runner refuses: each message as the caller's API words it. */
export interface WorkerRefusals {
  /** The work did not end within `seconds`. */
  tooSlow(seconds: number): AppError;
  /** The worker ran out of its heap. */
  tooBig(): AppError;
  /** `atOnce` run and `waiting` wait already. */
  busy(): AppError;
}

export interface BoundedWorkerOptions {
  /** The module beside which the worker lies (its `import.meta.url`), and the worker's name. */
  from: string;
  name: string;
  /** Heap of one worker, in MB. */
  heapMb: number;
  /** Workers running at the same time, and calls waiting for one; past both, `busy()`. */
  atOnce: number;
  waiting: number;
  refusals: WorkerRefusals;
}

/**
 * A runner of one-shot workers: each call gets a fresh worker thread with bounded memory and time,
 * posts it `request`, resolves with its first message, and ends it. At most `atOnce` run together
 * and `waiting` wait; a call past both is refused at once rather than queued without bound (each
 * holds its request, an upload of up to its limit). A worker that exits without answering rejects.
 */
export function boundedWorker<Request, Reply>(
  o: BoundedWorkerOptions,
): (request: Request, timeoutMs: number) => Promise<Reply> {
  let running = 0;
  const queue: (() => void)[] = [];

  async function slot(): Promise<() => void> {
    if (running >= o.atOnce) {
      if (queue.length >= o.waiting) throw o.refusals.busy();
      await new Promise<void>((r) => queue.push(r));
    } else running++;
    return () => {
      const next = queue.shift();
      if (next) next();
      else running--;
    };
  }

  function run(request: Request, timeoutMs: number): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const worker = startWorker(o.from, o.name, { resourceLimits: { maxOldGenerationSizeMb: o.heapMb } });
      let settled = false;
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
        void worker.terminate();
      };
      const timer = setTimeout(() => finish(() => reject(o.refusals.tooSlow(timeoutMs / 1000))), timeoutMs);
      worker.once('message', (reply: Reply) => finish(() => resolve(reply)));
      worker.once('error', (err: Error & { code?: string }) =>
        finish(() => reject(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? o.refusals.tooBig() : err)),
      );
      worker.once('exit', (code) =>
        finish(() => reject(new Error(`worker ${o.name} exited with code ${code}`))),
      );
      worker.postMessage(request);
    });
  }

  return async (request, timeoutMs) => {
    const release = await slot();
    try {
      return await run(request, timeoutMs);
    } finally {
      release();
    }
  };
}
