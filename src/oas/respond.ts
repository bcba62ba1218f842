/**
 * The answer of an operation (SPEC §7): its lowest 2xx response, or the one `Prefer: code=404` names;
 * the media type the request's `Accept` asks for among the response's, else JSON, else the first;
 * the body is the named example (`Prefer: example=cat`), else the example of the media type or of its
 * schema, else data generated from the schema. `intelligenceMock` (or `Prefer: dynamic=true`)
 * generates wherever there is a schema; a response with examples and no schema answers its example. A preference that names nothing in the document is noted as a problem with the request.
 */
import type { Faker } from '@faker-js/faker';
import { isSafeHeaderValue } from '../template/index.js';
import type { Answer, AnswerHeaders, CapturedRequest } from '../http/index.js';
import type { CompiledSpec, MediaSpec, Operation, ResponseSpec } from './compile.js';
import { generate, headerValue, type GenerateOptions } from './generate.js';
import { deref, isObject } from './refs.js';

export interface OasAnswer {
  answer: Answer;
  problems: string[];
}

/** `Prefer: code=404, example=cat` (RFC 7240: preferences by commas, parameters by semicolons). */
export function parsePrefer(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(/[,;]/)) {
    const m = /^\s*([A-Za-z][\w-]*)\s*(?:=\s*(?:"([^"]*)"|([^\s"]*)))?\s*$/.exec(part);
    if (m) out.set(m[1]!.toLowerCase(), m[2] ?? m[3] ?? '');
  }
  return out;
}

/** The status a response key answers with: `2XX` is 200, `default` the asked status or 200. */
function statusOf(key: string, wanted?: number): number {
  if (/^[1-5]\d\d$/.test(key)) return Number(key);
  if (/^[1-5]XX$/i.test(key)) return wanted && String(wanted)[0] === key[0] ? wanted : Number(key[0]) * 100;
  return wanted ?? 200;
}

function pickResponse(
  op: Operation,
  wanted: number | undefined,
  problems: string[],
): ResponseSpec | undefined {
  const rs = op.responses;
  if (wanted !== undefined) {
    const r =
      rs.find((x) => x.key === String(wanted)) ??
      rs.find((x) => x.key.toUpperCase() === `${String(wanted)[0]}XX`) ??
      rs.find((x) => x.key === 'default');
    if (r) return r;
    problems.push(
      `Prefer: code=${wanted} names no response of ${op.method} ${op.path}; its lowest 2xx answered`,
    );
  }
  const numeric = rs.filter((x) => /^\d{3}$/.test(x.key)).sort((a, b) => Number(a.key) - Number(b.key));
  return (
    numeric.find((x) => x.key.startsWith('2')) ??
    rs.find((x) => x.key.toUpperCase() === '2XX') ??
    rs.find((x) => x.key === 'default') ??
    numeric[0]
  );
}

// `text/json` is JSON too, as documents of ASP.NET services name it (gov.bc.ca's).
const isJson = (type: string): boolean => /^(application|text)\/(.+\+)?json\b/i.test(type) || type === '*/*';

/** The media type the client accepts (in the order of its `q`), else JSON, else the first. */
function pickMedia(contents: MediaSpec[], accept: string | undefined): MediaSpec | undefined {
  if (contents.length <= 1) return contents[0];
  if (accept) {
    const ranges = accept
      .split(',')
      .map((r, i) => {
        const [range = '', ...params] = r.split(';').map((x) => x.trim().toLowerCase());
        const q = params.find((p) => p.startsWith('q='));
        return { range, q: q ? Number(q.slice(2)) || 0 : 1, i };
      })
      .filter((r) => r.q > 0 && r.range !== '')
      .sort((a, b) => b.q - a.q || a.i - b.i);
    for (const { range } of ranges) {
      if (range === '*/*') break;
      const [type, sub] = range.split('/');
      const hit = contents.find((c) => {
        const [ct, cs] = c.type.toLowerCase().split(';')[0]!.trim().split('/');
        return ct === type && (sub === '*' || cs === sub);
      });
      if (hit) return hit;
    }
  }
  return contents.find((c) => isJson(c.type)) ?? contents[0];
}

function serialize(value: unknown, type: string): string {
  if (typeof value === 'string' && !isJson(type)) return value;
  return JSON.stringify(value) ?? '';
}

/** The answer of `op` to `request`. */
export function respond(
  spec: CompiledSpec,
  op: Operation,
  request: CapturedRequest,
  faker: Faker,
): OasAnswer {
  const problems: string[] = [];
  const prefer = parsePrefer(request.headers['prefer']);
  const code = prefer.get('code');
  let wanted: number | undefined;
  if (code !== undefined) {
    if (/^[1-5]\d\d$/.test(code)) wanted = Number(code);
    else problems.push(`Prefer: code=${code} is not a status code; ignored`);
  }
  const response = pickResponse(op, wanted, problems);
  const status = response ? statusOf(response.key, wanted) : 200;
  const headers: AnswerHeaders = Object.create(null) as AnswerHeaders;
  const dynamic = spec.intelligenceMock || prefer.get('dynamic') === 'true';
  const gen: GenerateOptions = { faker, root: spec.root, useExamples: !dynamic };
  for (const h of response?.headers ?? []) {
    const name = h.name.toLowerCase();
    if (['content-type', 'content-length', 'transfer-encoding', 'connection'].includes(name)) continue;
    const v =
      h.example && (!dynamic || h.schema === undefined)
        ? typeof h.example.value === 'string'
          ? h.example.value
          : JSON.stringify(h.example.value)
        : headerValue(h.schema, gen, name);
    if (v !== undefined && isSafeHeaderValue(v) && /^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) headers[name] = v;
  }
  const media = pickMedia(response?.contents ?? [], request.headers['accept']);
  if (!media || status === 204 || status === 304) return { answer: { status, headers, body: '' }, problems };

  let value: unknown;
  let chosen = false;
  const exampleName = prefer.get('example');
  if (exampleName !== undefined) {
    if (media.examples.has(exampleName)) {
      value = media.examples.get(exampleName);
      chosen = true;
    } else problems.push(`Prefer: example=${exampleName} names no example of this response (${media.type})`);
  }
  // Dynamic mode generates from the schema; a response with examples and no schema answers its example.
  if (!chosen && (!dynamic || media.schema === undefined)) {
    const schema = deref(spec.root, media.schema);
    if (media.example) value = media.example.value;
    else if (media.examples.size > 0) value = media.examples.values().next().value;
    else if (isObject(schema) && schema['example'] !== undefined) value = schema['example'];
    else if (isObject(schema) && Array.isArray(schema['examples']) && schema['examples'].length > 0)
      value = schema['examples'][0];
    chosen = value !== undefined;
  }
  if (!chosen) value = media.schema === undefined ? undefined : generate(media.schema, gen);
  const type = media.type.includes('*') ? 'application/json' : media.type;
  headers['content-type'] = type;
  return { answer: { status, headers, body: value === undefined ? '' : serialize(value, type) }, problems };
}
