/**
 * A history entry as the `requests` and `request_files` rows that store it: shared by the Kysely
 * insert, the prepared-statement insert and the history worker (which builds the rows from the
 * batch it is handed, off the thread that answers requests).
 */
import type { Database } from './schema.js';
import { entryWeight } from './history-size.js';
import type { HistoryFile, NewHistoryEntry } from './types.js';

export type RequestRow = Database['requests'];
export type FileRow = Omit<Database['request_files'], 'seq'>;

/** The `requests` row of an entry; `size` is its weight (history-size.ts), measured when the writer has not. */
export function toRow(n: NewHistoryEntry): RequestRow {
  const e = n.entry;
  return {
    id: e.id,
    endpoint: e.endpoint,
    created_at: e.createdAt,
    method: e.method,
    path: e.path,
    ip: e.ip,
    status: e.status,
    behavior: e.behavior,
    rule_matched: e.ruleMatched ? 1 : 0,
    rule_id: e.ruleId,
    duration_ms: e.durationMs,
    request_headers: JSON.stringify(e.requestHeaders),
    request_body: e.requestBody,
    request_body_truncated: e.requestBodyTruncated ? 1 : 0,
    response_headers: JSON.stringify(e.responseHeaders),
    response_body: e.responseBody,
    response_body_truncated: e.responseBodyTruncated ? 1 : 0,
    files: JSON.stringify(e.files),
    problems: JSON.stringify(e.problems),
    response_name: e.responseName ?? null,
    size: n.weight ?? entryWeight(n),
    callout: e.callout ? JSON.stringify(e.callout) : null,
    http_version: e.httpVersion,
    is_multipart: e.isMultipart ? 1 : 0,
  };
}

export function fileRow(endpoint: string, f: HistoryFile): FileRow {
  return {
    request_id: f.requestId,
    endpoint,
    field_name: f.fieldName,
    file_name: f.fileName,
    content_type: f.contentType,
    size: f.size,
    data: f.data,
  };
}

/** A `requests` column's value, as bound to a prepared statement. */
export type RowValue = string | number | null;

/**
 * The `requests` row of an entry as its values in REQUEST_COLUMNS order (sqlite-insert.ts), the form
 * a prepared statement binds and a worker message carries: a flat list of strings and numbers is
 * copied across threads far more cheaply than objects or JSON (which the other side must parse).
 */
export function rowValues(n: NewHistoryEntry): RowValue[] {
  const e = n.entry;
  return [
    e.id,
    e.endpoint,
    e.createdAt,
    e.method,
    e.path,
    e.ip,
    e.status,
    e.behavior,
    e.ruleMatched ? 1 : 0,
    e.ruleId,
    e.durationMs,
    JSON.stringify(e.requestHeaders),
    e.requestBody,
    e.requestBodyTruncated ? 1 : 0,
    JSON.stringify(e.responseHeaders),
    e.responseBody,
    e.responseBodyTruncated ? 1 : 0,
    JSON.stringify(e.files),
    JSON.stringify(e.problems),
    e.responseName ?? null,
    n.weight ?? entryWeight(n),
    e.callout ? JSON.stringify(e.callout) : null,
    e.httpVersion,
    e.isMultipart ? 1 : 0,
  ];
}
