/**
 * Compiling a gRPC upload off the event loop: each upload gets a fresh worker thread
 * (compile-worker.ts) with bounded memory and time, ended once it answers. At most
 * `GRPC_COMPILES_AT_ONCE` run together and `GRPC_COMPILES_WAITING` wait; more uploads at the same
 * moment are refused with 429 rather than queued without bound (each holds up to GRPC_SPEC_LIMIT bytes).
 */
import { AppError } from '../errors.js';
import { startWorker } from '../worker-thread.js';
import type { CompiledUpload } from './compile.js';
import type { CompileReply, CompileRequest } from './compile-worker.js';

/** Compilations running at the same time. */
export const GRPC_COMPILES_AT_ONCE = 2;
/** Uploads waiting for a compilation slot; past it, 429. */
export const GRPC_COMPILES_WAITING = 8;
/** Longest a compilation may run before the upload is refused. */
export const GRPC_COMPILE_TIMEOUT_MS = 20_000;
/** Heap of one compile worker, in MB: an upload that needs more is refused. */
export const GRPC_COMPILE_HEAP_MB = 256;

function refused(message: string): AppError {
  return new AppError('validation_error', message, { details: [{ path: '/file', message }] });
}

function runWorker(request: CompileRequest, timeoutMs: number): Promise<CompileReply> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(import.meta.url, 'compile-worker', {
      resourceLimits: { maxOldGenerationSizeMb: GRPC_COMPILE_HEAP_MB },
    });
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            refused(
              `The upload could not be compiled within ${timeoutMs / 1000} s; it is too large or too complex.`,
            ),
          ),
        ),
      timeoutMs,
    );
    worker.once('message', (reply: CompileReply) => finish(() => resolve(reply)));
    worker.once('error', (err: Error & { code?: string }) =>
      finish(() =>
        reject(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? refused('The upload needs more memory to compile than an upload may use; it is too large.')
            : err,
        ),
      ),
    );
    worker.once('exit', (code) =>
      finish(() => reject(new Error(`gRPC compile worker exited with code ${code}`))),
    );
    worker.postMessage(request);
  });
}

let running = 0;
const waiting: (() => void)[] = [];

async function slot(): Promise<() => void> {
  if (running >= GRPC_COMPILES_AT_ONCE) {
    if (waiting.length >= GRPC_COMPILES_WAITING)
      throw new AppError(
        'rate_limited',
        'Too many gRPC uploads are being compiled at the moment; retry shortly.',
        {
          headers: { 'retry-after': '5' },
        },
      );
    await new Promise<void>((r) => waiting.push(r));
  } else running++;
  return () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
}

/**
 * Compiles a gRPC upload (a .proto or a descriptor set) in a worker thread, within `timeoutMs`
 * (GRPC_COMPILE_TIMEOUT_MS by default). Throws the compiler's AppError (`validation_error` with
 * details), `validation_error` when time or memory runs out, or `rate_limited` past the queue.
 */
export async function compileInWorker(
  input: { data: Buffer; filename?: string },
  opts: { timeoutMs?: number } = {},
): Promise<CompiledUpload> {
  const release = await slot();
  let reply: CompileReply;
  try {
    const request: CompileRequest = { data: input.data };
    if (input.filename !== undefined) request.filename = input.filename;
    reply = await runWorker(request, opts.timeoutMs ?? GRPC_COMPILE_TIMEOUT_MS);
  } finally {
    release();
  }
  if (!reply.ok) throw new AppError(reply.code, reply.message, { details: reply.details });
  return reply.compiled;
}
