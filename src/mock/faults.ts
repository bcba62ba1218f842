/**
 * Turning an outcome into a fault (SPEC §4 `fault`, issue 37): the answer is marked for the door to
 * write the fault at the socket level instead (serve/fault.ts), and the history records what the
 * client got. Invariants: the behavior and rule id are kept (a rule's fault is still `mock-rule`);
 * the recorded response body is empty (no body was sent); the problems carry one line
 * `fault: <name> (…)`, the way the history names the fault.
 */
import type { Outcome } from '../endpoint/index.js';
import type { Fault } from '../http/index.js';

/** What the client sees of each fault, as the history's problem line says it. */
const SEEN: Record<Fault, string> = {
  connection_reset: 'the connection was reset instead of answering',
  empty_response: 'the connection was closed before a byte was sent',
  malformed_chunk: 'the head was sent, then a chunk whose size is not hex, then the connection was closed',
  random_data_then_close: 'bytes that are not HTTP were sent, then the connection was closed',
  timeout: 'nothing was sent; the connection was held until the client gave up or FAULT_TIMEOUT_MAX passed',
};

/** The history's line for `fault`: `fault: <name> (what the client saw)`. */
export function faultProblem(fault: Fault, why?: string): string {
  return `fault: ${fault} (${SEEN[fault]}${why === undefined ? '' : `; ${why}`})`;
}

/** `o` answered by `fault` instead: a fresh outcome and answer (either may be shared). */
export function withFault(o: Outcome, fault: Fault, why?: string): Outcome {
  return {
    ...o,
    answer: { ...o.answer, fault },
    problems: [...(o.problems ?? []), faultProblem(fault, why)],
    recordedBody: '',
  };
}
