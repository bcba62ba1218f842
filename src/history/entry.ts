/**
 * Turning a captured request and its answer into a history entry: bodies cut at the capture limit,
 * sensitive headers redacted (SPEC §12) unless the operator keeps them.
 */
import type { Config } from '../config.js';
import { redactHeaders, SENSITIVE_HEADERS, type Answer, type CapturedRequest } from '../http/index.js';
import type {
  Behavior,
  CalloutRecord,
  ContractViolation,
  HistoryEntry,
  NewHistoryEntry,
} from '../store/index.js';
import { capViolations } from './violations.js';

/** The header names the history (and so the events) keep redacted under `config`. */
export function sensitiveHeaders(
  config: Pick<Config, 'keepSensitiveHeaders' | 'redactHeaders'>,
): ReadonlySet<string> {
  return new Set(config.keepSensitiveHeaders ? [] : [...SENSITIVE_HEADERS, ...config.redactHeaders]);
}

/** A body as the history keeps it: its first `limit` bytes, as text, and whether it was cut. */
export function cut(body: string | Buffer, limit: number): { text: string; truncated: boolean } {
  // A string under the limit is kept as it is: not measured when even three bytes a UTF-16 unit (the
  // most UTF-8 takes) would fit, else measured, not encoded.
  if (typeof body === 'string' && (body.length * 3 <= limit || Buffer.byteLength(body, 'utf8') <= limit))
    return { text: body, truncated: false };
  const buf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (buf.length <= limit) return { text: buf.toString('utf8'), truncated: false };
  return { text: buf.subarray(0, limit).toString('utf8'), truncated: true };
}

export function historyEntry(
  endpoint: string,
  c: CapturedRequest,
  answer: Answer,
  info: {
    behavior: Behavior;
    ruleId?: string | null;
    captureLimit: number;
    now: number;
    problems?: string[];
    responseName?: string | undefined;
    /** Header names to store redacted. */
    redact?: ReadonlySet<string>;
    /**
     * The response body as the history keeps it, when it differs from `answer.body`: the echo's,
     * redacted, or what a streamed answer sent (its first bytes).
     */
    recordedBody?: string | Buffer | undefined;
    /** The recorded body is only the start of what was sent. */
    recordedTruncated?: boolean;
    /** A rule callout's request and response (redacted and cut by the callout). */
    callout?: CalloutRecord | undefined;
    /** The request checked against the endpoint's OpenAPI document (SPEC §7), when one describes it. */
    validation?: readonly ContractViolation[] | undefined;
    /** The answer checked against the operation's response. */
    responseValidation?: readonly ContractViolation[] | undefined;
  },
): NewHistoryEntry {
  const req = cut(c.rawBody, info.captureLimit);
  const res = cut(info.recordedBody ?? answer.body, info.captureLimit);
  const redact = info.redact ?? new Set<string>();
  const entry: HistoryEntry = {
    id: c.id,
    endpoint,
    createdAt: c.receivedAt,
    method: c.method,
    path: c.path,
    ip: c.ip,
    status: answer.status,
    behavior: info.behavior,
    ruleMatched: info.ruleId !== undefined && info.ruleId !== null,
    ruleId: info.ruleId ?? null,
    durationMs: Math.max(0, info.now - c.receivedAt),
    requestHeaders: redactHeaders(c.headers, redact),
    requestBody: req.text,
    requestBodyTruncated: req.truncated,
    httpVersion: c.httpVersion,
    isMultipart: c.contentType !== undefined && /^\s*multipart\//i.test(c.contentType),
    responseHeaders: redactHeaders(answer.headers, redact) as Record<string, string | string[]>,
    responseBody: res.text,
    responseBodyTruncated: res.truncated || info.recordedTruncated === true,
    files: c.files.map((f) => ({
      name: f.name,
      fileName: f.fileName,
      contentType: f.contentType,
      size: f.size,
    })),
    problems: info.problems ?? [],
  };
  // Set only when present (a spread of `{}` in the literal costs V8 a runtime call on every request).
  if (info.responseName !== undefined) entry.responseName = info.responseName;
  if (info.callout !== undefined) entry.callout = info.callout;
  // Cut here, once: the queue, the row, the API and the events all carry the bounded lists.
  if (info.validation !== undefined) entry.validation = capViolations(info.validation);
  if (info.responseValidation !== undefined)
    entry.responseValidation = capViolations(info.responseValidation);
  return {
    entry,
    files: c.files.map((f) => ({
      requestId: c.id,
      fieldName: f.name,
      fileName: f.fileName,
      contentType: f.contentType,
      size: f.size,
      data: f.data,
    })),
  };
}
