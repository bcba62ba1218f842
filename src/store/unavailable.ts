/**
 * Store faults that are not the request's doing and pass on their own: another process holding
 * SQLite's write lock past the busy timeout, PostgreSQL down, restarting or out of connections. The
 * error handler answers them 503 `store_unavailable` with `Retry-After` instead of 500.
 */
const SQLITE_CODES = /^SQLITE_(BUSY|LOCKED)/;
const PG_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P02', '57P03', '53300']);
const PG_MESSAGES = /Connection terminated|timeout exceeded when trying to connect/;

export function isStoreUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (SQLITE_CODES.test(code) || PG_CODES.has(code))) return true;
  return PG_MESSAGES.test(err.message);
}
