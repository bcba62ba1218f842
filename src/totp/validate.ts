/**
 * Validation of the TOTP API's inputs: the JSON registration body, the `:id` parameter and the
 * query string. Every problem becomes one detail of a 400 `validation_error`; a secret is never
 * echoed back in a detail.
 */
import { AppError, type ErrorDetail } from '../errors.js';
import { received } from '../schema/index.js';
import {
  decodeBase32Secret,
  DIGITS_DEFAULT,
  DIGITS_MAX,
  DIGITS_MIN,
  inRange,
  parseAlgorithm,
  PERIOD_DEFAULT,
  PERIOD_MAX,
  PERIOD_MIN,
  type Algorithm,
} from './codes.js';
import { parseImportUri, type ParsedImport } from './import-uri.js';

/** Longest issuer accepted, in characters. */
export const ISSUER_MAX_LENGTH = 200;

const FIELDS = new Set(['issuer', 'secret', 'algorithm', 'digits', 'period', 'uri']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// ISO 8601 date-time: date, 'T', hours and minutes, optional seconds and fraction, optional zone.
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** The received value as every error detail shows it: JSON text, cut (schema/validate.ts). */
function shown(v: unknown): string {
  return received(v) ?? String(v);
}

/**
 * Validates a JSON registration body. Returns the account(s) to register; throws AppError
 * `validation_error` listing every problem found.
 */
export function parseRegistration(body: unknown): ParsedImport {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AppError(
      'validation_error',
      'Send a JSON object such as {"issuer":"ACME","secret":"JBSWY3DPEHPK3PXP"}, or an image in the multipart field "qrcode".',
    );
  const b = body as Record<string, unknown>;
  const details: ErrorDetail[] = [];
  for (const key of Object.keys(b))
    if (!FIELDS.has(key))
      details.push({
        path: `/${key}`,
        message: 'is not a known field (issuer, secret, algorithm, digits, period, uri)',
      });

  let issuer: string | null = null;
  if (b.issuer !== undefined && b.issuer !== null) {
    if (typeof b.issuer !== 'string')
      details.push({ path: '/issuer', message: 'must be a string', received: shown(b.issuer) });
    else if (b.issuer.length > ISSUER_MAX_LENGTH)
      details.push({ path: '/issuer', message: `must be at most ${ISSUER_MAX_LENGTH} characters` });
    else issuer = b.issuer.trim() || null;
  }

  if (b.uri !== undefined) {
    for (const key of ['secret', 'algorithm', 'digits', 'period'])
      if (b[key] !== undefined)
        details.push({ path: `/${key}`, message: 'must not be given with uri (the URI carries it)' });
    if (typeof b.uri !== 'string')
      details.push({ path: '/uri', message: 'must be a string', received: shown(b.uri) });
    fail(details);
    const parsed = parseImportUri(b.uri as string, '/uri');
    // An issuer in the body names the account, as it would with a secret.
    if (parsed.kind === 'single' && issuer !== null) parsed.account.issuer = issuer;
    return parsed;
  }

  let secret: Uint8Array | undefined;
  if (b.secret === undefined || b.secret === null)
    details.push({ path: '/secret', message: 'is required (base32), unless uri is given' });
  else if (typeof b.secret !== 'string')
    details.push({ path: '/secret', message: 'must be a base32 string' });
  else {
    const decoded = decodeBase32Secret(b.secret);
    if (decoded.ok) secret = decoded.bytes;
    else details.push({ path: '/secret', message: decoded.message });
  }

  let algorithm: Algorithm | undefined = 'SHA1';
  if (b.algorithm !== undefined && b.algorithm !== null) {
    algorithm = typeof b.algorithm === 'string' ? parseAlgorithm(b.algorithm) : undefined;
    if (!algorithm)
      details.push({
        path: '/algorithm',
        message: 'must be SHA1, SHA256 or SHA512',
        received: shown(b.algorithm),
      });
  }
  const digits = b.digits ?? DIGITS_DEFAULT;
  if (!inRange(digits, DIGITS_MIN, DIGITS_MAX))
    details.push({
      path: '/digits',
      message: `must be a whole number from ${DIGITS_MIN} to ${DIGITS_MAX}`,
      received: shown(digits),
    });
  const period = b.period ?? PERIOD_DEFAULT;
  if (!inRange(period, PERIOD_MIN, PERIOD_MAX))
    details.push({
      path: '/period',
      message: `must be a whole number of seconds from ${PERIOD_MIN} to ${PERIOD_MAX}`,
      received: shown(period),
    });
  fail(details);
  return {
    kind: 'single',
    account: {
      secret: secret!,
      algorithm: algorithm!,
      digits: digits as number,
      period: period as number,
      issuer,
      name: '',
    },
  };
}

function fail(details: ErrorDetail[]): void {
  if (details.length === 0) return;
  const first = details[0]!;
  throw new AppError('validation_error', `${first.path.slice(1)} ${first.message}.`, { details });
}

/** The id in canonical (lower) case; throws a 400 when it is not a UUID. */
export function parseId(raw: string): string {
  if (!UUID.test(raw))
    throw new AppError(
      'validation_error',
      'The id must be a UUID such as 2f1e9c4a-7b3d-4e8f-9a6b-1c2d3e4f5a6b.',
      {
        details: [{ path: '/id', message: 'must be a UUID', received: shown(raw) }],
      },
    );
  return raw.toLowerCase();
}

/**
 * Validates the query string: only `at` (an ISO 8601 time, UTC when no zone is given, not before
 * 1970) is known. Returns the instant in epoch milliseconds, or undefined for "now".
 */
export function parseQuery(query: Record<string, unknown>): number | undefined {
  const details: ErrorDetail[] = [];
  for (const key of Object.keys(query))
    if (key !== 'at') details.push({ path: `/${key}`, message: 'is not a known query parameter (at)' });
  fail(details);
  const at = query.at;
  if (at === undefined) return undefined;
  const m = typeof at === 'string' ? ISO_TIME.exec(at) : null;
  const ms = m ? Date.parse(m[7] ? (at as string) : `${at as string}Z`) : NaN;
  // Date.parse may roll 2021-02-30 over to March; a round trip of the date part catches it.
  const valid = m !== null && Number.isFinite(ms) && ms >= 0 && isCalendarTime(m);
  if (!valid)
    throw new AppError('validation_error', 'at must be an ISO 8601 time such as 2026-05-15T02:46:30Z.', {
      details: [{ path: '/at', message: 'must be an ISO 8601 time, not before 1970', received: shown(at) }],
    });
  return ms;
}

/** True when the matched date exists and the time of day is within 00:00:00–23:59:59. */
function isCalendarTime(m: RegExpExecArray): boolean {
  const [, y, mo, d, h, mi, s] = m;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) return false;
  const probe = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  return probe.getUTCMonth() === Number(mo) - 1 && probe.getUTCDate() === Number(d);
}
