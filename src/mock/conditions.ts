/**
 * Rule conditions (SPEC §4), each compiled once per rules change into a predicate over the captured
 * request. A predicate may add path parameters (template `:name` segments, regex named groups) to
 * the `params` it is given; they reach templates as `{{pathParam 'name'}}`.
 */
import type { CapturedRequest } from '../http/index.js';
import { compileUserRegex, regexGroups, regexTest } from '../regex/index.js';
import type { Condition } from './rule-model.js';
import { compileStateCondition, type StateValues } from './state-condition.js';

/** What a condition looks at, read lazily from the request (most rules never look at the body). */
export class RequestView {
  private text: string | undefined;
  private gql: { name: string; query: string } | null | undefined;

  constructor(
    readonly req: CapturedRequest,
    /** The endpoint state the rules' `state` conditions name, read before matching. */
    readonly state?: StateValues,
  ) {}

  /** The raw body as UTF-8 text. */
  get bodyText(): string {
    return (this.text ??= this.req.rawBody.toString('utf8'));
  }

  /** The GraphQL operation of a JSON body or a GET's query string, if any. */
  get graphql(): { name: string; query: string } | null {
    if (this.gql === undefined) this.gql = readGraphql(this.req);
    return this.gql;
  }
}

export type Predicate = (v: RequestView, params: Record<string, string>) => boolean;

const FIRST_OPERATION = /\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/;

function readGraphql(req: CapturedRequest): { name: string; query: string } | null {
  let source: Record<string, unknown> | undefined;
  if (req.body.kind === 'json' && typeof req.body.value === 'object' && req.body.value !== null)
    source = req.body.value as Record<string, unknown>;
  else if (req.method === 'GET') source = req.query;
  if (!source) return null;
  const query = typeof source['query'] === 'string' ? source['query'] : '';
  const named = typeof source['operationName'] === 'string' ? source['operationName'] : '';
  const name = named !== '' ? named : (FIRST_OPERATION.exec(query.slice(0, 64 * 1024))?.[1] ?? '');
  if (query === '' && name === '') return null;
  return { name, query };
}

/** A value at a dotted path (`user.tags.0`) of the parsed body; undefined when absent. */
export function valueAt(root: unknown, path: string): unknown {
  let v: unknown = root;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    if (!Object.hasOwn(v, key)) return undefined; // own properties only: no prototype walk
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** How a body value compares as text: strings as they are, other values as JSON. */
function asText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function textTest(operator: string, value: string): (s: string) => boolean {
  if (operator === 'equals') return (s) => s === value;
  if (operator === 'contains') return (s) => s.includes(value);
  // `regex`: the schema allows no other operator here.
  const re = compileUserRegex(value);
  return (s) => regexTest(re, s);
}

function anyOf(v: string | string[] | undefined, test: (s: string) => boolean): boolean {
  if (v === undefined) return false;
  return typeof v === 'string' ? test(v) : v.some(test);
}

/** Sets path parameters as fields: a name such as `__proto__` stays a parameter, never the prototype. */
function setParams(params: Record<string, string>, entries: Iterable<[string, string]>): void {
  for (const [k, v] of entries)
    if (k === '__proto__')
      Object.defineProperty(params, k, { value: v, enumerable: true, writable: true, configurable: true });
    else params[k] = v;
}

/** `/users/:id` as segments: literal text, or a parameter name. */
function compileTemplate(template: string): Predicate {
  const segments = template.split('/').map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { text: s }));
  return (v, params) => {
    const parts = v.req.pathname.split('/');
    if (parts.length !== segments.length) return false;
    const found: [string, string][] = [];
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i]!;
      const part = parts[i]!;
      if ('text' in seg) {
        if (seg.text !== part) return false;
      } else {
        if (part === '') return false;
        found.push([seg.param, safeDecode(part)]);
      }
    }
    setParams(params, found);
    return true;
  };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** SOAP 1.1 `SOAPAction: "urn:x"`, or SOAP 1.2 `Content-Type: application/soap+xml; action="urn:x"`. */
function soapAction(req: CapturedRequest): string | undefined {
  const header = req.headers['soapaction'];
  if (header !== undefined) return header.trim().replace(/^"(.*)"$/, '$1');
  const m = /;\s*action\s*=\s*("([^"]*)"|[^;\s]+)/i.exec(req.contentType ?? '');
  return m ? (m[2] ?? m[1]) : undefined;
}

/** Compiles one condition. */
export function compileCondition(c: Condition): Predicate {
  switch (c.type) {
    case 'path': {
      if (c.operator === 'template') return compileTemplate(c.value);
      if (c.operator === 'regex') {
        const re = compileUserRegex(c.value);
        return (v, params) => {
          const groups = regexGroups(re, v.req.pathname);
          if (!groups) return false;
          setParams(params, Object.entries(groups));
          return true;
        };
      }
      if (c.operator === 'equals') return (v) => v.req.pathname === c.value;
      if (c.operator === 'starts_with') return (v) => v.req.pathname.startsWith(c.value);
      return (v) => v.req.pathname.includes(c.value);
    }
    case 'header': {
      const key = c.key.toLowerCase();
      const test = textTest(c.operator, c.value);
      return (v) => anyOf(v.req.headers[key], test);
    }
    case 'query_param': {
      if (c.operator === 'exists') return (v) => v.req.query[c.key] !== undefined;
      const test = textTest(c.operator, c.value ?? '');
      return (v) => anyOf(v.req.query[c.key], test);
    }
    case 'body': {
      const test = textTest(c.operator, c.value);
      return (v) => test(v.bodyText);
    }
    case 'body_param': {
      const value = c.value ?? '';
      const at = (v: RequestView) => valueAt(v.req.body.value, c.key);
      switch (c.operator) {
        case 'is_null':
          return (v) => at(v) == null;
        case 'is_not_null':
          return (v) => at(v) != null;
        case 'equals':
          return (v) => {
            const x = at(v);
            return x !== undefined && asText(x) === value;
          };
        case 'not_equals':
          return (v) => {
            const x = at(v);
            return x === undefined || asText(x) !== value;
          };
        case 'contains':
          return (v) => {
            const x = at(v);
            return (
              x != null && (Array.isArray(x) ? x.some((e) => asText(e) === value) : asText(x).includes(value))
            );
          };
        case 'not_contains':
          return (v) => {
            const x = at(v);
            return (
              x == null ||
              !(Array.isArray(x) ? x.some((e) => asText(e) === value) : asText(x).includes(value))
            );
          };
      }
      break;
    }
    case 'graphql': {
      if (c.operator === 'equals') return (v) => v.graphql?.name === c.value;
      const test = textTest(c.operator, c.value);
      return (v) => {
        const g = v.graphql;
        return g !== null && test(g.query);
      };
    }
    case 'soap_action':
      return (v) => soapAction(v.req) === c.value;
    case 'grpc_method': {
      // Only a gRPC call carries `grpc`: an HTTP request never meets this condition.
      const operator = c.operator ?? 'equals';
      const test =
        operator === 'starts_with' ? (s: string) => s.startsWith(c.value) : textTest(operator, c.value);
      return (v) => v.req.grpc !== undefined && test(v.req.grpc.method);
    }
    case 'state': {
      const holds = compileStateCondition(c);
      return (v) => holds(v.state);
    }
  }
  return () => false;
}
