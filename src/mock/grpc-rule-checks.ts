/**
 * The checks of gRPC rules (SPEC §13) that their schemas cannot express, and the normal form a `grpc`
 * action is stored in. Invariants once a rule passes: a `grpc` action and a `grpc_method` condition
 * come together (so neither ever answers an HTTP request: the condition holds only for gRPC calls),
 * the rule's method is `*` or `POST` (what every call is), every response body is text, metadata and
 * trailers carry no name the transport owns, and a stream's count range is ordered.
 */
import type { ErrorDetail } from '../errors.js';
import { detail } from '../schema/index.js';
import type { Action, RuleData } from './rule-schema.js';

/** Most bytes of one `details` item's JSON (a detail is carried in the `grpc-status-details-bin` trailer). */
export const GRPC_MAX_DETAIL_BYTES = 16 * 1024;

/**
 * Metadata names the transport writes itself: the `grpc-` prefix (status, message, encoding…) and the
 * HTTP/2 and HTTP/1.1 framing and connection headers.
 */
const TRANSPORT_NAMES = new Set([
  'content-type',
  'content-length',
  'te',
  'trailer',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'host',
]);

/** `pkg.Service/Method`: a fully qualified service name, a slash, a method name. */
const METHOD_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\/[A-Za-z_][A-Za-z0-9_]*$/;
/** Base64, padded or not (gRPC accepts both for `-bin` metadata). */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** A type URL's last segment: a fully qualified message name. */
const TYPE_URL = /\/[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

type GrpcInput = Extract<Action, { type: 'grpc' }>;

/**
 * Stores a `grpc` action in its normal form: a JSON object body as its JSON text, `{}` when left out;
 * metadata `{}` and `streamCount` `{ min: 1, max: 1 }` when left out.
 */
export function normaliseGrpcAction(a: Action): void {
  if (a.type !== 'grpc') return;
  a.streamCount ??= { min: 1, max: 1 };
  for (const r of a.responses) {
    if (r.body === undefined) r.body = '{}';
    else if (typeof r.body !== 'string') r.body = JSON.stringify(r.body);
    r.metadata ??= {};
  }
}

/** Base64 as gRPC takes it: padded to a multiple of four, or unpadded (never one character over). */
function isBase64(v: string): boolean {
  if (!BASE64.test(v)) return false;
  return v.endsWith('=') ? v.length % 4 === 0 : v.length % 4 !== 1;
}

function metadataProblems(m: Record<string, string> | undefined, at: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const [name, value] of Object.entries(m ?? {})) {
    if (name.startsWith('grpc-'))
      out.push(detail(`${at}/${name}`, 'A name starting with "grpc-" is reserved for gRPC itself', name));
    else if (TRANSPORT_NAMES.has(name))
      out.push(detail(`${at}/${name}`, `"${name}" is set by the transport, not by a rule`, name));
    else if (name.endsWith('-bin') && !isBase64(value))
      out.push(detail(`${at}/${name}`, 'A "-bin" value is base64', value));
  }
  return out;
}

function actionProblems(a: GrpcInput, at: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  a.responses.forEach((r, i) => {
    const body = r.body;
    // A body without a template is checked as JSON now; a template is checked when it is rendered.
    if (typeof body === 'string' && !body.includes('{{')) {
      try {
        JSON.parse(body);
      } catch (err) {
        out.push(
          detail(
            `${at}/responses/${i}/body`,
            `Not JSON (${(err as Error).message}): a body is the message as proto3 JSON, or a template of it`,
          ),
        );
      }
    }
    out.push(...metadataProblems(r.metadata, `${at}/responses/${i}/metadata`));
  });
  const c = a.streamCount;
  if (c && c.min > c.max)
    out.push(detail(`${at}/streamCount`, `min (${c.min}) is more than max (${c.max})`, c.min));
  out.push(...metadataProblems(a.trailers, `${at}/trailers`));
  (a.details ?? []).forEach((d, i) => {
    const type = d['@type'];
    if (!TYPE_URL.test(type))
      out.push(
        detail(
          `${at}/details/${i}/@type`,
          'A type URL ends with a message name, e.g. type.googleapis.com/google.rpc.ErrorInfo',
          type,
        ),
      );
    const bytes = Buffer.byteLength(JSON.stringify(d), 'utf8');
    if (bytes > GRPC_MAX_DETAIL_BYTES)
      out.push(
        detail(`${at}/details/${i}`, `A detail is at most ${GRPC_MAX_DETAIL_BYTES} bytes of JSON (${bytes})`),
      );
  });
  return out;
}

/** Problems of a rule's gRPC parts: its `grpc_method` conditions and its `grpc` action together. */
export function grpcRuleProblems(rule: RuleData, base: string): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const grpc = rule.action.type === 'grpc';
  let named = false;
  rule.conditions.forEach((c, i) => {
    if (c.type !== 'grpc_method') return;
    named = true;
    const at = `${base}/conditions/${i}`;
    if (!grpc)
      out.push(
        detail(
          at,
          'A grpc_method condition holds only for gRPC calls, which only a grpc action answers: use action type "grpc"',
        ),
      );
    if ((c.operator ?? 'equals') === 'equals' && !METHOD_NAME.test(c.value))
      out.push(
        detail(
          `${at}/value`,
          c.value.startsWith('/') && METHOD_NAME.test(c.value.slice(1))
            ? 'Write the method without its leading "/": pkg.Service/Method'
            : 'Expected pkg.Service/Method: the fully qualified service name, "/", the method name',
          c.value,
        ),
      );
  });
  if (!grpc) return out;
  if (!named)
    out.push(
      detail(
        `${base}/conditions`,
        'A grpc action answers gRPC calls only: it needs a grpc_method condition naming the method',
      ),
    );
  if (rule.method !== '*' && rule.method !== 'POST')
    out.push(detail(`${base}/method`, 'Every gRPC call is a POST: the method is * or POST', rule.method));
  out.push(...actionProblems(rule.action as GrpcInput, `${base}/action`));
  return out;
}
