/**
 * Parsing a buffered body by its declared type, the way the echo shows it: JSON (and every +json
 * type), urlencoded forms, multipart (busboy, file contents kept for the history). Parsers never
 * throw: a body that cannot be parsed yields a warning and is kept as raw text.
 */
import { isUtf8 } from 'node:buffer';
import busboy from 'busboy';

export interface UploadedFile {
  /** Form field name. */
  name: string;
  fileName: string;
  contentType: string;
  size: number;
  data: Buffer;
}

export interface MultipartBody {
  textFields: Record<string, string>;
  files: UploadedFile[];
}

export type BodyKind = 'none' | 'json' | 'form' | 'multipart' | 'text';

export interface ParsedBody {
  kind: BodyKind;
  /** The parsed value (JSON value, form object, or multipart fields); undefined when not parsed. */
  value?: unknown;
  files: UploadedFile[];
  /** True when the echo should show `rawBody`. */
  showRaw: boolean;
  warnings: string[];
}

/** Most parts accepted in one multipart body; the rest are ignored with a warning. */
export const MULTIPART_MAX_PARTS = 1000;

/** RFC 2046 §5.1.1: a boundary is 1 to 70 characters. Longer ones are refused, not guessed at. */
export const MULTIPART_MAX_BOUNDARY = 70;

/** Deepest nesting of objects and arrays accepted in a JSON body; deeper bodies are shown raw. */
export const JSON_MAX_DEPTH = 256;

/** Shown when a body decoded as text is not valid UTF-8 (its invalid bytes become U+FFFD). */
export const INVALID_UTF8_WARNING = 'Request body is not valid UTF-8; invalid bytes are shown as U+FFFD.';

/**
 * A null-prototype object: keys such as `__proto__` stay plain data. Made from a literal rather than
 * by `Object.create(null)`, which V8 answers with an object in dictionary mode: filling it and
 * `JSON.stringify` on it (the echo's headers and query, the history row's) then cost about 1.7 times
 * as much; a literal keeps its fast properties when its prototype is set to null.
 */
export function dict<T>(): Record<string, T> {
  return Object.setPrototypeOf({}, null) as Record<string, T>;
}

/** Adds `value` under `key`, turning a repeated key into an array of strings. */
export function addMulti(target: Record<string, string | string[]>, key: string, value: string): void {
  const prev = target[key];
  if (prev === undefined) target[key] = value;
  else if (Array.isArray(prev)) prev.push(value);
  else target[key] = [prev, value];
}

/** Parses `a=1&a=2&b=x` into `{ a: ['1','2'], b: 'x' }` (null prototype). */
export function parseUrlEncoded(text: string): Record<string, string | string[]> {
  const out = dict<string | string[]>();
  for (const [k, v] of new URLSearchParams(text)) addMulti(out, k, v);
  return out;
}

function mediaType(contentType: string): string {
  const semi = contentType.indexOf(';');
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** True for `application/json` and every `+json` type. */
export function isJsonType(contentType: string): boolean {
  const t = mediaType(contentType);
  return t === 'application/json' || t.endsWith('+json');
}

function jsonWarning(err: unknown): string {
  return `Error in parsing JSON body. [${err instanceof Error ? err.message : String(err)}]`;
}

/** True when `value` nests objects/arrays deeper than `max` levels (iterative: no stack to blow). */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(v))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; warning: string } {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    return { ok: false, warning: jsonWarning(err) };
  }
  // JSON.parse takes any depth, but JSON.stringify and every recursive reader after it (echo, history,
  // templates) would overflow the stack on `[[[[…` a few thousand levels deep.
  if (deeperThan(value, JSON_MAX_DEPTH))
    return { ok: false, warning: jsonWarning(`JSON nested deeper than ${JSON_MAX_DEPTH} levels`) };
  return { ok: true, value };
}

/**
 * The parsed body of a JSON `value` the caller already holds, `text` its JSON.stringify (a gRPC request
 * message decoded to JSON): what parseBody('POST', 'application/json', text) gives for it, without
 * parsing the text back. The same depth bound applies.
 */
export function jsonBody(text: string, value: unknown): ParsedBody {
  if (deeperThan(value, JSON_MAX_DEPTH))
    return {
      kind: 'text',
      files: [],
      showRaw: true,
      warnings: [jsonWarning(`JSON nested deeper than ${JSON_MAX_DEPTH} levels`)],
    };
  return { kind: 'json', value, files: [], showRaw: false, warnings: [] };
}

/**
 * Parses `body` according to `contentType` (undefined when the header is absent).
 * `method` matters only for the missing-Content-Type warning, which the seed gives for POST.
 * Synchronous but for a multipart body (busboy streams): every other request goes on without
 * waiting a turn of the event loop.
 */
export function parseBody(
  method: string,
  contentType: string | undefined,
  body: Buffer,
): ParsedBody | Promise<ParsedBody> {
  const parsed = parseByType(method, contentType, body);
  return parsed instanceof Promise
    ? parsed.then((p) => decodingChecked(p, body))
    : decodingChecked(parsed, body);
}

/**
 * Multipart parts may carry binary files legitimately; every other body is shown decoded as text, so
 * the client is told when that decoding lost bytes.
 */
function decodingChecked(parsed: ParsedBody, body: Buffer): ParsedBody {
  if (parsed.kind !== 'multipart' && body.length > 0 && !isUtf8(body))
    parsed.warnings.push(INVALID_UTF8_WARNING);
  return parsed;
}

function parseByType(
  method: string,
  contentType: string | undefined,
  body: Buffer,
): ParsedBody | Promise<ParsedBody> {
  const warnings: string[] = [];
  if (contentType === undefined) {
    if (method === 'POST') warnings.push('Missing Content-Type header for the POST request.');
    if (body.length === 0) return { kind: 'none', files: [], showRaw: method === 'POST', warnings };
    // No declared type: sniff JSON so that `curl -d '{"a":1}'`-style clients still see their data.
    const text = body.toString('utf8');
    const first = text.trimStart()[0];
    if (first === '{' || first === '[') {
      const r = parseJson(text);
      if (r.ok) return { kind: 'json', value: r.value, files: [], showRaw: true, warnings };
      warnings.push(r.warning);
    }
    return { kind: 'text', files: [], showRaw: true, warnings };
  }
  if (body.length === 0) return { kind: 'none', files: [], showRaw: false, warnings };

  const type = mediaType(contentType);
  if (isJsonType(contentType)) {
    const r = parseJson(body.toString('utf8'));
    if (r.ok) return { kind: 'json', value: r.value, files: [], showRaw: false, warnings };
    warnings.push(r.warning);
    return { kind: 'text', files: [], showRaw: true, warnings };
  }
  if (type === 'application/x-www-form-urlencoded') {
    return {
      kind: 'form',
      value: parseUrlEncoded(body.toString('utf8')),
      files: [],
      showRaw: false,
      warnings,
    };
  }
  if (type === 'multipart/form-data') return parseMultipartBody(contentType, body, warnings);
  return { kind: 'text', files: [], showRaw: true, warnings };
}

async function parseMultipartBody(
  contentType: string,
  body: Buffer,
  warnings: string[],
): Promise<ParsedBody> {
  try {
    const mp = await parseMultipart(contentType, body, warnings);
    return {
      kind: 'multipart',
      value: {
        textFields: mp.textFields,
        files: mp.files.map((f) => ({
          name: f.name,
          fileName: f.fileName,
          contentType: f.contentType,
          size: f.size,
        })),
      },
      files: mp.files,
      showRaw: false,
      warnings,
    };
  } catch (err) {
    warnings.push(`Error in parsing multipart body. [${err instanceof Error ? err.message : String(err)}]`);
    return { kind: 'text', files: [], showRaw: true, warnings };
  }
}

/** Feeds a buffered multipart body through busboy. Rejects on malformed input. */
function parseMultipart(contentType: string, body: Buffer, warnings: string[]): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    const boundary = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
    const boundaryLength = (boundary?.[1] ?? boundary?.[2] ?? '').length;
    if (boundaryLength > MULTIPART_MAX_BOUNDARY) {
      reject(new Error(`Multipart boundary is longer than ${MULTIPART_MAX_BOUNDARY} characters`));
      return;
    }
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: { 'content-type': contentType },
        // One part more than kept: busboy signals its limit on reaching it, not on passing it, so
        // the extra part is what tells "exactly the limit" from "more than the limit".
        limits: { parts: MULTIPART_MAX_PARTS + 1, fieldSize: body.length + 1, fileSize: body.length + 1 },
      });
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    const textFields = dict<string>();
    const files: UploadedFile[] = [];
    let pending = 0;
    let finished = false;
    let failed = false;
    const maybeDone = (): void => {
      if (finished && pending === 0 && !failed) resolve({ textFields, files });
    };
    let parts = 0;
    let overflow = false;
    const keep = (): boolean => {
      if (++parts <= MULTIPART_MAX_PARTS) return true;
      overflow = true;
      return false;
    };
    bb.on('field', (name, value) => {
      if (keep()) textFields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      if (!keep()) {
        stream.resume();
        return;
      }
      pending++;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const data = Buffer.concat(chunks);
        files.push({
          name,
          fileName: info.filename ?? '',
          contentType: info.mimeType,
          size: data.length,
          data,
        });
        pending--;
        maybeDone();
      });
      stream.on('error', () => {
        pending--;
        maybeDone();
      });
    });
    bb.on('error', (err) => {
      failed = true;
      reject(err instanceof Error ? err : new Error(String(err)));
    });
    bb.on('close', () => {
      if (overflow)
        warnings.push(`Multipart body has more than ${MULTIPART_MAX_PARTS} parts; the rest were ignored.`);
      finished = true;
      maybeDone();
    });
    bb.end(body);
  });
}
