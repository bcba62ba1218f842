/**
 * The compile worker thread: compiles one gRPC upload (compile.ts) away from the thread that answers
 * requests, since a large .proto or descriptor set is many milliseconds of synchronous work (SPEC §12).
 * It answers one message and is then ended by compile-run.ts. An AppError crosses as its code,
 * message and details; anything else as a message.
 */
import { parentPort } from 'node:worker_threads';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { compileUpload, type CompiledUpload } from './compile.js';

export interface CompileRequest {
  data: Uint8Array;
  filename?: string;
}

export type CompileReply =
  | { ok: true; compiled: CompiledUpload }
  | { ok: false; code: ErrorCode; message: string; details: ErrorDetail[] };

function compile(m: CompileRequest): CompileReply {
  try {
    const data = Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength);
    return {
      ok: true,
      compiled: compileUpload(m.filename === undefined ? { data } : { data, filename: m.filename }),
    };
  } catch (err) {
    if (err instanceof AppError)
      return { ok: false, code: err.code, message: err.message, details: err.details ?? [] };
    const message = `The upload could not be compiled: ${err instanceof Error ? err.message : String(err)}`;
    return { ok: false, code: 'validation_error', message, details: [{ path: '/file', message }] };
  }
}

const port = parentPort;
if (!port) throw new Error('compile-worker runs as a worker thread');
port.once('message', (m: CompileRequest) => port.postMessage(compile(m)));
