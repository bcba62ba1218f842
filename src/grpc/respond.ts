/**
 * How a call is answered once what answers it is known (SPEC §13): a plan of messages, a status and
 * trailers, played on a call of any shape. Messages are made one at a time as they are sent (a
 * template renders per message), so a long stream holds one message at a time, and everything waits
 * on the call's signal: a client that cancels, or a deadline that passes, stops the delays and the
 * stream at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EncodedAnswer } from './descriptors.js';
import { CallError, GrpcStatus, type GrpcCall, type Metadata } from './types.js';

/** What a matched rule (or the generated default) makes a call do. */
export interface GrpcPlan {
  status: number;
  statusMessage?: string | undefined;
  /** Milliseconds before the first message (or the status, when there is none). */
  delayMs: number;
  /** Milliseconds between the messages of a stream. */
  intervalMs: number;
  /** Messages a server stream sends (a unary answer sends one, whatever this says). */
  count: number;
  /** Response headers. */
  metadata?: Metadata | undefined;
  trailers?: Metadata | undefined;
  /** A serialized google.rpc.Status for `grpc-status-details-bin`. */
  details?: Uint8Array | undefined;
  /**
   * The `i`-th response message, encoded, with its canonical JSON for the history; throws a
   * CallError (INTERNAL, naming the field) when what the rule renders does not fit the output type.
   */
  message(i: number): EncodedAnswer;
}

/** Waits `ms`, or rejects at once when the call is over (cancelled, past its deadline, gone). */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw new CallError(GrpcStatus.CANCELLED, 'The call was cancelled.');
  if (ms <= 0) return;
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw new CallError(GrpcStatus.CANCELLED, 'The call was cancelled.');
  }
}

/** The call's end for a plan: its status, message, trailers and details. */
function endOf(plan: GrpcPlan): Parameters<GrpcCall['end']>[0] {
  const end: Parameters<GrpcCall['end']>[0] = { code: plan.status };
  if (plan.statusMessage !== undefined && plan.statusMessage !== '') end.message = plan.statusMessage;
  if (plan.trailers) end.trailers = plan.trailers;
  if (plan.details) end.details = plan.details;
  return end;
}

/**
 * Plays `plan` as a single answer (unary and client-streaming calls): after the delay, one message
 * when the status is OK, then the status. A non-OK status sends no message (Trailers-Only), as a
 * gRPC server that fails a unary call does.
 */
export async function answerOnce(
  call: GrpcCall,
  plan: GrpcPlan,
  sent: (m: EncodedAnswer) => void,
): Promise<void> {
  await pause(plan.delayMs, call.signal);
  if (plan.metadata) call.sendHeaders(plan.metadata);
  if (plan.status === GrpcStatus.OK) {
    const m = plan.message(0);
    await call.send(m.bytes);
    sent(m);
  }
  call.end(endOf(plan));
}

/**
 * Plays `plan` as a server stream: after the delay, `count` messages `intervalMs` apart, then the
 * status, whatever it is (a non-OK status follows the messages).
 */
export async function answerStream(
  call: GrpcCall,
  plan: GrpcPlan,
  sent: (m: EncodedAnswer) => void,
): Promise<void> {
  await pause(plan.delayMs, call.signal);
  if (plan.metadata) call.sendHeaders(plan.metadata);
  for (let i = 0; i < plan.count; i++) {
    if (i > 0) await pause(plan.intervalMs, call.signal);
    const m = plan.message(i);
    await call.send(m.bytes);
    sent(m);
  }
  call.end(endOf(plan));
}

/**
 * One turn of a bidirectional call: the answer to one incoming message, after the plan's delay.
 * Returns false when the plan ends the call (a non-OK status), true to go on reading.
 */
export async function answerTurn(
  call: GrpcCall,
  plan: GrpcPlan,
  turn: number,
  sent: (m: EncodedAnswer) => void,
): Promise<boolean> {
  await pause(turn === 0 ? plan.delayMs : Math.max(plan.delayMs, plan.intervalMs), call.signal);
  if (turn === 0 && plan.metadata) call.sendHeaders(plan.metadata);
  if (plan.status !== GrpcStatus.OK) {
    call.end(endOf(plan));
    return false;
  }
  const m = plan.message(turn);
  await call.send(m.bytes);
  sent(m);
  return true;
}

/** Ends a bidirectional call once the client has half-closed: OK with the last plan's trailers. */
export function endTurns(call: GrpcCall, last: GrpcPlan | undefined): void {
  call.end(last ? { ...endOf(last), code: GrpcStatus.OK } : { code: GrpcStatus.OK });
}
