/** Shared by the history API tests: entries built field by field, unique endpoint names, API calls. */
import { randomUUID } from 'node:crypto';
import type { HistoryEntry, HistoryFile, NewHistoryEntry } from '../../src/store/index.js';
import { adminAuth, type TestApp } from './app.js';

let counter = 0;

/** A fresh endpoint on `app`, so that tests sharing one app do not see each other's history. */
export async function newEndpoint(app: TestApp, prefix = 'hist'): Promise<string> {
  const name = `${prefix}-${process.pid}-${++counter}`;
  await app.ctx.store.createEndpoint({ name, createdAt: Date.now(), settings: {} });
  return name;
}

/** A complete entry with dull defaults; `over` sets what the test is about. */
export function entry(
  endpoint: string,
  over: Partial<HistoryEntry> = {},
  files: Omit<HistoryFile, 'requestId'>[] = [],
): NewHistoryEntry {
  const id = over.id ?? randomUUID();
  return {
    entry: {
      endpoint,
      createdAt: Date.now(),
      method: 'GET',
      path: '/',
      ip: '127.0.0.1',
      status: 200,
      behavior: 'default',
      ruleMatched: false,
      ruleId: null,
      durationMs: 1,
      requestHeaders: { host: 'localhost' },
      requestBody: '',
      requestBodyTruncated: false,
      httpVersion: '1.1',
      isMultipart: files.length > 0,
      responseHeaders: { 'content-type': 'text/plain' },
      responseBody: '',
      responseBodyTruncated: false,
      files: files.map((f) => ({
        name: f.fieldName,
        fileName: f.fileName,
        contentType: f.contentType,
        size: f.size,
      })),
      problems: [],
      ...over,
      id,
    },
    files: files.map((f) => ({ ...f, requestId: id })),
  };
}

export interface ApiAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON read field by field in assertions
  body: any;
  headers: Record<string, string | string[] | number | undefined>;
}

/** Calls the API in-process with the admin key (or `headers`). */
export async function api(
  app: TestApp,
  method: 'GET' | 'DELETE',
  url: string,
  headers: Record<string, string> = adminAuth,
): Promise<ApiAnswer> {
  const res = await app.inject({ method, url: '/api/v2' + url, headers });
  let body: unknown = res.body;
  if (String(res.headers['content-type'] ?? '').startsWith('application/json')) body = res.json();
  return { status: res.statusCode, body, headers: res.headers };
}

/** Every id in the endpoint's history, newest first (walks all pages). */
export async function allIds(app: TestApp, endpoint: string, query = ''): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const q: string = `limit=100${query ? '&' + query : ''}${cursor ? '&cursor=' + cursor : ''}`;
    const res = await api(app, 'GET', `/endpoints/${endpoint}/requests?${q}`);
    if (res.status !== 200) throw new Error(`list failed: ${res.status} ${JSON.stringify(res.body)}`);
    ids.push(...(res.body.data as { id: string }[]).map((e) => e.id));
    cursor = res.body.pagination.cursor;
  } while (cursor);
  return ids;
}

/** ISO 8601 UTC of `ms` milliseconds ago. */
export function isoAgo(ms: number): string {
  return new Date(Date.now() - ms).toISOString();
}
