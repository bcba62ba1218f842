/**
 * An uploaded OpenAPI document as text (JSON or YAML) turned into an object, and what the API shows
 * of it: its OpenAPI or Swagger version, title, version and operations. Runs in the validation worker
 * (validate-worker.ts); nothing here touches the network or the file system.
 */
import { parse as parseYaml } from 'yaml';
import { deref, isObject, type JsonObject } from './refs.js';

/** The methods an OpenAPI path item may hold, in the order the documents list them. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface OperationSummary {
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
}

export interface DocumentSummary {
  /** `3.1.0`, `3.0.3`, `2.0`. */
  specVersion: string;
  title: string;
  version: string;
  operations: OperationSummary[];
}

/**
 * The document in `text`: JSON when it starts like JSON (a better message for a broken one), else
 * YAML (whose alias expansion the yaml package bounds). Throws an Error naming what is wrong.
 */
export function readDocument(text: string): JsonObject {
  const doc = readObject(text);
  if (typeof doc['openapi'] !== 'string' && doc['swagger'] !== '2.0')
    throw new Error(
      'The document has neither an "openapi" version (3.0, 3.1) nor "swagger": "2.0"; other formats are not supported.',
    );
  return doc;
}

/**
 * An object in `text`, JSON or YAML as readDocument reads it, not necessarily a whole OpenAPI document
 * (a file of schemas in a zip: bundle.ts). Throws an Error naming what is wrong.
 */
export function readObject(text: string): JsonObject {
  const t = text.replace(/^\uFEFF/, '').trimStart();
  if (t === '') throw new Error('The document is empty.');
  let doc: unknown;
  if (t.startsWith('{')) {
    try {
      doc = JSON.parse(t);
    } catch (err) {
      throw new Error(`The document is not valid JSON: ${(err as Error).message}`);
    }
  } else {
    try {
      doc = parseYaml(t, { maxAliasCount: 100, uniqueKeys: false });
    } catch (err) {
      throw new Error(`The document is neither JSON nor valid YAML: ${(err as Error).message}`);
    }
  }
  if (!isObject(doc)) throw new Error('The document is not an object (an OpenAPI or Swagger document).');
  return doc;
}

/** What GET …/specs and the job's result show of a document (already validated). */
export function summarize(doc: JsonObject): DocumentSummary {
  const info = isObject(doc['info']) ? doc['info'] : {};
  const operations: OperationSummary[] = [];
  const paths = isObject(doc['paths']) ? doc['paths'] : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem);
    if (!isObject(item)) continue;
    for (const m of HTTP_METHODS) {
      const op = item[m];
      if (!isObject(op)) continue;
      const s: OperationSummary = { method: m.toUpperCase(), path };
      if (typeof op['operationId'] === 'string') s.operationId = op['operationId'];
      if (typeof op['summary'] === 'string') s.summary = op['summary'];
      operations.push(s);
    }
  }
  return {
    specVersion: String(doc['openapi'] ?? doc['swagger']),
    title: typeof info['title'] === 'string' ? info['title'] : '',
    version:
      typeof info['version'] === 'string' || typeof info['version'] === 'number'
        ? String(info['version'])
        : '',
    operations,
  };
}
