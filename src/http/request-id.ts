/**
 * Request ids: UUIDv7 (RFC 9562), time-ordered so that history entries land next to their
 * neighbours in the id index and sort by arrival. Ids made within one millisecond keep their order
 * through a counter seeded at random each millisecond, as the `uuid` package does; the random bytes
 * come from a pool refilled 256 ids at a time (one `getRandomValues` per id cost about 10 % of the
 * echo's CPU time).
 */
import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

const pool = Buffer.allocUnsafe(16 * 256);
let offset = pool.length;
let lastMs = -Infinity;
let seq = 0;

export function requestId(now = Date.now()): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const random = pool.subarray(offset, offset + 16);
  offset += 16;
  if (now > lastMs) {
    lastMs = now;
    seq = random.readUInt32BE(6) & 0x7fffffff; // 31 random bits: room to count up within the ms
  } else {
    seq = (seq + 1) | 0;
    if (seq === 0) lastMs++; // 2^32 ids in one ms: borrow the next ms, as uuid does
  }
  return v7({ msecs: lastMs, seq, random });
}
