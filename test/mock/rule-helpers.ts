/** Builds captured requests and rules for the matcher's unit tests. */
import { parseBody, parseQuery, type CapturedRequest } from '../../src/http/index.js';
import type { Condition, Rule } from '../../src/mock/index.js';

export async function req(
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string; contentType?: string } = {},
): Promise<CapturedRequest> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.contentType) headers['content-type'] = opts.contentType;
  const raw = Buffer.from(opts.body ?? '', 'utf8');
  const body = await parseBody(method, opts.contentType, raw);
  const q = path.indexOf('?');
  return {
    id: 'r',
    receivedAt: 0,
    method,
    protocol: 'http',
    httpVersion: '1.1',
    host: 'x',
    path,
    pathname: q === -1 ? path : path.slice(0, q),
    ip: '127.0.0.1',
    headers,
    duplicateHeaders: [],
    rawHeaders: [],
    query: parseQuery(path),
    contentType: opts.contentType,
    rawBody: raw,
    body,
    files: [],
    warnings: [],
  };
}

let n = 0;
export function rule(conditions: Condition[], extra: Partial<Rule> = {}): Rule {
  return {
    id: `r${++n}`,
    enabled: true,
    method: '*',
    description: '',
    conditions,
    action: { type: 'mock', status: 200, headers: [], body: '', templated: false, delay: 0 },
    ...extra,
  };
}
