/**
 * A gRPC call to a user endpoint (SPEC §13), from the moment its endpoint is known to its history
 * entry: the guards every request of the endpoint passes (client certificate, security header, rate
 * limit, quota; a refusal is the gRPC status a gRPC client understands), the endpoint's descriptors
 * (none, or a method they lack: UNIMPLEMENTED), server reflection, the request messages (decoded to
 * JSON, a client stream held up to GRPC_CLIENT_MESSAGES_MAX), the first gRPC rule that matches or the
 * answer generated from the output type, and the call played by its shape (grpc/respond.ts).
 *
 * The call is seen by the rules as `POST /pkg.Service/Method` with the metadata as headers and the
 * request message as a JSON body, so `header`, `body`, `body_param` and `state` conditions and the
 * template helpers read it as they read an HTTP request.
 */
import type { Socket } from 'node:net';
import type { MockDeps } from './deps.js';
import { RecordMemo, runSteps, type Exchange, type Outcome } from '../endpoint/index.js';
import type { JsonValue } from '@bufbuild/protobuf';
import { captureParts, jsonBody, type CapturedRequest } from '../http/index.js';
import {
  answerOnce,
  answerStream,
  answerTurn,
  CallError,
  endTurns,
  grpcRuntime,
  grpcSpecOf,
  GrpcStatus,
  REFLECTION_PATHS,
  type CallClosed,
  type EncodedAnswer,
  type EndpointDescriptors,
  type GrpcCall,
  type GrpcPlan,
  type MethodInfo,
} from '../grpc/index.js';
import { GrpcMessageLog, grpcEntry, sensitiveHeaders } from '../history/index.js';
import { mtlsStep } from '../mtls/index.js';
import type { Endpoint, MockStep } from './endpoint-settings.js';
import { rateLimitStep, securityStep } from './guards.js';
import { quotaStep } from './pipeline.js';
import { grpcRules } from './grpc-rules.js';

/** Messages of a client stream held for matching; past it the call ends RESOURCE_EXHAUSTED. */
export const GRPC_CLIENT_MESSAGES_MAX = 1000;
/** Messages a server stream sends when no rule matched (the generated answer). */
export const GENERATED_STREAM_COUNT = 3;
/** Messages of each direction kept in the history entry. */
export const GRPC_RECORDED_MESSAGES_MAX = 100;

/**
 * How long, after the call's end, its history entry waits for the transport to close the call, to
 * learn whether the client cut it before our status went out (a client that holds its half of the
 * stream open, or its flow-control window shut, is recorded as it stands after this).
 */
export const GRPC_CLOSE_WAIT_MS = 1000;

/** The call's close, or undefined when it has not come within `ms`. */
async function closedWithin(call: GrpcCall, ms: number): Promise<CallClosed | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([call.closed, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How the call came: its connection (address, client certificate) and HTTP version. */
export interface CallTransport {
  socket: Socket;
  httpVersion: string;
}

export type GrpcServiceDeps = Pick<MockDeps, 'config' | 'history' | 'limiter' | 'log' | 'now' | 'store'>;

/** Each endpoint's descriptors, loaded once per change of the endpoint (its record). */
const loaded = new RecordMemo<EndpointDescriptors | undefined>();

/** The endpoint's descriptors, or undefined when it has none (no spec, or an OpenAPI one). */
function descriptorsOf(ctx: Pick<MockDeps, 'store'>, ep: Endpoint): Promise<EndpointDescriptors | undefined> {
  return loaded.get(ep.record, async () => {
    const set = await grpcSpecOf(ctx, ep.record);
    if (set === undefined || set.length === 0) return undefined;
    return (await grpcRuntime()).loadDescriptors(set);
  });
}

/** The gRPC status for a guard's HTTP refusal (gRPC's HTTP-to-status mapping, 429 as a quota). */
function statusOfRefusal(httpStatus: number): number {
  if (httpStatus === 401 || httpStatus === 562) return GrpcStatus.UNAUTHENTICATED;
  if (httpStatus === 403) return GrpcStatus.PERMISSION_DENIED;
  if (httpStatus === 429) return GrpcStatus.RESOURCE_EXHAUSTED;
  if (httpStatus === 404) return GrpcStatus.UNIMPLEMENTED;
  if (httpStatus === 502 || httpStatus === 503 || httpStatus === 504) return GrpcStatus.UNAVAILABLE;
  return GrpcStatus.UNKNOWN;
}

/** The first line of a refusal's body, or the `error.message` of a JSON one. */
function refusalText(o: Outcome): string {
  const text = typeof o.answer.body === 'string' ? o.answer.body : (o.answer.body?.toString('utf8') ?? '');
  try {
    const m = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof m === 'string') return m;
  } catch {
    /* text */
  }
  return text.split('\n')[0]!.slice(0, 500);
}

/** A request message as JSON: its text and the value it was made from (never parsed back). */
interface MessageJson {
  text: string;
  value: JsonValue;
}

/** The captured request with the message `m` as its JSON body. */
function withMessage(c: CapturedRequest, m: MessageJson): CapturedRequest {
  return { ...c, rawBody: Buffer.from(m.text, 'utf8'), body: jsonBody(m.text, m.value) };
}

/** What the history keeps of a call while it runs. */
class CallRecord {
  readonly requests: GrpcMessageLog;
  readonly responses: GrpcMessageLog;
  status: number = GrpcStatus.OK;
  statusMessage = '';
  ruleId: string | null = null;
  problems: string[] = [];

  constructor(captureLimit: number) {
    this.requests = new GrpcMessageLog(captureLimit, GRPC_RECORDED_MESSAGES_MAX);
    this.responses = new GrpcMessageLog(captureLimit, GRPC_RECORDED_MESSAGES_MAX);
  }
}

/**
 * Notes for the history how an aborted call ended: the wire's reason (a bad frame, the deadline, the
 * client's cancel), else by the clock: past the deadline DEADLINE_EXCEEDED, before it CANCELLED.
 */
function noteAbort(call: GrpcCall, rec: CallRecord): void {
  const why: unknown = call.signal.reason;
  if (why instanceof CallError) {
    rec.status = why.code;
    rec.statusMessage = why.message;
    return;
  }
  const late = call.deadline !== undefined && Date.now() >= call.deadline;
  rec.status = late ? GrpcStatus.DEADLINE_EXCEEDED : GrpcStatus.CANCELLED;
  rec.statusMessage = late ? 'Deadline exceeded' : 'Cancelled by the client';
}

export function grpcService(ctx: GrpcServiceDeps) {
  const guards: MockStep[] = [
    mtlsStep(ctx, (x) => x.endpoint.settings.mtls.enabled),
    securityStep(),
    rateLimitStep(ctx),
    quotaStep(ctx),
    // The last step passes the call on: runSteps wants one that always answers.
    () => ({ behavior: 'grpc', answer: { status: 200, headers: {}, body: '' } }),
  ];
  const match = grpcRules(ctx);
  const redact = sensitiveHeaders(ctx.config);

  /** Ends the call with `code` and notes it for the history. */
  const fail = (call: GrpcCall, rec: CallRecord, code: number, message: string): void => {
    rec.status = code;
    rec.statusMessage = message;
    call.end({ code, message });
  };

  const plays = async (
    call: GrpcCall,
    x: Exchange & { endpoint: Endpoint },
    d: EndpointDescriptors,
    method: MethodInfo,
    rec: CallRecord,
  ): Promise<void> => {
    const path = call.path;
    // The history keeps the JSON each answer was encoded from (its canonical form), never a decode
    // of the bytes sent.
    const sent = (m: EncodedAnswer): void => rec.responses.add(m.json);
    const generated = (): GrpcPlan => ({
      status: GrpcStatus.OK,
      delayMs: 0,
      intervalMs: 0,
      count: method.callType === 'server_streaming' ? GENERATED_STREAM_COUNT : 1,
      message: () => d.encodeAnswer(path, d.generateResponse(path)),
    });
    const planFor = async (request: CapturedRequest): Promise<GrpcPlan> => {
      const m = await match({ endpoint: x.endpoint, request }, d, method.callType);
      if (m) rec.ruleId = m.ruleId;
      return m?.plan ?? generated();
    };
    // Decoded once: the same text is the history's and the rules' body.
    const decoded = (bytes: Uint8Array): MessageJson => {
      const value = d.decodeRequest(path, bytes);
      const text = JSON.stringify(value);
      rec.requests.addText(text);
      return { text, value };
    };
    const settle = (plan: GrpcPlan): void => {
      rec.status = plan.status;
      rec.statusMessage = plan.statusMessage ?? '';
    };

    if (method.callType === 'bidirectional_streaming') {
      let turn = 0;
      let last: GrpcPlan | undefined;
      for await (const bytes of call.messages()) {
        last = await planFor(withMessage(x.request, decoded(bytes)));
        const goOn = await answerTurn(call, last, turn++, sent);
        if (!goOn) return settle(last);
      }
      endTurns(call, last);
      return;
    }
    // Each message is decoded (and kept for the history) as it comes, so a call cut short keeps them.
    const bodies: MessageJson[] = [];
    const max = method.callType === 'client_streaming' ? GRPC_CLIENT_MESSAGES_MAX : 1;
    for await (const bytes of call.messages()) {
      if (bodies.length === max)
        throw new CallError(
          method.callType === 'client_streaming' ? GrpcStatus.RESOURCE_EXHAUSTED : GrpcStatus.INTERNAL,
          method.callType === 'client_streaming'
            ? `A client stream may send at most ${max} messages to a mock.`
            : `A ${method.callType} call sends one request message; this one sent more.`,
        );
      bodies.push(decoded(bytes));
    }
    if (method.callType !== 'client_streaming' && bodies.length === 0)
      throw new CallError(GrpcStatus.INTERNAL, 'The call ended without its request message.');
    // A client stream matches the first rule any of its messages matches; templates read that message.
    let plan: GrpcPlan | undefined;
    for (const body of bodies.length === 0 ? [{ text: '{}', value: {} }] : bodies) {
      const m = await match(
        { endpoint: x.endpoint, request: withMessage(x.request, body) },
        d,
        method.callType,
      );
      if (m) {
        rec.ruleId = m.ruleId;
        plan = m.plan;
        break;
      }
    }
    plan ??= generated();
    settle(plan);
    if (method.callType === 'server_streaming') await answerStream(call, plan, sent);
    else await answerOnce(call, plan, sent);
  };

  /** Serves `call` on `endpoint` to its end; never throws. */
  return async function serve(call: GrpcCall, endpoint: Endpoint, t: CallTransport): Promise<void> {
    const rec = new CallRecord(ctx.config.captureLimit);
    let method: MethodInfo | undefined;
    let request: CapturedRequest | undefined;
    try {
      const d = await descriptorsOf(ctx, endpoint);
      const reflection = (REFLECTION_PATHS as readonly string[]).indexOf(call.path);
      if (reflection !== -1) {
        if (d)
          return await (await grpcRuntime()).serveReflection(call, d, reflection === 0 ? 'v1' : 'v1alpha');
        return call.end({ code: GrpcStatus.UNIMPLEMENTED, message: 'The endpoint has no gRPC descriptors.' });
      }
      request = captureParts({
        grpc: { method: call.path.slice(1) },
        method: 'POST',
        path: call.path,
        headers: { ...call.metadata, 'content-type': 'application/json' },
        rawBody: Buffer.alloc(0),
        socket: t.socket,
        httpVersion: t.httpVersion,
        trustProxy: ctx.config.trustProxy,
      });
      const x = { endpoint, request };
      const guarded = await runSteps(guards, x);
      if (guarded.behavior === 'rejected') {
        return fail(call, rec, statusOfRefusal(guarded.answer.status), refusalText(guarded));
      }
      method = d?.methods.get(call.path);
      if (!d)
        return fail(
          call,
          rec,
          GrpcStatus.UNIMPLEMENTED,
          `Endpoint "${endpoint.record.name}" has no gRPC descriptors: upload a .proto with POST /api/v2/endpoints/${endpoint.record.name}/specs.`,
        );
      if (!method)
        return fail(
          call,
          rec,
          GrpcStatus.UNIMPLEMENTED,
          `The method ${call.path.slice(1)} is not in the descriptors of endpoint "${endpoint.record.name}".`,
        );
      await plays(call, x, d, method, rec);
    } catch (err) {
      if (call.signal.aborted) noteAbort(call, rec);
      else if (err instanceof CallError) {
        rec.problems.push(err.message);
        fail(call, rec, err.code, err.message);
      } else {
        ctx.log.error({ err, endpoint: endpoint.record.name, path: call.path }, 'gRPC call failed');
        fail(call, rec, GrpcStatus.INTERNAL, 'The mock failed to answer; the server log has the details.');
      }
    } finally {
      // A client that cut the call after our end was decided (its cancel's END_STREAM read before its
      // RST_STREAM) was left with CANCELLED: the history says so, not the status it never took.
      if (request && (await closedWithin(call, GRPC_CLOSE_WAIT_MS))?.cancelled) noteAbort(call, rec);
      if (request) {
        const [service = '', name = ''] = call.path.slice(1).split('/');
        ctx.history.record(
          grpcEntry({
            id: request.id,
            endpoint: endpoint.record.name,
            receivedAt: request.receivedAt,
            ip: request.ip,
            path: call.path,
            httpVersion: t.httpVersion,
            metadata: call.metadata,
            service: method?.service ?? service,
            method: method?.method ?? name,
            callType: method?.callType ?? 'unary',
            status: rec.status,
            statusMessage: rec.statusMessage,
            ruleId: rec.ruleId,
            problems: rec.problems,
            requestMessages: rec.requests,
            responseMessages: rec.responses,
            captureLimit: ctx.config.captureLimit,
            now: ctx.now(),
            redact,
          }),
        );
      }
    }
  };
}
