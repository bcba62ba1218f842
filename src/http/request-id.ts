/**
 * Request ids: UUIDv7 (RFC 9562), time-ordered so that history entries land next to their
 * neighbours in the id index and sort by arrival. Ids made within one millisecond keep their order
 * through a counter seeded at random each millisecond, laid out as the `uuid` package's `v7` lays
 * it out (the test checks the two agree byte for byte). The random bytes come from a pool refilled
 * 256 ids at a time, and the text is written here rather than by `v7`: the millisecond's part once
 * per millisecond, the random tail sliced from the pool's hex, leaving five bytes to format per id
 * where `v7` formats sixteen into a new array (the costs: docs/performance.md, "Measurements behind
 * the code").
 */
import { randomFillSync } from 'node:crypto';

const IDS_PER_FILL = 256;
const pool = Buffer.allocUnsafe(16 * IDS_PER_FILL);
/** The pool as hex, two characters a byte. */
let poolHex = '';
let offset = pool.length;
let lastMs = -Infinity;
let seq = 0;
/** `xxxxxxxx-xxxx-` for lastMs. */
let msPart = '';

const HEX = Array.from({ length: 256 }, (_, i) => (i + 0x100).toString(16).slice(1));

export function requestId(now = Date.now()): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    poolHex = pool.toString('hex');
    offset = 0;
  }
  const at = offset;
  offset += 16;
  if (now > lastMs) {
    lastMs = now;
    seq = pool.readUInt32BE(at + 6) & 0x7fffffff; // 31 random bits: room to count up within the ms
    msPart = millisecondPart(lastMs);
  } else {
    seq = (seq + 1) | 0;
    if (seq === 0) msPart = millisecondPart(++lastMs); // 2^32 ids in one ms: borrow the next ms, as uuid does
  }
  return idText(msPart, seq, pool, poolHex, at);
}

/**
 * The first two groups and their dashes: the 48-bit millisecond timestamp, big-endian, a byte at a
 * time as `v7` writes it (`ms.toString(16)` goes through V8's slow path for doubles, and few
 * requests share a millisecond).
 */
function millisecondPart(ms: number): string {
  return (
    HEX[(ms / 0x10000000000) & 0xff]! +
    HEX[(ms / 0x100000000) & 0xff]! +
    HEX[(ms / 0x1000000) & 0xff]! +
    HEX[(ms / 0x10000) & 0xff]! +
    '-' +
    HEX[(ms / 0x100) & 0xff]! +
    HEX[ms & 0xff]! +
    '-'
  );
}

/**
 * The id's text after the millisecond's part: version 7 and the counter's top 12 bits, the variant
 * and the next 14, then its last 6 above 2 random bits and 5 random bytes, from the 16 random bytes
 * at `at` in `bytes` (`hex` is their hex: the last 5 are sliced from it, not formatted).
 */
function idText(msPart: string, seq: number, bytes: Uint8Array, hex: string, at: number): string {
  return (
    msPart +
    HEX[0x70 | ((seq >>> 28) & 0x0f)]! +
    HEX[(seq >>> 20) & 0xff]! +
    '-' +
    HEX[0x80 | ((seq >>> 14) & 0x3f)]! +
    HEX[(seq >>> 6) & 0xff]! +
    '-' +
    HEX[((seq << 2) & 0xff) | (bytes[at + 10]! & 0x03)]! +
    hex.slice(2 * at + 22, 2 * at + 32)
  );
}

/**
 * The id made from these parts by the code `requestId` uses (for the test that checks it against
 * `v7`); the random bytes sit at offset 0 here, where `requestId` reads them at a pool offset.
 */
export function idFromParts(ms: number, seq: number, random: Uint8Array): string {
  const bytes = Buffer.from(random.buffer, random.byteOffset, 16);
  return idText(millisecondPart(ms), seq, bytes, bytes.toString('hex'), 0);
}
