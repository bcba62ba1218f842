/**
 * A finished gRPC call as a history entry (SPEC §13): behavior `grpc`, method `POST`, the path
 * `/pkg.Service/Method`, the HTTP status (200), request metadata as the request headers (redacted as
 * any headers are), and `grpc: { service, method, callType, status, statusMessage }`.
 *
 * Each direction's messages are kept as one JSON array in that direction's body column, so that the
 * body filters, the dashboard and the byte caps of the history see them as they see any body. They are
 * capped as they pass (GrpcMessageLog): at most GRPC_HISTORY_MAX_MESSAGES, and at most the capture
 * limit in bytes of their JSON; the kept ones are always the first ones, whole, in order, and the
 * direction's `…BodyTruncated` says that some were left out. A message is never cut in the middle,
 * so the body always parses.
 */
import { redactHeaders } from '../http/index.js';
import type { GrpcRecord, HistoryEntry, NewHistoryEntry } from '../store/index.js';

/** Most messages of one direction a gRPC history entry keeps. */
export const GRPC_HISTORY_MAX_MESSAGES = 100;

/**
 * One direction's messages as the history keeps them, collected while the call runs so that a long
 * stream never holds more than the caps: the first messages, whole, up to `maxMessages` and up to
 * `maxBytes` of JSON (commas included, the brackets not).
 */
export class GrpcMessageLog {
  private readonly kept: string[] = [];
  private bytes = 0;
  private cut = false;

  /**
   * @param maxBytes the capture limit (CAPTURE_LIMIT): bytes of the kept messages' JSON.
   * @param maxMessages how many messages at most.
   */
  constructor(
    readonly maxBytes: number,
    readonly maxMessages: number = GRPC_HISTORY_MAX_MESSAGES,
  ) {}

  /**
   * Adds one message (a proto3 JSON value). Past a cap it is left out, and so is every later one:
   * what is kept is always the call's first messages.
   */
  add(message: unknown): void {
    if (this.cut) return;
    let text: string;
    try {
      text = JSON.stringify(message) ?? 'null';
    } catch {
      // A value that is not JSON (a cycle, a BigInt): not a message the history can show.
      this.cut = true;
      return;
    }
    this.addText(text);
  }

  /** Adds one message given as its JSON text (what `add` would have made of it), capped as `add`. */
  addText(text: string): void {
    if (this.cut) return;
    if (this.kept.length >= this.maxMessages) {
      this.cut = true;
      return;
    }
    const size = Buffer.byteLength(text, 'utf8') + (this.kept.length > 0 ? 1 : 0);
    if (this.bytes + size > this.maxBytes) {
      this.cut = true;
      return;
    }
    this.kept.push(text);
    this.bytes += size;
  }

  /** Some message was left out. */
  get truncated(): boolean {
    return this.cut;
  }

  /** How many messages are kept. */
  get count(): number {
    return this.kept.length;
  }

  /** The kept messages as one JSON array (`[]` when none). */
  text(): string {
    return `[${this.kept.join(',')}]`;
  }
}

/** A finished gRPC call, as the gRPC plane hands it to the history. */
export interface GrpcCallSummary {
  /** The call's id (a request id: the entry's id). */
  id: string;
  endpoint: string;
  /** Epoch ms when the call arrived. */
  receivedAt: number;
  /** The client's address. */
  ip: string;
  /** `/pkg.Service/Method`, as the call named it. */
  path: string;
  /** `2` (HTTP/2, h2c) or `1.1` (gRPC-Web over HTTP/1.1). */
  httpVersion: string;
  /** The request metadata (lower-case names; `-bin` values as base64). */
  metadata: Readonly<Record<string, string>>;
  /** What was sent as response headers and trailers, together (`grpc-status` included, if the caller likes). */
  responseHeaders?: Readonly<Record<string, string | string[]>>;
  /** The HTTP status of the answer: 200 for every gRPC call that reached the plane. */
  httpStatus?: number;
  /** `user.UserService`. */
  service: string;
  /** `GetUser`. */
  method: string;
  /** The method's call type; for an unknown method, whatever the caller says (`unary`). */
  callType: string;
  /** The gRPC status the call ended with, and its message (`''` when none). */
  status: number;
  statusMessage?: string;
  /** The rule that answered, if one did. */
  ruleId?: string | null;
  /** Template or pipeline problems noted while answering. */
  problems?: string[];
  /** Each direction's messages: a log filled as they passed, or the messages themselves (capped here). */
  requestMessages: GrpcMessageLog | readonly unknown[];
  responseMessages: GrpcMessageLog | readonly unknown[];
  /** The capture limit (CAPTURE_LIMIT), for messages given as a list. */
  captureLimit: number;
  /** Epoch ms when the call ended. */
  now: number;
  /** Metadata names to store redacted (history's `sensitiveHeaders`). */
  redact?: ReadonlySet<string>;
}

function logOf(messages: GrpcMessageLog | readonly unknown[], captureLimit: number): GrpcMessageLog {
  if (messages instanceof GrpcMessageLog) return messages;
  const log = new GrpcMessageLog(captureLimit);
  for (const m of messages) {
    log.add(m);
    if (log.truncated) break;
  }
  return log;
}

/** The history entry of a finished gRPC call: what the history writer's `record` takes. */
export function grpcEntry(call: GrpcCallSummary): NewHistoryEntry {
  const req = logOf(call.requestMessages, call.captureLimit);
  const res = logOf(call.responseMessages, call.captureLimit);
  const redact = call.redact ?? new Set<string>();
  const grpc: GrpcRecord = {
    service: call.service,
    method: call.method,
    callType: call.callType,
    status: call.status,
    statusMessage: call.statusMessage ?? '',
  };
  const entry: HistoryEntry = {
    id: call.id,
    endpoint: call.endpoint,
    createdAt: call.receivedAt,
    method: 'POST',
    path: call.path,
    ip: call.ip,
    status: call.httpStatus ?? 200,
    behavior: 'grpc',
    ruleMatched: call.ruleId !== undefined && call.ruleId !== null,
    ruleId: call.ruleId ?? null,
    durationMs: Math.max(0, call.now - call.receivedAt),
    requestHeaders: redactHeaders(call.metadata, redact),
    requestBody: req.text(),
    requestBodyTruncated: req.truncated,
    httpVersion: call.httpVersion,
    isMultipart: false,
    responseHeaders: redactHeaders(call.responseHeaders ?? {}, redact),
    responseBody: res.text(),
    responseBodyTruncated: res.truncated,
    files: [],
    problems: call.problems ?? [],
    grpc,
  };
  return { entry, files: [] };
}
