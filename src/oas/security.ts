/**
 * An operation's security requirements (SPEC §7, contract checking), read once per operation: the
 * operation's `security` over the document's (`[]` turns it off), each requirement an alternative
 * (OR) of schemes that must all be present (AND). What is checked is that a credential of the
 * declared kind is there, never that it is right: an apiKey in its header, query parameter or cookie;
 * `Authorization: Basic …`, `Bearer …` (also for oauth2 and openIdConnect) or the named http scheme.
 * A scheme the document does not define, or one a request cannot show (mutualTLS), is taken as met:
 * the check never refuses what it cannot read.
 */
import type { CapturedRequest } from '../http/index.js';
import type { ContractViolation } from '../store/index.js';
import { isObject, type JsonObject } from './refs.js';

/** One scheme of a requirement: how to find its credential in a request. */
interface SchemeCheck {
  name: string;
  /** True when the request carries a credential of this scheme. */
  present(request: CapturedRequest, cookies: () => Record<string, string>): boolean;
  /** What the scheme wants, for the message. */
  wants: string;
}

/** The alternatives of an operation's requirement: one list of schemes each; none means no security. */
export type SecurityAlternatives = SchemeCheck[][];

function authorization(scheme: string): SchemeCheck['present'] {
  const prefix = `${scheme.toLowerCase()} `;
  return (r) => {
    const v = r.headers['authorization'];
    return v !== undefined && v.length > prefix.length && v.toLowerCase().startsWith(prefix);
  };
}

function schemeCheck(name: string, s: JsonObject): SchemeCheck | undefined {
  const type = typeof s['type'] === 'string' ? s['type'] : '';
  if (type === 'apiKey' && typeof s['name'] === 'string') {
    const key = s['name'];
    const lower = key.toLowerCase();
    if (s['in'] === 'header')
      return { name, wants: `the header ${key}`, present: (r) => r.headers[lower] !== undefined };
    if (s['in'] === 'query')
      return { name, wants: `the query parameter ${key}`, present: (r) => r.query[key] !== undefined };
    if (s['in'] === 'cookie')
      return { name, wants: `the cookie ${key}`, present: (_r, cookies) => cookies()[key] !== undefined };
    return undefined;
  }
  // Swagger 2.0's `basic`; OpenAPI 3's `http` with its scheme (basic, bearer, digest …).
  const http =
    type === 'basic' ? 'basic' : type === 'http' && typeof s['scheme'] === 'string' ? s['scheme'] : '';
  if (http !== '')
    return {
      name,
      wants: `Authorization: ${http.charAt(0).toUpperCase()}${http.slice(1).toLowerCase()} …`,
      present: authorization(http),
    };
  if (type === 'oauth2' || type === 'openIdConnect')
    return { name, wants: 'Authorization: Bearer …', present: authorization('bearer') };
  return undefined;
}

/** The schemes of the document: OpenAPI 3's components.securitySchemes, Swagger 2.0's securityDefinitions. */
function schemesOf(root: JsonObject): JsonObject {
  if (isObject(root['components']) && isObject(root['components']['securitySchemes']))
    return root['components']['securitySchemes'];
  return isObject(root['securityDefinitions']) ? root['securityDefinitions'] : {};
}

/** The alternatives of `op` in `root` (see the module comment). */
export function securityOf(
  root: JsonObject,
  op: JsonObject,
  deref: (v: unknown) => unknown,
): SecurityAlternatives {
  const requirements = Array.isArray(op['security'])
    ? op['security']
    : Array.isArray(root['security'])
      ? root['security']
      : [];
  if (requirements.length === 0) return [];
  const schemes = schemesOf(root);
  const out: SecurityAlternatives = [];
  for (const req of requirements as unknown[]) {
    if (!isObject(req)) continue;
    const checks: SchemeCheck[] = [];
    for (const name of Object.keys(req)) {
      const s = deref(Object.hasOwn(schemes, name) ? schemes[name] : undefined);
      const c = isObject(s) ? schemeCheck(name, s) : undefined;
      if (c) checks.push(c);
    }
    // A requirement with nothing to check (`{}`, or schemes not readable) is met by any request.
    if (checks.length === 0) return [];
    out.push(checks);
  }
  return out;
}

/** The request's cookies (the last of a repeated name), values percent-decoded where they decode. */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    const name = eq === -1 ? '' : part.slice(0, eq).trim();
    if (name === '') continue;
    const raw = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    try {
      out[name] = decodeURIComponent(raw);
    } catch {
      out[name] = raw;
    }
  }
  return out;
}

/** One violation `in: 'security'` when no alternative is met, else undefined. */
export function checkSecurity(
  alternatives: SecurityAlternatives,
  request: CapturedRequest,
  cookies: () => Record<string, string>,
): ContractViolation | undefined {
  if (alternatives.length === 0) return undefined;
  for (const alt of alternatives) if (alt.every((c) => c.present(request, cookies))) return undefined;
  const wanted = alternatives.map((alt) => alt.map((c) => `${c.name} (${c.wants})`).join(' and '));
  return {
    in: 'security',
    path: alternatives.map((alt) => alt.map((c) => c.name).join('+')).join('|'),
    message: `No credential the operation accepts: it wants ${wanted.join(', or ')}.`,
  };
}
