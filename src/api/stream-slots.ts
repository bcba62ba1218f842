/**
 * The bound on open event streams (SPEC §12): at most SSE_MAX_STREAMS on this instance and
 * SSE_MAX_STREAMS_PER_KEY per API key. A stream takes its slot before the response is taken over, so
 * that a refusal is an ordinary JSON error, and gives it back however it ends.
 */
import { AppError } from '../errors.js';

/** Seconds a refused client is told to wait: a slot frees only when some stream ends. */
export const STREAM_RETRY_AFTER_S = 10;

export interface StreamLimits {
  /** Streams open at once, all keys together. */
  total: number;
  /** Streams one key may hold open at once. */
  perKey: number;
}

export class StreamSlots {
  private total = 0;
  private readonly perKey = new Map<string, number>();

  constructor(private readonly limits: StreamLimits) {}

  /** Streams open now, all keys together. */
  get open(): number {
    return this.total;
  }

  /** Streams `keyId` holds open now. */
  openFor(keyId: string): number {
    return this.perKey.get(keyId) ?? 0;
  }

  /**
   * Takes a slot for a stream of `keyId`, or throws 429 `rate_limited` (with Retry-After) naming the
   * cap that is reached. Returns the function that gives the slot back; calling it again does nothing.
   */
  take(keyId: string): () => void {
    const mine = this.openFor(keyId);
    if (mine >= this.limits.perKey)
      throw refused(
        `This API key already holds ${mine} open event streams, the most SSE_MAX_STREAMS_PER_KEY allows; ` +
          'close one or retry later.',
      );
    if (this.total >= this.limits.total)
      throw refused(
        `The server already holds ${this.total} open event streams, the most SSE_MAX_STREAMS allows; retry later.`,
      );
    this.total++;
    this.perKey.set(keyId, mine + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.total--;
      const left = this.openFor(keyId) - 1;
      if (left > 0) this.perKey.set(keyId, left);
      else this.perKey.delete(keyId);
    };
  }
}

function refused(message: string): AppError {
  return new AppError('rate_limited', message, { headers: { 'retry-after': String(STREAM_RETRY_AFTER_S) } });
}
