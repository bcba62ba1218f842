/**
 * Problems of an uploaded document that do not prevent mocking it, found in the validation worker and
 * listed as `warnings` with the upload (SPEC §7): internal `$ref`s that point at nothing (served as an
 * empty schema, the reference removed from the stored copy), components nothing refers to, examples
 * that are not valid against their schema, and a document without operations. What the parser's own
 * rules find (an undeclared path parameter, a duplicated operationId …) is added by the worker.
 *
 * Bounded: the document is walked without recursion; at most OAS_EXAMPLE_CHECKS examples are checked
 * (their patterns in RE2, json-schema.ts); at most OAS_WARNINGS_MAX warnings are kept, the last saying
 * how many more there were.
 */
import { DocumentSchemas, pointer } from './json-schema.js';
import { HTTP_METHODS } from './document.js';
import { isObject, resolvePointer, type JsonObject } from './refs.js';

/** A problem that does not prevent mocking: where it is (a JSON pointer) and what it is. */
export interface SpecWarning {
  path: string;
  message: string;
}

/** Warnings kept for one document. */
export const OAS_WARNINGS_MAX = 50;
/** Examples checked against their schemas in one document. */
export const OAS_EXAMPLE_CHECKS = 500;

interface RefAt {
  holder: JsonObject;
  path: string;
  ref: string;
}

/** Every internal `$ref` of `doc`, with the object that holds it and where that is. */
function internalRefs(doc: unknown): RefAt[] {
  const found: RefAt[] = [];
  const stack: [unknown, string][] = [[doc, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (Array.isArray(v)) v.forEach((x, i) => stack.push([x, `${path}/${i}`]));
    else if (isObject(v)) {
      const ref = v['$ref'];
      if (typeof ref === 'string' && ref.startsWith('#')) found.push({ holder: v, path, ref });
      for (const [k, x] of Object.entries(v)) stack.push([x, path + pointer(k)]);
    }
  }
  return found;
}

/**
 * Removes the `$ref`s of `doc` that point at nothing inside it (what held one is then an empty schema,
 * or keeps its other keywords), and answers one warning each. Mutates `doc`.
 */
export function repairDanglingRefs(doc: JsonObject): SpecWarning[] {
  const out: SpecWarning[] = [];
  for (const r of internalRefs(doc))
    if (resolvePointer(doc, r.ref) === undefined) {
      delete r.holder['$ref'];
      out.push({
        path: `${r.path}/$ref`,
        message: `The reference ${JSON.stringify(r.ref)} points at nothing in the document; it is served as an empty schema (any value).`,
      });
    }
  return out;
}

/** Where reusable parts live: OpenAPI 3's components, Swagger 2.0's definitions, parameters, responses. */
function componentPaths(doc: JsonObject): string[] {
  const out: string[] = [];
  const add = (base: string[], group: unknown): void => {
    if (isObject(group)) for (const name of Object.keys(group)) out.push(pointer(...base, name));
  };
  if (isObject(doc['components']))
    for (const [kind, group] of Object.entries(doc['components']))
      // Security schemes are named by security requirements, not by `$ref`.
      if (kind !== 'securitySchemes') add(['components', kind], group);
  for (const kind of ['definitions', 'parameters', 'responses']) add([kind], doc[kind]);
  return out;
}

/** One warning for each component that no `$ref` of the document names. */
export function unusedComponents(doc: JsonObject): SpecWarning[] {
  const used = new Set<string>();
  for (const r of internalRefs(doc)) {
    let p: string;
    try {
      p = decodeURIComponent(r.ref.slice(1));
    } catch {
      continue;
    }
    // `#/components/schemas/Pet/properties/id` uses Pet.
    const parts = p.split('/');
    for (let n = 2; n <= parts.length; n++) used.add(parts.slice(0, n).join('/'));
  }
  return componentPaths(doc)
    .filter((p) => !used.has(p))
    .map((path) => ({ path, message: 'Nothing in the document refers to this component.' }));
}

/** Follows `$ref`s from the value at `at`, answering what they lead to and its pointer. */
function follow(doc: JsonObject, v: unknown, at: string): [unknown, string] {
  for (let hops = 0; hops < 16 && isObject(v) && typeof v['$ref'] === 'string'; hops++) {
    const ref = v['$ref'];
    v = resolvePointer(doc, ref);
    try {
      at = decodeURIComponent(ref.slice(1));
    } catch {
      return [undefined, at];
    }
  }
  return [v, at];
}

interface ExampleAt {
  /** Pointer of the schema. */
  schema: string;
  /** Pointer of the example, for the warning. */
  path: string;
  value: unknown;
}

/** The examples of a media type or parameter (OpenAPI 3: `example`, `examples.*.value`). */
function examplesOf(doc: JsonObject, holder: JsonObject, at: string): ExampleAt[] {
  if (holder['schema'] === undefined) return [];
  const schema = `${at}/schema`;
  const out: ExampleAt[] = [];
  if (holder['example'] !== undefined) out.push({ schema, path: `${at}/example`, value: holder['example'] });
  if (isObject(holder['examples']))
    for (const [name, raw] of Object.entries(holder['examples'])) {
      const [e, p] = follow(doc, raw, `${at}/examples${pointer(name)}`);
      if (isObject(e) && e['value'] !== undefined)
        out.push({ schema, path: `${p}/value`, value: e['value'] });
    }
  return out;
}

/** The examples of the document's operations (parameters, request bodies, responses) with their schemas. */
function operationExamples(doc: JsonObject): ExampleAt[] {
  const out: ExampleAt[] = [];
  const swagger = doc['swagger'] === '2.0';
  const paths = isObject(doc['paths']) ? doc['paths'] : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const [item, itemAt] = follow(doc, rawItem, pointer('paths', path));
    if (!isObject(item)) continue;
    for (const m of HTTP_METHODS) {
      const op = item[m];
      if (!isObject(op)) continue;
      const opAt = `${itemAt}${pointer(m)}`;
      const params = Array.isArray(op['parameters']) ? op['parameters'] : [];
      params.forEach((raw, i) => {
        const [p, at] = follow(doc, raw, `${opAt}/parameters/${i}`);
        if (isObject(p) && !swagger) out.push(...examplesOf(doc, p, at));
      });
      const [body, bodyAt] = follow(doc, op['requestBody'], `${opAt}/requestBody`);
      if (isObject(body) && isObject(body['content']))
        for (const [type, media] of Object.entries(body['content']))
          if (isObject(media)) out.push(...examplesOf(doc, media, `${bodyAt}/content${pointer(type)}`));
      const responses = isObject(op['responses']) ? op['responses'] : {};
      for (const [code, raw] of Object.entries(responses)) {
        const [r, at] = follow(doc, raw, `${opAt}/responses${pointer(code)}`);
        if (!isObject(r)) continue;
        if (swagger && r['schema'] !== undefined && isObject(r['examples']))
          for (const [type, value] of Object.entries(r['examples']))
            out.push({ schema: `${at}/schema`, path: `${at}/examples${pointer(type)}`, value });
        if (!swagger && isObject(r['content']))
          for (const [type, media] of Object.entries(r['content']))
            if (isObject(media)) out.push(...examplesOf(doc, media, `${at}/content${pointer(type)}`));
      }
    }
  }
  return out;
}

/**
 * One warning for each example of an operation that is not valid against its schema (at most
 * OAS_EXAMPLE_CHECKS are checked). The examples are still served as they are, as the document asks.
 */
export function invalidExamples(doc: JsonObject): SpecWarning[] {
  const examples = operationExamples(doc).slice(0, OAS_EXAMPLE_CHECKS);
  if (examples.length === 0) return [];
  const schemas = new DocumentSchemas(doc);
  const out: SpecWarning[] = [];
  for (const e of examples) {
    let problem: string | undefined;
    try {
      problem = DocumentSchemas.problem(schemas.at(e.schema), e.value);
    } catch {
      // A schema the validator cannot compile is not held against the example.
      continue;
    }
    if (problem !== undefined)
      out.push({ path: e.path, message: `The example is not valid against its schema: ${problem}.` });
  }
  return out;
}

/** `warnings` cut to OAS_WARNINGS_MAX, the last then saying how many more there were. */
export function capWarnings(warnings: SpecWarning[]): SpecWarning[] {
  if (warnings.length <= OAS_WARNINGS_MAX) return warnings;
  const more = warnings.length - (OAS_WARNINGS_MAX - 1);
  return [
    ...warnings.slice(0, OAS_WARNINGS_MAX - 1),
    { path: '/', message: `${more} more warnings not listed.` },
  ];
}
