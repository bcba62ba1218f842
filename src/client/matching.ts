/**
 * Matching history entries against what a test waits for or expects, and collecting the matching
 * entries of the history. The filters the server understands (method, status, behaviour, rule
 * matched, since) are sent with the list so that it returns few entries; the rest is checked here.
 */
import type { HistoryEntry, HistoryListQuery, HistoryPage, RequestMatcher } from './types.js';

/** Pages read at most when collecting entries (100 each). */
export const MAX_PAGES = 100;

/** The instant an entry was recorded, in ms (newer servers' `date`, else `createdAt`). */
export function entryTime(e: HistoryEntry): number {
  return Date.parse(e.date ?? e.createdAt);
}

function pathMatches(want: string | RegExp, path: string): boolean {
  if (want instanceof RegExp) {
    want.lastIndex = 0;
    return want.test(path);
  }
  return path === want || path.split('?')[0] === want;
}

/** Whether `entry` is what `m` asks for. */
export function matches(m: RequestMatcher, entry: HistoryEntry): boolean {
  if (typeof m === 'function') return m(entry);
  if (m.method !== undefined && entry.method.toUpperCase() !== m.method.toUpperCase()) return false;
  if (m.path !== undefined && !pathMatches(m.path, entry.path)) return false;
  if (m.status !== undefined && entry.status !== m.status) return false;
  if (m.behavior !== undefined && entry.behavior !== m.behavior) return false;
  if (m.ruleMatched !== undefined && entry.rule.matched !== m.ruleMatched) return false;
  if (m.ruleId !== undefined && entry.rule.ruleId !== m.ruleId) return false;
  if (m.since !== undefined && entryTime(entry) < new Date(m.since).getTime()) return false;
  if (m.where !== undefined && !m.where(entry)) return false;
  return true;
}

/** The list query that narrows the server's answer to entries `m` may match. */
export function serverFilter(m: RequestMatcher): HistoryListQuery {
  if (typeof m === 'function') return {};
  const q: HistoryListQuery = {};
  if (m.method !== undefined) q.method = m.method;
  if (m.status !== undefined) q.status = m.status;
  if (m.ruleMatched !== undefined) q.ruleMatched = m.ruleMatched;
  if (m.since !== undefined) q.dateFrom = new Date(m.since).toISOString();
  return q;
}

/** A short description of a matcher, for error messages. */
export function describe(m: RequestMatcher): string {
  if (typeof m === 'function') return 'a request matching the given function';
  const parts = Object.entries(m)
    .filter(([k, v]) => v !== undefined && k !== 'where')
    .map(([k, v]) => `${k}=${v instanceof RegExp ? String(v) : JSON.stringify(v)}`);
  if (m.where) parts.push('where(…)');
  return parts.length === 0 ? 'any request' : `a request with ${parts.join(', ')}`;
}

/** Every matching entry of the history, newest first, reading at most MAX_PAGES pages. */
export async function collect(
  list: (q: HistoryListQuery) => Promise<HistoryPage>,
  m: RequestMatcher,
): Promise<HistoryEntry[]> {
  const out: HistoryEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await list({ ...serverFilter(m), limit: 100, ...(cursor ? { cursor } : {}) });
    for (const e of res.data) if (matches(m, e)) out.push(e);
    const next = res.pagination.cursor;
    if (!res.pagination.hasMore || typeof next !== 'string') return out;
    cursor = next;
  }
  throw new Error(`More than ${MAX_PAGES * 100} history entries to read: narrow the filter.`);
}
