/**
 * The QR decoding pool (SPEC §12): uploaded images are read in worker threads (qr-worker.ts), never
 * on the thread that answers requests. It is bounded three ways, each a setting: how many workers
 * decode at once (QR_WORKERS), how many images may wait for one (QR_QUEUE: one more is refused at
 * once with 503 `qr_busy`), and how long one image may take once a worker has it (QR_TIMEOUT: past
 * it the worker is terminated, the image answered 422 `qr_unreadable`, and a fresh worker takes the
 * next image). A worker that crashes fails its own image only (422) and is replaced the same way.
 */
import type { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../errors.js';
import { startWorker } from '../worker-thread.js';
import type { QrJob, QrReply } from './qr-worker.js';

export interface QrPoolOptions {
  /** Worker threads decoding at once (QR_WORKERS). */
  workers: number;
  /** Images waiting for a free worker (QR_QUEUE); one more is refused with 503. */
  queue: number;
  /** Longest time one image may take once its worker has it, in ms (QR_TIMEOUT); then 422. */
  timeoutMs: number;
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  /** Starts a worker that speaks the protocol of qr-worker.ts; tests pass stand-ins. */
  start?: () => Worker;
}

/** An image waiting for its text, and how to settle the request that waits for it. */
interface Job {
  image: ArrayBuffer;
  resolve: (text: string | undefined) => void;
  reject: (err: AppError) => void;
}

/** One worker thread: loaded or not yet, and the image it holds (with its time limit) if any. */
interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

const SHUTTING_DOWN = 'The server is shutting down: the QR image was not read; retry in a few seconds.';

const startQrWorker = (): Worker => startWorker(import.meta.url, 'qr-worker');

export class QrPool {
  private readonly slots = new Set<Slot>();
  private readonly waiting: Job[] = [];
  private closed = false;

  constructor(private readonly opts: QrPoolOptions) {}

  /**
   * The text of the first QR code found in `image`, or undefined when none could be read. Throws
   * AppError: `validation_error` (not a PNG, JPEG, GIF or WebP image, or too large), `qr_unreadable`
   * (the time limit ran out, or the decoder failed on this image), `qr_busy` (the queue is full).
   * The image's bytes are handed to the worker: `image` is empty afterwards.
   */
  read(image: Buffer): Promise<string | undefined> {
    if (this.closed) return Promise.reject(this.busy(SHUTTING_DOWN));
    if (this.busyCount() >= this.opts.workers && this.waiting.length >= this.opts.queue)
      return Promise.reject(
        this.busy(
          `QR decoding is busy (${this.opts.workers} being decoded and ${this.waiting.length} waiting); ` +
            'retry in a few seconds, or register the secret as JSON.',
        ),
      );
    return new Promise((resolve, reject) => {
      this.waiting.push({ image: detach(image), resolve, reject });
      this.pump();
    });
  }

  /** Refuses the images still waiting, and terminates the workers (an image being read is refused too). */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(this.busy(SHUTTING_DOWN));
    const exits = [...this.slots].map((slot) => {
      this.drop(slot)?.reject(this.busy(SHUTTING_DOWN));
      return slot.worker.terminate();
    });
    await Promise.allSettled(exits);
  }

  private busyCount(): number {
    let n = 0;
    for (const s of this.slots) if (s.job) n++;
    return n;
  }

  /** Hands waiting images to idle workers, starting workers up to the pool's size. */
  private pump(): void {
    while (this.waiting.length > 0 && !this.closed) {
      let slot = [...this.slots].find((s) => !s.job);
      if (!slot) {
        if (this.slots.size >= this.opts.workers) return;
        slot = this.spawn();
      }
      slot.job = this.waiting.shift();
      slot.worker.ref();
      if (slot.ready) this.send(slot);
    }
  }

  private spawn(): Slot {
    const worker = (this.opts.start ?? startQrWorker)();
    const slot: Slot = { worker, ready: false, job: undefined, timer: undefined };
    this.slots.add(slot);
    worker.on('message', (m: 'ready' | QrReply) => {
      if (!this.slots.has(slot)) return;
      if (m === 'ready') {
        slot.ready = true;
        if (slot.job) this.send(slot);
        return;
      }
      const job = this.release(slot);
      if (!job) return;
      if ('text' in m) job.resolve(m.text);
      else if ('refused' in m)
        job.reject(
          new AppError(
            m.refused.code,
            m.refused.message,
            m.refused.details ? { details: m.refused.details } : {},
          ),
        );
      else {
        this.opts.log.error({ err: m.failed }, 'QR decoding failed');
        job.reject(failed());
      }
      this.pump();
    });
    const lost = (err: Error): void => {
      const job = this.drop(slot);
      if (job === undefined) return;
      this.opts.log.error({ err }, 'QR worker crashed while reading an image; starting a fresh one');
      job.reject(failed());
      this.pump();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`QR worker exited with code ${code}`)));
    return slot;
  }

  /** Gives the slot's image to its loaded worker, and starts the image's time limit. */
  private send(slot: Slot): void {
    const job = slot.job!;
    const message: QrJob = { image: job.image };
    slot.worker.postMessage(message, [job.image]);
    slot.timer = setTimeout(() => {
      this.drop(slot);
      void slot.worker.terminate();
      this.opts.log.warn({ ms: this.opts.timeoutMs }, 'QR decoding ran out of time; worker terminated');
      job.reject(timedOut(this.opts.timeoutMs));
      this.pump();
    }, this.opts.timeoutMs);
  }

  /** The slot's worker is free again (idle workers do not keep the process alive); returns its job. */
  private release(slot: Slot): Job | undefined {
    const job = slot.job;
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
    slot.worker.unref();
    return job;
  }

  /** The slot's worker is gone or going: forget it; returns the job it held (once). */
  private drop(slot: Slot): Job | undefined {
    if (!this.slots.delete(slot)) return undefined;
    return this.release(slot);
  }

  /** 503, with a Retry-After of the time limit: by then a worker is free again. */
  private busy(message: string): AppError {
    return new AppError('qr_busy', message, {
      headers: { 'retry-after': String(Math.max(1, Math.ceil(this.opts.timeoutMs / 1000))) },
    });
  }
}

/** The image's own ArrayBuffer, to transfer; a copy when the Buffer is a view on a larger (pooled) one. */
function detach(image: Buffer): ArrayBuffer {
  const ab = image.buffer;
  if (ab instanceof ArrayBuffer && image.byteOffset === 0 && image.byteLength === ab.byteLength) return ab;
  const copy = new ArrayBuffer(image.byteLength);
  new Uint8Array(copy).set(image);
  return copy;
}

function timedOut(ms: number): AppError {
  return new AppError(
    'qr_unreadable',
    `The QR code search was stopped after ${ms} ms: send a smaller or sharper picture, cropped to the code.`,
    { details: [{ path: '/qrcode', message: `not read within ${ms} ms` }] },
  );
}

function failed(): AppError {
  return new AppError(
    'qr_unreadable',
    'The image could not be searched for a QR code: the decoder failed on it.',
    {
      details: [{ path: '/qrcode', message: 'the decoder failed on this image' }],
    },
  );
}
