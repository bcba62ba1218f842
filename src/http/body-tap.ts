/**
 * A pass-through that keeps the first `limit` bytes of what flows through it (and knows whether there
 * was more): a streamed answer goes to the client as it arrives while the history keeps its start.
 */
import { Transform, type TransformCallback } from 'node:stream';

export class BodyTap extends Transform {
  private readonly kept: Buffer[] = [];
  private size = 0;
  private total = 0;

  constructor(private readonly limit: number) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.total += chunk.length;
    if (this.size < this.limit) {
      const part = chunk.subarray(0, this.limit - this.size);
      this.kept.push(part);
      this.size += part.length;
    }
    done(null, chunk);
  }

  /** Bytes that went through. */
  get length(): number {
    return this.total;
  }

  /** What was kept, and whether it is cut. */
  captured(): { body: Buffer; truncated: boolean } {
    return { body: Buffer.concat(this.kept), truncated: this.total > this.size };
  }
}
