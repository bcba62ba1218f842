/**
 * Reading a file the operator's configuration names (the mocks-as-code file and the blobs, OpenAPI
 * documents it names, PLANS_FILE, TLS_CERT, TLS_KEY). Invariants:
 * - open() never waits: O_NONBLOCK, so a FIFO without a writer cannot hang the start (a blocked
 *   synchronous open holds the event loop, and SIGTERM with it);
 * - only a regular file is read, as fstat of the opened descriptor says (a symbolic link counts as
 *   what it points to): a FIFO, a device (`/dev/zero` never ends), a socket or a directory is refused;
 * - the size is checked against the caller's limit before any byte is read, and the read stops at
 *   limit + 1 bytes, so a file that grows meanwhile is refused too, never read whole.
 * Errors are plain Errors whose message names the path; callers add the setting or field.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** What a non-regular file is, in words. */
function kind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

// O_NONBLOCK and O_NOCTTY do not exist on Windows, where a FIFO cannot be named by a path either.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

function openRegular(path: string): { fd: number; size: number } {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${path} is ${kind(st)}, not a regular file`);
    return { fd, size: st.size };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** Throws unless `path` can be opened and is a regular file; reads nothing. */
export function checkRegularFile(path: string): void {
  closeSync(openRegular(path).fd);
}

/** The contents of the regular file `path`, at most `limit` bytes; throws for anything else. */
export function readRegularFile(path: string, limit: number): Buffer {
  const { fd, size } = openRegular(path);
  try {
    if (size > limit) throw new Error(`${path} is ${size} bytes, larger than the limit of ${limit} bytes`);
    // One read of the size fstat gave (plus a byte to see growth), then more only if it grew.
    const parts: Buffer[] = [];
    let total = 0;
    let want = Math.min(size, limit) + 1;
    for (;;) {
      const buf = Buffer.alloc(want);
      let got = 0;
      while (got < want) {
        const n = readSync(fd, buf, got, want - got, null);
        if (n === 0) break;
        got += n;
      }
      parts.push(buf.subarray(0, got));
      total += got;
      if (total > limit) throw new Error(`${path} grew past the limit of ${limit} bytes while it was read`);
      if (got < want) return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
      want = Math.min(64 * 1024, limit + 1 - total);
    }
  } finally {
    closeSync(fd);
  }
}
