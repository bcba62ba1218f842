/**
 * Store faults that are not the request's doing: another process holding SQLite's write lock past the
 * busy timeout, another instance holding an endpoint's PostgreSQL lock past its timeout (advisory.ts),
 * PostgreSQL down, restarting or out of connections, and a full disk (SQLite's
 * SQLITE_FULL, the system's ENOSPC or EDQUOT, PostgreSQL's disk_full 53100). The error handler answers
 * them 503 `store_unavailable` with `Retry-After` instead of 500: the write may succeed once the lock
 * is released, the server is back or space is freed, and the client is not at fault.
 */
const SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|FULL)/;
// 55P03: a lock waited for past its timeout (advisory.ts: a holder out of reach).
const PG_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '55P03',
]);
const PG_MESSAGES = /Connection terminated|timeout exceeded when trying to connect/;
const FULL_CODES = /^(SQLITE_FULL|ENOSPC|EDQUOT|53100)$/;

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** True when the store cannot take the request now but may later (busy, away, or out of space). */
export function isStoreUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = codeOf(err);
  if (code !== undefined && (SQLITE_CODES.test(code) || PG_CODES.has(code) || FULL_CODES.test(code)))
    return true;
  return PG_MESSAGES.test(err.message);
}

/** True when the store refused a write because its disk (or the database's size limit) is full. */
export function isStoreFull(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = codeOf(err);
  return code !== undefined && FULL_CODES.test(code);
}

/**
 * True when the store refused a value of the write itself, which a retry would meet again:
 * PostgreSQL's data exceptions (class 22: U+0000 in text, an untranslatable character, a value out
 * of range) and SQLite's value errors (too big, a type mismatch).
 */
export function isValueRefused(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = codeOf(err);
  return code !== undefined && (/^22[0-9A-Z]{3}$/.test(code) || /^SQLITE_(TOOBIG|MISMATCH)/.test(code));
}
