/**
 * The bound on CRUD list answers being written (issue 30, item 1): list reads need no key, and each
 * answer's bytes stay in this process until its reader has taken them. 48 clients that never read
 * held 4.4 GB. A list read reserves the largest page (CRUD_LIST_MAX_BYTES) before the store is read,
 * keeps what its page really weighs once built, and gives it back when the answer has been handed to
 * the kernel, its connection has closed, or it was not written at all. The instance holds at most
 * CRUD_LIST_BUFFERED_BYTES of list answers and one client address CRUD_LIST_BUFFERED_BYTES_PER_IP, so
 * that readers from one address that never read cannot take every other client's turn. An answer still
 * not handed over after REQUEST_TIMEOUT has its connection reset, which frees its bytes.
 */
import type { ServerResponse } from 'node:http';
import { resetConnection } from '../http/index.js';

export interface CrudListBudgetOptions {
  /** Bytes of list answers being written at once, all clients together. */
  total: number;
  /** Bytes of list answers being written at once to one client address. */
  perIp: number;
  /** Ms an answer may take to be handed to the kernel before its connection is reset. */
  writeTimeoutMs: number;
}

/** A reservation: shrunk to the page's real size, then tied to the response that writes it. */
export interface CrudListTicket {
  /** Keeps `bytes` (at most what was reserved) and gives the rest back. */
  shrink: (bytes: number) => void;
  /** Holds the bytes until `res` has finished or closed (or the deadline resets it). */
  attach: (res: ServerResponse) => void;
  /** Gives everything back (idempotent). */
  release: () => void;
}

export class CrudListBudget {
  private held = 0;
  private peak = 0;
  private readonly byIp = new Map<string, number>();

  constructor(private readonly o: CrudListBudgetOptions) {}

  /** Bytes of list answers held now, the most held at once since start, and the addresses holding some. */
  stats(): { held: number; peak: number; addresses: number } {
    return { held: this.held, peak: this.peak, addresses: this.byIp.size };
  }

  /**
   * Reserves `bytes` for an answer to `ip`, or says which bound it would pass ('ip' or 'total').
   */
  take(ip: string, bytes: number): CrudListTicket | 'ip' | 'total' {
    const mine = this.byIp.get(ip) ?? 0;
    if (mine + bytes > this.o.perIp) return 'ip';
    if (this.held + bytes > this.o.total) return 'total';
    let kept = bytes;
    let writing: ServerResponse | undefined;
    this.add(ip, kept);
    const release = (): void => {
      if (kept === 0) return;
      clearTimeout(deadline);
      this.add(ip, -kept);
      kept = 0;
    };
    // From the reservation on, not from the write: an answer that is never written (a failure on
    // the way) gives its bytes back at the deadline all the same.
    const deadline = setTimeout(() => {
      release();
      if (writing && !writing.writableFinished) resetConnection(writing);
    }, this.o.writeTimeoutMs);
    deadline.unref();
    return {
      shrink: (n) => {
        if (n >= kept) return;
        this.add(ip, n - kept);
        kept = n;
      },
      attach: (res) => {
        if (kept === 0 || writing) return;
        writing = res;
        if (res.writableFinished || res.destroyed) return release();
        res.once('finish', release);
        res.once('close', release);
      },
      release,
    };
  }

  private add(ip: string, n: number): void {
    this.held += n;
    if (this.held > this.peak) this.peak = this.held;
    const left = (this.byIp.get(ip) ?? 0) + n;
    if (left > 0) this.byIp.set(ip, left);
    else this.byIp.delete(ip);
  }
}
