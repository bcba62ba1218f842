/**
 * A request checked against the operation that describes it (SPEC §7, contract checking): its
 * security requirement, its parameters (path, query, header, cookie; Swagger 2.0's form fields),
 * its Content-Type against the media types the body takes, and the body against its schema (JSON,
 * already parsed by the capture, never again; urlencoded forms). Parameter values arrive as text
 * and are coerced to their schema's type before they are checked (`12` is an integer, `abc` is not).
 *
 * Bounded: each parameter gives at most one violation, the body one, and the list is cut to
 * OAS_CONTRACT_VIOLATIONS_MAX; a schema too large to compile is skipped with a note (problems).
 */
import type { CapturedRequest } from '../http/index.js';
import type { ContractViolation } from '../store/index.js';
import type { ErrorObject } from 'ajv';
import type { CompiledSpec, OperationMatch } from './compile.js';
import { checkerAt, type Checker } from './contract-schemas.js';
import {
  contractOf,
  essence,
  isJsonMedia,
  pickMedia,
  typesOf,
  type BodyContract,
  type ParamContract,
} from './contract.js';
import { checkSecurity, parseCookies } from './security.js';
import { isObject } from './refs.js';

/** Violations kept for one request or one answer; past it, the last says how many more there were. */
export const OAS_CONTRACT_VIOLATIONS_MAX = 50;

/** What a check found: the violations, and notes on what it could not check. */
export interface ContractCheck {
  violations: ContractViolation[];
  problems: string[];
}

/** The first error of a failed validation as a violation at `where`, `path` prefixed to its pointer. */
export function violationOf(
  where: string,
  path: string,
  errors: ErrorObject[] | null | undefined,
): ContractViolation {
  const e = errors?.[0];
  if (!e) return { in: where, path, message: 'is not valid' };
  let at = e.instancePath;
  let message = e.message ?? 'is not valid';
  // `required` names the missing member: point at it.
  if (e.keyword === 'required' && typeof e.params['missingProperty'] === 'string') {
    at = `${at}/${e.params['missingProperty'].replace(/~/g, '~0').replace(/\//g, '~1')}`;
    message = 'is required';
  }
  if (e.keyword === 'enum' && Array.isArray(e.params['allowedValues']))
    message = `must be one of ${JSON.stringify(e.params['allowedValues']).slice(0, 200)}`;
  return { in: where, path: `${path}${at}`, message };
}

/** Runs `checker` on `value`; a skipped schema adds its note. */
export function runChecker(
  checker: Checker,
  value: unknown,
  where: string,
  path: string,
  out: ContractCheck,
): void {
  if ('skipped' in checker) {
    out.problems.push(checker.skipped);
    return;
  }
  if (!checker.validate(value)) out.violations.push(violationOf(where, path, checker.validate.errors));
}

/** The value of a parameter as it arrived, or undefined when absent. */
function rawValue(
  p: ParamContract,
  request: CapturedRequest,
  params: Record<string, string>,
  cookies: () => Record<string, string>,
): unknown {
  switch (p.in) {
    case 'path':
      return params[p.name];
    case 'header':
      return request.headers[p.name.toLowerCase()];
    case 'cookie':
      return cookies()[p.name];
    case 'query':
      return p.deepObject ? deepObject(request.query, p.name) : request.query[p.name];
    case 'formData': {
      const body = request.body;
      const fields: unknown =
        body.kind === 'form'
          ? body.value
          : body.kind === 'multipart' && isObject(body.value)
            ? body.value['textFields']
            : {};
      return isObject(fields) ? fields[p.name] : undefined;
    }
  }
}

/** `name[a]=1&name[b]=2` as `{ a: '1', b: '2' }`, or undefined when none is there. */
function deepObject(query: Readonly<Record<string, string | string[]>>, name: string): unknown {
  let out: Record<string, string | string[]> | undefined;
  const prefix = `${name}[`;
  for (const k of Object.keys(query))
    if (k.startsWith(prefix) && k.endsWith(']')) {
      out ??= Object.create(null) as Record<string, string | string[]>;
      out[k.slice(prefix.length, -1)] = query[k]!;
    }
  return out;
}

/** The value given to the schema: split into its items when an array is declared. */
function shaped(p: ParamContract, raw: unknown): unknown {
  if (p.split === undefined || p.split === 'multi') {
    // One value where one is expected: the last of a repeated one is what a server reads.
    if (p.split === undefined && Array.isArray(raw)) return raw[raw.length - 1];
    return raw;
  }
  const text = Array.isArray(raw) ? raw.join(p.split) : String(raw);
  return text === '' ? [] : text.split(p.split);
}

function checkParams(
  spec: CompiledSpec,
  params: ParamContract[],
  m: OperationMatch,
  request: CapturedRequest,
  cookies: () => Record<string, string>,
  out: ContractCheck,
): void {
  for (const p of params) {
    const raw = rawValue(p, request, m.params, cookies);
    const where = p.in === 'formData' ? 'body' : p.in;
    const path = p.in === 'formData' ? `/${p.name}` : p.name;
    if (raw === undefined) {
      if (p.required) out.violations.push({ in: where, path, message: 'is required' });
      continue;
    }
    if (p.schemaAt === undefined) continue;
    p.checker ??= checkerAt(
      spec,
      p.schemaAt,
      p.own === true ? { coerce: true, own: true } : { coerce: true },
    );
    runChecker(p.checker, shaped(p, raw), where, path, out);
  }
}

function checkBody(
  spec: CompiledSpec,
  body: BodyContract,
  request: CapturedRequest,
  out: ContractCheck,
): void {
  if (request.rawBody.length === 0) {
    if (body.required) out.violations.push({ in: 'body', path: '', message: 'A request body is required.' });
    return;
  }
  if (body.media.length === 0) return;
  if (request.contentType === undefined) {
    out.violations.push({
      in: 'content-type',
      path: '',
      message: `The body has no Content-Type; the operation takes ${typesOf(body.media)}.`,
    });
    return;
  }
  const actual = essence(request.contentType);
  const media = pickMedia(body.media, actual);
  if (!media) {
    out.violations.push({
      in: 'content-type',
      path: actual,
      message: `The operation takes ${typesOf(body.media)}, not ${actual}.`,
    });
    return;
  }
  if (media.schemaAt === undefined || body.formFields) return;
  if (isJsonMedia(actual)) {
    if (request.body.kind !== 'json') {
      out.violations.push({ in: 'body', path: '', message: 'is not valid JSON' });
      return;
    }
    const checkers = (media.checkers ??= {});
    checkers.json ??= checkerAt(spec, media.schemaAt, { coerce: false });
    runChecker(checkers.json, request.body.value, 'body', '', out);
  } else if (actual === 'application/x-www-form-urlencoded' && request.body.kind === 'form') {
    const checkers = (media.checkers ??= {});
    checkers.form ??= checkerAt(spec, media.schemaAt, { coerce: true });
    runChecker(checkers.form, request.body.value, 'body', '', out);
  }
}

/** `list` cut to OAS_CONTRACT_VIOLATIONS_MAX, the last then saying how many more there were. */
export function capViolations(list: ContractViolation[]): ContractViolation[] {
  if (list.length <= OAS_CONTRACT_VIOLATIONS_MAX) return list;
  const more = list.length - (OAS_CONTRACT_VIOLATIONS_MAX - 1);
  return [
    ...list.slice(0, OAS_CONTRACT_VIOLATIONS_MAX - 1),
    { in: 'more', path: '', message: `${more} more violations not listed.` },
  ];
}

/** `request` checked against the operation `m` of `spec` (see the module comment). */
export function checkRequest(spec: CompiledSpec, m: OperationMatch, request: CapturedRequest): ContractCheck {
  const contract = contractOf(spec, m.op);
  const out: ContractCheck = { violations: [], problems: [] };
  let jar: Record<string, string> | undefined;
  const cookies = (): Record<string, string> => (jar ??= parseCookies(request.headers['cookie']));
  const security = checkSecurity(contract.security, request, cookies);
  if (security) out.violations.push(security);
  checkParams(spec, contract.params, m, request, cookies, out);
  if (contract.body) checkBody(spec, contract.body, request, out);
  out.violations = capViolations(out.violations);
  return out;
}
