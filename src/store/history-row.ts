/**
 * A history entry as the `requests` and `request_files` rows that store it: shared by the Kysely
 * insert (rows by column name) and the prepared-statement inserts, the history worker's included
 * (rows as the values they bind, built on the main thread and handed over in one flat list).
 */
import type { Database } from './schema.js';
import { entryWeight } from './history-size.js';
import type { HistoryFile, NewHistoryEntry } from './types.js';

export type RequestRow = Database['requests'];
export type FileRow = Omit<Database['request_files'], 'seq'>;

/** A `requests` column's value, as bound to a prepared statement. */
export type RowValue = string | number | null;

/** The columns of `requests`, in the order `rowValues` lists an entry's values. */
export const REQUEST_COLUMNS: (keyof RequestRow)[] = [
  'id',
  'endpoint',
  'created_at',
  'method',
  'path',
  'ip',
  'status',
  'behavior',
  'rule_matched',
  'rule_id',
  'duration_ms',
  'request_headers',
  'request_body',
  'request_body_truncated',
  'response_headers',
  'response_body',
  'response_body_truncated',
  'files',
  'problems',
  'response_name',
  'size',
  'callout',
  'http_version',
  'is_multipart',
  'grpc',
  'validation',
  'response_validation',
];

/** The `requests` row of an entry by column name (the query builder's insert): `rowValues` under REQUEST_COLUMNS. */
export function toRow(n: NewHistoryEntry): RequestRow {
  const values = rowValues(n);
  const row: Record<string, RowValue> = {};
  REQUEST_COLUMNS.forEach((column, i) => (row[column] = values[i]!));
  return row as unknown as RequestRow;
}

function fileRow(endpoint: string, f: HistoryFile): FileRow {
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

/** A list as JSON; `[]` without a call to JSON.stringify for the usual empty one. */
function jsonList(list: readonly unknown[]): string {
  return list.length === 0 ? '[]' : JSON.stringify(list);
}

/**
 * The `requests` row of an entry as its values in REQUEST_COLUMNS order, the form
 * a prepared statement binds and a worker message carries: a flat list of strings and numbers is
 * copied across threads far more cheaply than objects or JSON (which the other side must parse). The
 * size is the weight the history writer measured (history-size.ts), or measured now.
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
    jsonList(e.files),
    jsonList(e.problems),
    e.responseName ?? null,
    n.weight ?? entryWeight(n),
    e.callout ? JSON.stringify(e.callout) : null,
    e.httpVersion,
    e.isMultipart ? 1 : 0,
    e.grpc ? JSON.stringify(e.grpc) : null,
    e.validation ? jsonList(e.validation) : null,
    e.responseValidation ? jsonList(e.responseValidation) : null,
  ];
}

/** The values of `entries[from..to)`'s rows, one flat list (`rowValues` of each, in order). */
export function rowsOf(entries: readonly NewHistoryEntry[], from = 0, to = entries.length): RowValue[] {
  const rows: RowValue[] = [];
  for (let i = from; i < to; i++) rows.push(...rowValues(entries[i]!));
  return rows;
}

/** The `request_files` rows of `entries`' uploaded files, in order. */
export function fileRows(entries: readonly NewHistoryEntry[]): FileRow[] {
  return entries.flatMap((e) => e.files.map((f) => fileRow(e.entry.endpoint, f)));
}
