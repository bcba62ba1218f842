/** The request log's filters: the API's query names, and the same test applied to live entries. */
import { violationCount, type Entry } from '../types';

export interface Filters {
  method: string;
  path: string;
  status: string;
  behavior: string;
  ruleMatched: string;
  isMultipart: string;
  hasAttachments: string;
  dateRange: string;
  requestBody: string;
  responseBody: string;
  /** Contract checking: `failed`, `passed` or '' (docs/api-history.md). */
  validation: string;
}

export const NO_FILTERS: Filters = {
  method: '',
  path: '',
  status: '',
  behavior: '',
  ruleMatched: '',
  isMultipart: '',
  hasAttachments: '',
  dateRange: '',
  requestBody: '',
  responseBody: '',
  validation: '',
};

export const BEHAVIORS = [
  'echo',
  'mock-rule',
  'tunnel',
  'proxy',
  'oas',
  'default',
  'crud',
  'callout',
  'rejected',
  'grpc',
];

/** The filters as a query string (empty ones left out), for the list and the bulk delete alike. */
export function filterQuery(f: Filters): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f) as [keyof Filters, string][]) if (v.trim()) q.set(k, v.trim());
  return q;
}

export const hasFilters = (f: Filters): boolean => filterQuery(f).size > 0;

/**
 * Whether a live entry (a summary, without bodies) passes the filters. Body filters and date ranges
 * cannot be judged from a summary: with one of them set, live entries are left to the next reload.
 */
export function passes(f: Filters, e: Entry): boolean {
  if (f.requestBody.trim() || f.responseBody.trim() || f.dateRange.trim()) return false;
  if (f.method.trim() && e.method.toUpperCase() !== f.method.trim().toUpperCase()) return false;
  if (f.status.trim() && String(e.status) !== f.status.trim()) return false;
  if (f.behavior && e.behavior !== f.behavior) return false;
  if (f.ruleMatched && String(e.rule.matched) !== f.ruleMatched) return false;
  if (f.isMultipart && String(e.isMultipart === true) !== f.isMultipart) return false;
  if (f.hasAttachments && String((e.files?.length ?? 0) > 0) !== f.hasAttachments) return false;
  if (f.validation === 'failed' && violationCount(e) === 0) return false;
  if (f.validation === 'passed' && (violationCount(e) > 0 || !(e.validation || e.responseValidation)))
    return false;
  const p = f.path.trim();
  if (p) {
    if (p.length > 2 && p.startsWith('/') && p.endsWith('/')) {
      try {
        if (!new RegExp(p.slice(1, -1)).test(e.path)) return false;
      } catch {
        return false;
      }
    } else if (!e.path.includes(p)) return false;
  }
  return true;
}
