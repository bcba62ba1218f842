/**
 * Contract checking as a test assertion (SPEC §7): the history entries whose request or answer broke
 * the endpoint's OpenAPI document, read with `validation=failed`, and the error that lists them. The
 * message is bounded (MAX_LISTED entries) so that a run with thousands of bad requests still prints
 * something a CI log can show; the entries themselves ride on the error.
 */
import { collect } from './matching.js';
import type { HistoryEntry, HistoryListQuery, HistoryPage, RequestMatcher } from './types.js';

/** Entries an error message lists; the rest are counted. */
export const MAX_LISTED = 20;

type Violation = NonNullable<HistoryEntry['validation']>[number];

/** The history entries matching `m` with a violation in either list, newest first. */
export function failedRequests(
  list: (q: HistoryListQuery) => Promise<HistoryPage>,
  m: RequestMatcher,
): Promise<HistoryEntry[]> {
  return collect((q) => list({ ...q, validation: 'failed' }), m);
}

function line(side: 'request' | 'response', v: Violation): string {
  const where = v.path === '' ? v.in : `${v.in} ${JSON.stringify(v.path)}`;
  return `    ${side} ${where}: ${v.message}`;
}

/** Thrown by `expectNoViolations`: the message lists the requests; `entries` holds them all. */
export class ContractViolationError extends Error {
  constructor(
    endpoint: string,
    readonly entries: HistoryEntry[],
  ) {
    const sorted = [...entries].reverse(); // oldest first: the order the test sent them in
    const lines = [
      `${entries.length} request${entries.length === 1 ? '' : 's'} to "${endpoint}" broke its OpenAPI document:`,
    ];
    for (const e of sorted.slice(0, MAX_LISTED)) {
      lines.push(`  ${e.method} ${e.path} → ${e.status}`);
      for (const v of e.validation ?? []) lines.push(line('request', v));
      for (const v of e.responseValidation ?? []) lines.push(line('response', v));
    }
    if (sorted.length > MAX_LISTED) lines.push(`  … and ${sorted.length - MAX_LISTED} more`);
    super(lines.join('\n'));
    this.name = 'ContractViolationError';
  }
}
