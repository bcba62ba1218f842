/**
 * Turning a validated history query into a Store filter, and a stored entry into its API shape.
 * The schemas (history-schemas.ts) check each value's form; this module checks what a schema cannot
 * (a date that exists, a regular expression that compiles, dateFrom not after dateTo).
 */
import { AppError } from '../errors.js';
import { userRegexProblem } from '../regex/index.js';
import { detail } from '../schema/index.js';
import type { HistoryEntry, HistoryFilter } from '../store/index.js';
import { MAX_PAGE, type DeleteQuery, type RequestRecord } from './history-schemas.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Longest `/…/` pattern accepted; patterns are written by API users and run over every entry. */
export const MAX_REGEX_LENGTH = 500;

function invalid(param: string, message: string, received: string): never {
  throw new AppError('validation_error', `Query parameter "${param}" ${message}.`, {
    details: [detail('/' + param, message, received)],
  });
}

/**
 * Parses an ISO 8601 timestamp already matched by ISO_DATE_PATTERN into epoch milliseconds, its
 * offset (`Z`, `+05:30`, `-0800`, `+02`) applied; undefined when the date, time or offset does not
 * exist (`2026-02-30`, `24:00`, `+25:00`), which `Date.parse` would silently roll over.
 */
export function parseIsoUtc(value: string): number | undefined {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):?(\d{2})?)?$/.exec(
      value,
    );
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]) - 1;
  const d = Number(m[3]);
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const s = Number(m[6] ?? '0');
  const ms = m[7] ? Number(m[7].padEnd(3, '0').slice(0, 3)) : 0;
  const t = Date.UTC(y, mo, d, h, mi, s, ms);
  const back = new Date(t);
  const exists =
    back.getUTCFullYear() === y &&
    back.getUTCMonth() === mo &&
    back.getUTCDate() === d &&
    back.getUTCHours() === h &&
    back.getUTCMinutes() === mi &&
    back.getUTCSeconds() === s;
  if (!exists) return undefined;
  if (m[8] === undefined) return t;
  const oh = Number(m[9]);
  const om = Number(m[10] ?? '0');
  if (oh > 14 || om > 59) return undefined;
  const offset = (oh * 60 + om) * 60_000;
  return m[8] === '+' ? t - offset : t + offset;
}

/** Milliseconds of a `dateRange` value already matched by DATE_RANGE_PATTERN. */
export function rangeMs(value: string): number {
  const unit = value.slice(-1) as keyof typeof UNIT_MS;
  return Number(value.slice(0, -1)) * UNIT_MS[unit];
}

/**
 * The Store filter for a validated query. `dateRange` and `dateFrom`/`dateTo` combine with AND like
 * every other filter (the later start and the earlier end win). Throws 400 validation_error naming
 * the parameter for values that match their schema but mean nothing.
 */
export function toFilter(q: DeleteQuery, now: number): HistoryFilter {
  const f: HistoryFilter = {};
  if (q.dateFrom !== undefined) {
    f.dateFrom =
      parseIsoUtc(q.dateFrom) ?? invalid('dateFrom', 'is not an existing date and time', q.dateFrom);
  }
  if (q.dateTo !== undefined) {
    f.dateTo = parseIsoUtc(q.dateTo) ?? invalid('dateTo', 'is not an existing date and time', q.dateTo);
  }
  if (q.dateRange !== undefined) {
    const from = now - rangeMs(q.dateRange);
    f.dateFrom = Math.max(f.dateFrom ?? from, from);
    f.dateTo = Math.min(f.dateTo ?? now, now);
  }
  if (f.dateFrom !== undefined && f.dateTo !== undefined && f.dateFrom > f.dateTo) {
    if (q.dateRange !== undefined) invalid('dateRange', 'does not overlap dateFrom..dateTo', q.dateRange);
    invalid('dateFrom', 'is after dateTo', q.dateFrom ?? '');
  }
  if (q.method !== undefined) f.method = q.method.toUpperCase();
  if (q.path !== undefined) f.path = pathFilter(q.path);
  if (q.status !== undefined) f.status = q.status;
  if (q.behavior !== undefined) f.behavior = q.behavior;
  if (q.ruleMatched !== undefined) f.ruleMatched = q.ruleMatched;
  if (q.requestBody !== undefined) f.requestBody = q.requestBody;
  if (q.responseBody !== undefined) f.responseBody = q.responseBody;
  if (q.isMultipart !== undefined) f.isMultipart = q.isMultipart;
  if (q.hasAttachments !== undefined) f.hasAttachments = q.hasAttachments;
  if (q.validation !== undefined) f.validation = q.validation;
  return f;
}

/**
 * `/…/` (at least one character between the slashes) is a regular expression, anything else a
 * substring. The pattern is checked here by the linear-time engine that runs it on SQLite, so that a
 * broken or unsupported one (backreferences, lookaround) is a 400, not a database error.
 */
function pathFilter(value: string): NonNullable<HistoryFilter['path']> {
  if (value.length < 3 || !value.startsWith('/') || !value.endsWith('/')) return { substring: value };
  const pattern = value.slice(1, -1);
  if (pattern.length > MAX_REGEX_LENGTH) {
    invalid('path', `is a regular expression longer than ${MAX_REGEX_LENGTH} characters`, value);
  }
  const problem = userRegexProblem(pattern);
  if (problem !== undefined) invalid('path', `is not a valid regular expression (${problem})`, value);
  return { regex: pattern };
}

/** Page size of the JSON list: 20 when left out; more than MAX_PAGE is a 400 (an export may ask more). */
export function pageSize(limit: number | undefined): number {
  if (limit !== undefined && limit > MAX_PAGE)
    invalid('limit', `must be at most ${MAX_PAGE} (more with format=har or ndjson)`, String(limit));
  return limit ?? 20;
}

/**
 * The most entries an export writes: `limit`, or `max` (HISTORY_EXPORT_MAX) when left out; more than
 * `max` is a 400. An export is always verbose: `mode=summary` beside it is refused, not ignored.
 */
export function exportLimit(limit: number | undefined, mode: string | undefined, max: number): number {
  if (mode === 'summary') invalid('mode', 'cannot be summary with format=har or ndjson', mode);
  if (limit !== undefined && limit > max)
    invalid('limit', `must be at most ${max} (HISTORY_EXPORT_MAX) with format=har or ndjson`, String(limit));
  return limit ?? max;
}

/** The API shape of an entry: the summary, plus headers and bodies when verbose. */
export function historyRecord(e: HistoryEntry, verbose: boolean): RequestRecord {
  const date = new Date(e.createdAt).toISOString();
  const r: RequestRecord = {
    id: e.id,
    date,
    method: e.method,
    path: e.path,
    status: e.status,
    timeTaken: Math.round(e.durationMs),
    rule:
      e.ruleMatched && e.ruleId !== null ? { matched: true, ruleId: e.ruleId } : { matched: e.ruleMatched },
    behavior: e.behavior,
    ip: e.ip,
    isMultipart: e.isMultipart,
    files: e.files,
    createdAt: date,
    durationMs: e.durationMs,
    requestBodyTruncated: e.requestBodyTruncated,
    responseBodyTruncated: e.responseBodyTruncated,
    problems: e.problems,
  };
  if (e.responseName !== undefined) r.responseName = e.responseName;
  if (e.grpc) r.grpc = e.grpc;
  // In the summary too: the log's badge and the live event need them, and they are bounded.
  if (e.validation) r.validation = e.validation;
  if (e.responseValidation) r.responseValidation = e.responseValidation;
  if (verbose) {
    r.request = {
      headers: e.requestHeaders,
      body: e.requestBody === '' ? null : e.requestBody,
      httpVersion: e.httpVersion,
    };
    r.response = { headers: e.responseHeaders, body: e.responseBody, httpVersion: e.httpVersion };
    if (e.callout) r.callout = calloutRecord(e);
    if (e.grpc) {
      Object.assign(r.request, messagesOf(e.requestBody, e.requestBodyTruncated));
      Object.assign(r.response, messagesOf(e.responseBody, e.responseBodyTruncated));
    }
  }
  return r;
}

/** A gRPC entry's messages of one direction: its body is their JSON array (history/grpc-entry.ts). */
function messagesOf(body: string, truncated: boolean): { messages: unknown[]; truncated: boolean } {
  try {
    const messages: unknown = JSON.parse(body);
    if (Array.isArray(messages)) return { messages, truncated };
  } catch {
    // Not written by the gRPC entry builder: no messages to show, and said so.
  }
  return { messages: [], truncated: true };
}

/** The API shape of an entry's callout; a sync callout's response body is the entry's own. */
function calloutRecord(e: HistoryEntry): NonNullable<RequestRecord['callout']> {
  const { sentAt, response, ...rest } = e.callout!;
  const out: NonNullable<RequestRecord['callout']> = { ...rest };
  if (sentAt !== undefined) out.sentAt = new Date(sentAt).toISOString();
  if (response) {
    const own = response.body === undefined;
    out.response = {
      status: response.status,
      headers: response.headers,
      body: own ? e.responseBody : response.body!,
      bodyTruncated: own ? e.responseBodyTruncated : response.bodyTruncated === true,
    };
  }
  return out;
}
