/**
 * A history entry in HAR 1.2 form (http://www.softwareishard.com/blog/har-12-spec/), as browsers'
 * network panels, HAR viewers and playwright's `routeFromHAR` read it. Pure: one entry in, one HAR
 * entry out; the export (src/api/history-export.ts) writes the `log` around them.
 *
 * Invariants: every field HAR 1.2 requires is present (headersSize is -1: the history keeps headers
 * as a map, not the bytes sent); `time` is the sum of the timings (all of it is `wait`, which is what
 * the server measured); bodies are the text the history keeps (a binary body was kept as UTF-8 and is
 * not restored), and a body the history holds cut says so in `comment` and has `bodySize` -1.
 * Mockingbird's own fields travel under `_mockingbird`, as HAR allows for custom fields.
 */
import { STATUS_CODES } from 'node:http';
import type { ContractViolation, HistoryEntry } from '../store/index.js';

/** A HAR name/value pair (headers, query string, cookies). */
export interface HarPair {
  name: string;
  value: string;
}

/** One HAR 1.2 entry, as the export writes it. */
export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarPair[];
    headers: HarPair[];
    queryString: HarPair[];
    postData?: { mimeType: string; text: string; comment?: string };
    headersSize: -1;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarPair[];
    headers: HarPair[];
    content: { size: number; mimeType: string; text: string; comment?: string };
    redirectURL: string;
    headersSize: -1;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  _mockingbird: {
    id: string;
    endpoint: string;
    behavior: string;
    rule: { matched: boolean; ruleId?: string };
    ip: string;
    problems: string[];
    /** Contract checking (SPEC §7), as on the API's entry: present only when something was checked. */
    validation?: ContractViolation[];
    responseValidation?: ContractViolation[];
  };
}

/** Where the endpoint's requests were sent: what makes a recorded path a whole URL again. */
export interface HarOrigin {
  /** `http` or `https`. */
  scheme: string;
  endpoint: string;
  /** Host names (lower case, no port) that name the endpoint: `<name>.<BASE_DOMAIN>`, its custom domain. */
  endpointHosts: ReadonlySet<string>;
  /** The host used when a request recorded none (`<name>.<BASE_DOMAIN>`). */
  fallbackHost: string;
}

/**
 * The URL a request was sent to: its recorded `Host`, and the path form `/e/<name>` put back unless
 * the host itself names the endpoint (the history keeps the path as the endpoint saw it).
 */
export function harUrl(e: Pick<HistoryEntry, 'path' | 'requestHeaders'>, origin: HarOrigin): string {
  const host = e.requestHeaders['host'] ?? origin.fallbackHost;
  let name = host.toLowerCase();
  if (!name.startsWith('[')) name = name.replace(/:\d+$/, '');
  name = name.replace(/\.$/, '');
  const prefix = origin.endpointHosts.has(name) ? '' : `/e/${origin.endpoint}`;
  const path = e.path.startsWith('/') ? e.path : '/' + e.path;
  return `${origin.scheme}://${host}${prefix}${path}`;
}

function pairs(headers: Record<string, string | string[]>): HarPair[] {
  const out: HarPair[] = [];
  for (const [name, v] of Object.entries(headers))
    for (const value of typeof v === 'string' ? [v] : v) out.push({ name, value });
  return out;
}

function queryOf(path: string): HarPair[] {
  const q = path.indexOf('?');
  if (q === -1) return [];
  return [...new URLSearchParams(path.slice(q + 1))].map(([name, value]) => ({ name, value }));
}

/** `Cookie: a=1; b=2` as HAR cookies (name and value only). */
function requestCookies(header: string | undefined): HarPair[] {
  if (!header) return [];
  return header
    .split(';')
    .map((c) => c.trim())
    .filter((c) => c.includes('='))
    .map((c) => ({ name: c.slice(0, c.indexOf('=')), value: c.slice(c.indexOf('=') + 1) }));
}

/** Each `Set-Cookie` as a HAR cookie (name and value; its attributes are in the header). */
function responseCookies(header: string | string[] | undefined): HarPair[] {
  if (header === undefined) return [];
  return (typeof header === 'string' ? [header] : header)
    .map((c) => c.split(';')[0]!.trim())
    .filter((c) => c.includes('='))
    .map((c) => ({ name: c.slice(0, c.indexOf('=')), value: c.slice(c.indexOf('=') + 1) }));
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

const CUT = 'Cut at CAPTURE_LIMIT: the history holds only the start of this body.';

/** The HAR 1.2 entry of a history entry sent to `origin`. */
export function harEntry(e: HistoryEntry, origin: HarOrigin): HarEntry {
  const httpVersion = `HTTP/${e.httpVersion}`;
  const time = Math.max(0, e.durationMs);
  const reqBytes = Buffer.byteLength(e.requestBody, 'utf8');
  const resBytes = Buffer.byteLength(e.responseBody, 'utf8');
  const request: HarEntry['request'] = {
    method: e.method,
    url: harUrl(e, origin),
    httpVersion,
    cookies: requestCookies(e.requestHeaders['cookie']),
    headers: pairs(e.requestHeaders),
    queryString: queryOf(e.path),
    headersSize: -1,
    bodySize: e.requestBodyTruncated ? -1 : reqBytes,
  };
  if (e.requestBody !== '') {
    request.postData = { mimeType: e.requestHeaders['content-type'] ?? '', text: e.requestBody };
    if (e.requestBodyTruncated) request.postData.comment = CUT;
  }
  const content: HarEntry['response']['content'] = {
    size: resBytes,
    mimeType: one(e.responseHeaders['content-type']) ?? '',
    text: e.responseBody,
  };
  if (e.responseBodyTruncated) content.comment = CUT;
  const rule: HarEntry['_mockingbird']['rule'] =
    e.ruleMatched && e.ruleId !== null ? { matched: true, ruleId: e.ruleId } : { matched: e.ruleMatched };
  const own: HarEntry['_mockingbird'] = {
    id: e.id,
    endpoint: e.endpoint,
    behavior: e.behavior,
    rule,
    ip: e.ip,
    problems: e.problems,
  };
  if (e.validation) own.validation = e.validation;
  if (e.responseValidation) own.responseValidation = e.responseValidation;
  return {
    startedDateTime: new Date(e.createdAt).toISOString(),
    time,
    request,
    response: {
      status: e.status,
      statusText: STATUS_CODES[e.status] ?? '',
      httpVersion,
      cookies: responseCookies(e.responseHeaders['set-cookie']),
      headers: pairs(e.responseHeaders),
      content,
      redirectURL: one(e.responseHeaders['location']) ?? '',
      headersSize: -1,
      bodySize: e.responseBodyTruncated ? -1 : resBytes,
    },
    cache: {},
    timings: { send: 0, wait: time, receive: 0 },
    _mockingbird: own,
  };
}
