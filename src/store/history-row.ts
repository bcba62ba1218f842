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

/** The `requests` row of an entry; `size` is its weight (history-size.ts), computed when left out. */
export function toRow({ entry: e, files }: NewHistoryEntry, size?: number): RequestRow {
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
    size: size ?? entryWeight({ entry: e, files }),
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

/** The rows of a batch of entries. */
export function toRows(entries: NewHistoryEntry[]): { rows: RequestRow[]; files: FileRow[] } {
  return {
    rows: entries.map((e) => toRow(e)),
    files: entries.flatMap((e) => e.files.map((f) => fileRow(e.entry.endpoint, f))),
  };
}
