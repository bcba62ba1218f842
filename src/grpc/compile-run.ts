/**
 * Compiling a gRPC upload off the event loop: each upload gets a fresh worker thread
 * (compile-worker.ts) with bounded memory and time (worker-thread.ts' `boundedWorker`). At most
 * `GRPC_COMPILES_AT_ONCE` run together and `GRPC_COMPILES_WAITING` wait; more uploads at the same
 * moment are refused with 429 rather than queued without bound (each holds up to GRPC_SPEC_LIMIT bytes).
 */
import { AppError } from '../errors.js';
import { boundedWorker } from '../worker-thread.js';
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

const compile = boundedWorker<CompileRequest, CompileReply>({
  from: import.meta.url,
  name: 'compile-worker',
  heapMb: GRPC_COMPILE_HEAP_MB,
  atOnce: GRPC_COMPILES_AT_ONCE,
  waiting: GRPC_COMPILES_WAITING,
  refusals: {
    tooSlow: (s) =>
      refused(`The upload could not be compiled within ${s} s; it is too large or too complex.`),
    tooBig: () => refused('The upload needs more memory to compile than an upload may use; it is too large.'),
    busy: () =>
      new AppError('rate_limited', 'Too many gRPC uploads are being compiled at the moment; retry shortly.', {
        headers: { 'retry-after': '5' },
      }),
  },
});

/**
 * Compiles a gRPC upload (a .proto or a descriptor set) in a worker thread, within `timeoutMs`
 * (GRPC_COMPILE_TIMEOUT_MS by default). Throws the compiler's AppError (`validation_error` with
 * details), `validation_error` when time or memory runs out, or `rate_limited` past the queue.
 */
export async function compileInWorker(
  input: { data: Buffer; filename?: string },
  opts: { timeoutMs?: number } = {},
): Promise<CompiledUpload> {
  const request: CompileRequest = { data: input.data };
  if (input.filename !== undefined) request.filename = input.filename;
  const reply = await compile(request, opts.timeoutMs ?? GRPC_COMPILE_TIMEOUT_MS);
  if (!reply.ok) throw new AppError(reply.code, reply.message, { details: reply.details });
  return reply.compiled;
}
