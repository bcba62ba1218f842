/**
 * Checking an OpenAPI document end to end through the mock (issue 35): it uploads; every operation
 * answers (its default response, not the endpoint's "nothing configured"); and every response of every
 * operation with a JSON schema is asked for (`Prefer: code=…`) and its body checked with ajv (formats
 * too) against the schema the document gives it (JSON media types, and any type, answered as JSON). Problems are collected, not thrown at the first, so
 * a failing document shows all it breaks. Used by generated-valid.test.ts and corpus-large.test.ts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import addFormatsModule from 'ajv-formats';
import type { TestApp } from '../helpers/app.js';
import { createEndpoint } from '../helpers/api-helpers.js';
import { readDocument } from '../../src/oas/document.js';
import { DocumentSchemas, pointer } from '../../src/oas/json-schema.js';
import { isObject, resolvePointer, type JsonObject } from '../../src/oas/refs.js';
import { hit, uploadSpec } from './oas-helpers.js';

// ajv-formats is CommonJS with a default export: under NodeNext it arrives as the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** What the endpoint answers when nothing (no rule, no operation) fits. */
const DEFAULT = /has nothing configured for/;

export const FIXTURES = new URL('../fixtures/openapi/', import.meta.url);
/** Fixtures of at least this many bytes are checked by corpus-large.test.ts, one draw a response. */
export const LARGE = 1_000_000;

/** The fixture files (name, text), those of at least LARGE bytes or those under it. */
export function fixtures(large: boolean): [string, string][] {
  return readdirSync(FIXTURES)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .filter((f) => statSync(new URL(f, FIXTURES)).size >= LARGE === large)
    .sort()
    .map((f): [string, string] => [f, readFileSync(new URL(f, FIXTURES), 'utf8')]);
}

function follow(doc: JsonObject, v: unknown, at: string): [unknown, string] {
  while (isObject(v) && typeof v['$ref'] === 'string') {
    at = decodeURIComponent(v['$ref'].slice(1));
    v = resolvePointer(doc, v['$ref']);
  }
  return [v, at];
}

interface Case {
  method: string;
  path: string;
  code: string;
  type: string;
  schema: string;
}

interface Op {
  method: string;
  path: string;
  /** The status its default answer has (respond.ts: lowest 2xx, 2XX, default, lowest). */
  status: number;
}

function defaultStatus(codes: string[]): number {
  const numeric = codes.filter((c) => /^\d{3}$/.test(c)).sort();
  const two = numeric.find((c) => c.startsWith('2'));
  if (two) return Number(two);
  if (codes.some((c) => c.toUpperCase() === '2XX' || c === 'default')) return 200;
  return numeric[0] ? Number(numeric[0]) : 200;
}

/** Every operation of `doc`, and every (operation, response, JSON media type) with a schema. */
function walk(doc: JsonObject): { ops: Op[]; cases: Case[] } {
  const ops: Op[] = [];
  const cases: Case[] = [];
  const swagger = doc['swagger'] === '2.0';
  const paths = isObject(doc['paths']) ? doc['paths'] : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const [item] = follow(doc, rawItem, pointer('paths', path));
    if (!isObject(item)) continue;
    for (const m of METHODS) {
      const op = item[m];
      if (!isObject(op)) continue;
      const responses = isObject(op['responses']) ? op['responses'] : {};
      const codes = Object.keys(responses).filter((c) => !c.startsWith('x-'));
      ops.push({ method: m, path, status: defaultStatus(codes) });
      for (const code of codes) {
        const [r, at] = follow(doc, responses[code], pointer('paths', path, m, 'responses', code));
        if (!isObject(r)) continue;
        if (swagger) {
          if (r['schema'] === undefined) continue;
          const produces = (op['produces'] ?? doc['produces'] ?? ['application/json']) as string[];
          const type = produces.find((t) => /json/.test(t));
          if (type) cases.push({ method: m, path, code, type, schema: `${at}/schema` });
        } else if (isObject(r['content']))
          for (const [type, media] of Object.entries(r['content']))
            if (isObject(media) && media['schema'] !== undefined && (/json/.test(type) || type === '*/*'))
              cases.push({ method: m, path, code, type, schema: `${at}/content${pointer(type)}/schema` });
      }
    }
  }
  return { ops, cases };
}

/** A request path for a template: each parameter a plain word; `/#Action=X` asked as `/?Action=X`. */
function concrete(path: string): string {
  return path.replace(/\{[^}]+\}/g, 'x1').replace('#', '?');
}

export interface Checked {
  /** Operations that answered. */
  operations: number;
  /** Generated bodies checked against their schema. */
  bodies: number;
  /** What went wrong, one line each (at most 20 kept). */
  problems: string[];
}

/**
 * Uploads `text` to a new endpoint `ep` with intelligenceMock (generated data everywhere), asks every
 * operation once and every JSON response with a schema `draws` times, and checks what comes back.
 */
export async function checkDocument(app: TestApp, ep: string, text: string, draws: number): Promise<Checked> {
  await createEndpoint(app, ep);
  await uploadSpec(app, ep, text, {
    query: '?intelligenceMock=true',
    contentType: text.trimStart().startsWith('{') ? 'application/json' : 'application/yaml',
  });
  const doc = readDocument(text);
  const { ops, cases } = walk(doc);
  const out: Checked = { operations: 0, bodies: 0, problems: [] };
  const problem = (p: string): void => {
    if (out.problems.length < 20) out.problems.push(p);
  };
  for (const op of ops) {
    const res = await hit(app, ep, op.method.toUpperCase(), concrete(op.path));
    const where = `${op.method.toUpperCase()} ${op.path}`;
    if (res.status !== op.status || DEFAULT.test(res.text))
      problem(`${where}: ${res.status} (wanted ${op.status}) ${res.text.slice(0, 200)}`);
    else out.operations++;
  }
  const schemas = new DocumentSchemas(doc, { allErrors: true }, (ajv) => addFormats(ajv));
  for (const c of cases) {
    const code = /^\d{3}$/.test(c.code) ? c.code : /^\dXX$/i.test(c.code) ? `${c.code[0]}00` : '599';
    if (code === '204' || code === '304' || c.method === 'head') continue;
    const validate = schemas.at(c.schema);
    for (let i = 0; i < draws; i++) {
      const res = await hit(app, ep, c.method.toUpperCase(), concrete(c.path), {
        prefer: `code=${code}`,
        accept: c.type === '*/*' ? 'application/json' : c.type,
      });
      const where = `${c.method.toUpperCase()} ${c.path} ${c.code} ${c.type}`;
      if (String(res.status) !== code) problem(`${where}: status ${res.status}: ${res.text.slice(0, 200)}`);
      else if (res.body === undefined) problem(`${where}: not JSON: ${res.text.slice(0, 200)}`);
      else if (!validate(res.body))
        problem(`${where}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(res.body).slice(0, 500)}`);
      else {
        out.bodies++;
        continue;
      }
      break;
    }
  }
  return out;
}
