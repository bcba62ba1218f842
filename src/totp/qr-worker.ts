/**
 * The QR worker thread: reads one uploaded image at a time with readQrText (qr.ts), so that sharp's
 * decoding and jsQR's search, all of it, run off the thread that answers requests. It says `'ready'`
 * once loaded; then each `QrJob` in gets one `QrReply` out. The pool (qr-pool.ts) bounds its time:
 * a worker still searching at the time limit is terminated, not asked to stop.
 */
import { parentPort } from 'node:worker_threads';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { readQrText } from './qr.js';

/** One image, its bytes transferred (not copied) from the main thread. */
export interface QrJob {
  image: ArrayBuffer;
}

/**
 * What the search found (`text` is undefined when no code was read), an error meant for the client
 * (the bytes are not an image of the four formats, or too large), or a fault of the decoder.
 */
export type QrReply =
  | { text: string | undefined }
  | { refused: { code: ErrorCode; message: string; details: ErrorDetail[] | undefined } }
  | { failed: string };

const port = parentPort;
if (!port) throw new Error('qr-worker runs as a worker thread');

port.on('message', (job: QrJob) => {
  readQrText(Buffer.from(job.image)).then(
    (text) => port.postMessage({ text } satisfies QrReply),
    (err: unknown) => {
      const reply: QrReply =
        err instanceof AppError
          ? { refused: { code: err.code, message: err.message, details: err.details } }
          : { failed: err instanceof Error ? err.message : String(err) };
      port.postMessage(reply);
    },
  );
});
port.postMessage('ready');
