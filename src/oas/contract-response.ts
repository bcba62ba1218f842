/**
 * An answer checked against the operation's response for its status (SPEC §7, contract checking):
 * the response is the one of the exact code, else of its class (`2XX`), else `default`, and a status
 * none describes is a violation `in: 'status'`; then the answer's Content-Type against the response's
 * media types, and a JSON body against the media type's schema.
 *
 * Bounded: a streamed answer (proxy, tunnel) is never buffered for this: its status and type are
 * checked, its body is not; a body over OAS_CONTRACT_RESPONSE_BYTES is not parsed.
 */
import type { Answer } from '../http/index.js';
import type { CompiledSpec, Operation } from './compile.js';
import { capViolations, runChecker, type ContractCheck } from './contract-request.js';
import { checkerAt } from './contract-schemas.js';
import { contractOf, essence, isJsonMedia, pickMedia, typesOf, type ResponseContract } from './contract.js';

/** Bytes of an answer's body parsed to check it against its schema; a larger one is not checked. */
export const OAS_CONTRACT_RESPONSE_BYTES = 1024 * 1024;

/** The response of `responses` for `status`: exact, then `2XX`, then `default`. */
export function responseFor(responses: ResponseContract[], status: number): ResponseContract | undefined {
  const code = String(status);
  const range = `${code[0]}XX`;
  return (
    responses.find((r) => r.key === code) ??
    responses.find((r) => r.key.toUpperCase() === range) ??
    responses.find((r) => r.key === 'default')
  );
}

function contentTypeOf(answer: Answer): string | undefined {
  const v = answer.headers['content-type'];
  return typeof v === 'string' ? v : v?.[0];
}

/** `answer` (to a request of `op`) checked against `op`'s response for its status. */
export function checkResponse(
  spec: CompiledSpec,
  op: Operation,
  answer: Answer,
  maxBytes = OAS_CONTRACT_RESPONSE_BYTES,
): ContractCheck {
  const out: ContractCheck = { violations: [], problems: [] };
  const contract = contractOf(spec, op);
  // An operation that describes no response (3.1 allows it) says nothing about its answers.
  if (contract.responses.length === 0) return out;
  const byStatus = (contract.byStatus ??= new Map<number, ResponseContract | null>());
  let response = byStatus.get(answer.status);
  if (response === undefined)
    byStatus.set(answer.status, (response = responseFor(contract.responses, answer.status) ?? null));
  if (!response) {
    const described = contract.responses.map((r) => r.key).join(', ');
    out.violations.push({
      in: 'status',
      path: String(answer.status),
      message: `The operation describes no response for status ${answer.status} (it describes ${described}).`,
    });
    return out;
  }
  const empty = answer.stream === undefined && answer.body.length === 0;
  if (response.media.length === 0 || empty) return out;
  const type = contentTypeOf(answer);
  if (type === undefined) {
    out.violations.push({
      in: 'content-type',
      path: '',
      message: `The answer has no Content-Type; response ${response.key} is ${typesOf(response.media)}.`,
    });
    return out;
  }
  const actual = essence(type);
  const media = pickMedia(response.media, actual);
  if (!media) {
    out.violations.push({
      in: 'content-type',
      path: actual,
      message: `Response ${response.key} is ${typesOf(response.media)}, not ${actual}.`,
    });
    return out;
  }
  if (media.schemaAt === undefined || !isJsonMedia(actual)) return out;
  // A streamed answer is not held back to be read: its status and type are what is checked.
  if (answer.stream !== undefined) return out;
  if (answer.body.length > maxBytes) {
    out.problems.push(`The answer's body was not checked against its schema: larger than ${maxBytes} bytes.`);
    return out;
  }
  let value: unknown;
  try {
    value = JSON.parse(typeof answer.body === 'string' ? answer.body : answer.body.toString('utf8'));
  } catch {
    out.violations.push({ in: 'body', path: '', message: 'is not valid JSON' });
    return out;
  }
  const checkers = (media.checkers ??= {});
  checkers.response ??= checkerAt(spec, media.schemaAt, { coerce: false, direction: 'response' });
  runChecker(checkers.response, value, 'body', '', out);
  out.violations = capViolations(out.violations);
  return out;
}
