/**
 * What a history entry weighs, in bytes: what the queue holds in memory for it and what it takes in
 * the database, near enough to bound both (SPEC §12). Bodies count their length (a character is at
 * least a byte in memory and on disk), files their size, headers their names and values, and a fixed
 * part the row's other columns and its index entries.
 */
import type { ContractViolation, NewHistoryEntry } from './types.js';

const ROW_OVERHEAD = 256;

function headersWeight(headers: Readonly<Record<string, string | string[]>>): number {
  let n = 0;
  // Own names only: a name is data from a peer (`__proto__`, `constructor`), never a prototype's key.
  for (const [name, v] of Object.entries(headers)) {
    n += name.length + 8;
    if (typeof v === 'string') n += v.length;
    else if (v) for (const item of v) n += item.length + 4;
  }
  return n;
}

export function entryWeight({ entry, files }: NewHistoryEntry): number {
  let n = ROW_OVERHEAD + entry.path.length + entry.requestBody.length + entry.responseBody.length;
  n += headersWeight(entry.requestHeaders) + headersWeight(entry.responseHeaders);
  for (const f of files) n += f.data.length + f.fileName.length + f.fieldName.length + 64;
  if (entry.callout) n += JSON.stringify(entry.callout).length;
  if (entry.grpc)
    n += 64 + entry.grpc.service.length + entry.grpc.method.length + entry.grpc.statusMessage.length;
  // Lists already bounded by the history (history/violations.ts): a few kilobytes at most each.
  if (entry.validation) n += violationsWeight(entry.validation);
  if (entry.responseValidation) n += violationsWeight(entry.responseValidation);
  return n;
}

function violationsWeight(list: readonly ContractViolation[]): number {
  let n = 2;
  for (const v of list) n += 32 + v.in.length + v.path.length + v.message.length;
  return n;
}
