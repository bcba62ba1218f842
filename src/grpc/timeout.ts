/**
 * The `grpc-timeout` request header (grpc/grpc doc/PROTOCOL-HTTP2.md): `TimeoutValue TimeoutUnit`, a
 * positive integer of at most 8 ASCII digits and one of `H M S m u n`.
 *
 * Decision: a malformed value is a protocol error, answered INTERNAL (as grpc-go does) rather than
 * ignored, so a client that means a deadline never runs without one.
 */
import { CallError, GrpcStatus } from './types.js';

/** Milliseconds per unit. */
const UNIT_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1_000,
  m: 1,
  u: 0.001,
  n: 0.000_001,
};

/** At most this many digits (the spec's bound). */
export const MAX_TIMEOUT_DIGITS = 8;

/** Longest delay a Node timer keeps (ms); a longer timeout is treated as no timeout at all. */
export const MAX_TIMER_MS = 2_147_483_647;

const TIMEOUT = /^(\d{1,8})([HMSmun])$/;

/**
 * The timeout in milliseconds (a fraction for `u`/`n`), or undefined when the header is absent.
 * Throws CallError(INTERNAL) for a malformed value.
 */
export function parseGrpcTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = TIMEOUT.exec(value);
  if (!m) throw new CallError(GrpcStatus.INTERNAL, `malformed grpc-timeout "${value.slice(0, 20)}"`);
  return Number(m[1]) * (UNIT_MS[m[2] ?? 'S'] ?? 1);
}

/**
 * Arms `onExpire` for a `grpc-timeout` of `ms`, returning the absolute deadline and a disarm
 * function; a timeout beyond MAX_TIMER_MS arms nothing (the deadline is still reported).
 */
export function armDeadline(ms: number, onExpire: () => void): { deadline: number; disarm: () => void } {
  const deadline = Date.now() + ms;
  if (ms > MAX_TIMER_MS) return { deadline, disarm: () => undefined };
  const timer = setTimeout(onExpire, Math.max(0, ms));
  timer.unref();
  return { deadline, disarm: () => clearTimeout(timer) };
}
