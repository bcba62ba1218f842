/**
 * The answer step of the request lifecycle is an ordered list of pipeline steps (SPEC §5): each looks
 * at the captured request and either answers (an Outcome) or passes (undefined) to the next one. The
 * echo and user endpoints each bring their own list; security, rate limit, quota, rules and the links
 * of the fallback chain are steps, in the order the contract gives them.
 */
import type { IncomingMessage } from 'node:http';
import type { Answer, AnswerHeaders, CapturedRequest } from '../http/index.js';
import type { Behavior, CalloutRecord, ContractViolation } from '../store/index.js';
import type { ResolvedEndpoint } from './cache.js';

/** What answered a request, as the history records it. */
export interface Outcome {
  answer: Answer;
  behavior: Behavior;
  ruleId?: string | null;
  /** Problems noted while answering (template errors …), recorded with the request. */
  problems?: string[];
  /** The response a weighted action chose, by name. */
  responseName?: string;
  /** The body the history keeps, when it must differ from the one sent (the echo's, redacted). */
  recordedBody?: string | Buffer;
  /** A rule callout's request and response as the history keeps them (already redacted and cut). */
  callout?: CalloutRecord;
  /** The request checked against the endpoint's OpenAPI document (SPEC §7), when one describes it. */
  validation?: ContractViolation[];
  /** The answer checked against the operation's response for its status. */
  responseValidation?: ContractViolation[];
}

/**
 * One request to one endpoint, as the steps see it. `E` is the resolved endpoint a pipeline reads
 * (the mock pipeline's names its settings and plan); a step that reads only the record takes the
 * default.
 */
export interface Exchange<E extends ResolvedEndpoint = ResolvedEndpoint> {
  readonly endpoint: E;
  readonly request: CapturedRequest;
}

export type Step<E extends ResolvedEndpoint = ResolvedEndpoint> = (
  x: Exchange<E>,
) => Outcome | undefined | Promise<Outcome | undefined>;

/** What the checks that need no body decided. */
export interface BeforeBody {
  /** Answered at once; the body is discarded, not read, and the request is not recorded. */
  refuse?: Answer;
  /** Added to every answer of the request (a 413 included). */
  headers?: AnswerHeaders;
}

export interface EndpointPipeline<E extends ResolvedEndpoint = ResolvedEndpoint> {
  /** Checks run before the body is read (they see the raw request only). */
  beforeBody?(request: IncomingMessage, endpoint: E): BeforeBody | Promise<BeforeBody>;
  /** The answer steps, in order; the last must always answer. */
  steps: readonly Step<E>[];
  /** Applied to whichever step's outcome (headers every answer of the endpoint carries). */
  finish?(x: Exchange<E>, o: Outcome): Outcome;
}

/**
 * Runs `steps` in order until one answers. Steps that answer synchronously cost no extra turn: the
 * outcome comes back at once unless a step had to wait.
 */
export function runSteps<E extends ResolvedEndpoint>(
  steps: readonly Step<E>[],
  x: Exchange<E>,
  from = 0,
): Outcome | Promise<Outcome> {
  for (let i = from; i < steps.length; i++) {
    const out = steps[i]!(x);
    if (out instanceof Promise) return out.then((o) => (o !== undefined ? o : runSteps(steps, x, i + 1)));
    if (out !== undefined) return out;
  }
  throw new Error(
    `No pipeline step answered ${x.request.method} ${x.request.path} on ${x.endpoint.record.name}`,
  );
}
