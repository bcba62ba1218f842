/**
 * The request lifecycle of every endpoint, the echo included, on Node's raw request (the target
 * dispatch.ts found). A request goes through
 *
 *   resolve the endpoint → checks that need no body → read and capture → answer (pipeline steps)
 *   → record in the history
 *
 * and comes out as what to send (a `Decision`), which the endpoint plane's door (serve/) writes. The
 * body is read here, off the raw socket, with the limit counted on the wire.
 */
import type { IncomingMessage } from 'node:http';
import type { LifecycleDeps } from './deps.js';
import {
  captureRequest,
  drainAndClose,
  mayHaveBody,
  readBody,
  TEXT_TYPE,
  tooLargeAnswer,
  type Answer,
  type AnswerHeaders,
  type CapturedRequest,
  withHeaders,
} from '../http/index.js';
import type { Behavior, EndpointRecord } from '../store/index.js';
import type { EndpointCache, ResolvedEndpoint } from './cache.js';
import type { Target } from './dispatch.js';
import { BUILT_IN_SETTINGS, endpointNameProblem } from './names.js';
import { runSteps, type BeforeBody, type EndpointPipeline, type Outcome } from './pipeline.js';
import { historyEntry, sensitiveHeaders } from '../history/index.js';

const EMPTY = Buffer.alloc(0);

export interface EndpointRouting<E extends ResolvedEndpoint = ResolvedEndpoint> {
  /** Built-in endpoints (the echo) by name, answered without a store lookup. */
  builtIn: ReadonlyMap<string, EndpointPipeline<E>>;
  /** The pipeline of every user endpoint. */
  user: EndpointPipeline<E>;
  /** The user endpoints, resolved once per entry; its resolver also resolves the built-ins, once. */
  endpoints: Pick<EndpointCache<E>, 'get' | 'loaded' | 'resolve'>;
}

/** An endpoint, resolved, and the pipeline that answers it. */
export type Resolved<E extends ResolvedEndpoint = ResolvedEndpoint> = {
  endpoint: E;
  pipeline: EndpointPipeline<E>;
};

/** Records a streamed answer once it has ended, with what the stream let through. */
export type StreamRecorder = (
  recorded: Pick<Outcome, 'problems' | 'recordedBody'>,
  truncated: boolean,
) => void;

/** What the lifecycle decided to send. */
export type Decision =
  /** An answer with its whole body (already recorded when it is to be). */
  | { answer: Answer; streamed?: undefined; dropped?: undefined }
  /** An answer whose body streams (`outcome.answer.stream`), recorded by `record` once it ends. */
  | { streamed: Outcome; record: StreamRecorder; answer?: undefined; dropped?: undefined }
  /** Nothing to send: the connection was destroyed (a body that failed mid-way). */
  | { dropped: true; answer?: undefined; streamed?: undefined };

export interface Lifecycle<E extends ResolvedEndpoint = ResolvedEndpoint> {
  /**
   * The endpoint `target` names: at once for a built-in or a record the cache holds, a promise when
   * the store must be read; undefined for one that does not exist (or an invalid name).
   */
  resolve(target: Target): Resolved<E> | undefined | Promise<Resolved<E> | undefined>;
  /** Runs the request through `resolved` (undefined: the endpoint does not exist). */
  run(req: IncomingMessage, target: Target, resolved: Resolved<E> | undefined): Decision | Promise<Decision>;
}

/** The record a built-in endpoint is seen as (its stored row exists for listings only). */
function builtInRecord(name: string): EndpointRecord {
  return { name, createdAt: 0, settings: { ...BUILT_IN_SETTINGS } };
}

export function endpointLifecycle<E extends ResolvedEndpoint>(
  ctx: LifecycleDeps,
  routing: EndpointRouting<E>,
): Lifecycle<E> {
  const sensitive = sensitiveHeaders(ctx.config);
  // One counter child per behavior, looked up once: an increment is then a map read and an addition.
  const counters = new Map<Behavior, { inc(): void }>();
  const count = (behavior: Behavior): void => {
    let c = counters.get(behavior);
    if (!c) counters.set(behavior, (c = ctx.metrics.requests.labels(behavior)));
    c.inc();
  };
  const { endpoints } = routing;
  const builtIns = new Map<string, Resolved<E>>(
    [...routing.builtIn].map(([name, pipeline]) => [
      name,
      { endpoint: endpoints.resolve(builtInRecord(name)), pipeline },
    ]),
  );

  /** The endpoint `name`, known without a wait; 'read' when the store must be asked. */
  const known = (name: string): Resolved<E> | undefined | 'read' => {
    const builtIn = builtIns.get(name);
    if (builtIn) return builtIn;
    if (endpointNameProblem(name) !== undefined) return undefined;
    const held = endpoints.loaded(name);
    return held ? { endpoint: held, pipeline: routing.user } : 'read';
  };

  const run = (
    req: IncomingMessage,
    { name, path }: Target,
    resolved: Resolved<E> | undefined,
  ): Decision | Promise<Decision> => {
    if (!resolved) {
      req.resume();
      return {
        answer: {
          status: 404,
          headers: { 'content-type': TEXT_TYPE },
          body: `The endpoint "${name}" does not exist; create it with POST /api/v2/endpoints {"name":"${name}"} or in the dashboard.\n`,
        },
      };
    }
    const { endpoint, pipeline } = resolved;
    if (!pipeline.beforeBody) return afterChecks(req, path, name, resolved, undefined);
    const b = pipeline.beforeBody(req, endpoint);
    // The echo's check answers at once.
    return b instanceof Promise
      ? b.then((checked) => checkedThen(req, path, name, resolved, checked))
      : checkedThen(req, path, name, resolved, b);
  };

  const checkedThen = (
    req: IncomingMessage,
    path: string,
    name: string,
    resolved: Resolved<E>,
    checked: BeforeBody,
  ): Decision | Promise<Decision> => {
    if (checked.refuse) {
      // The body is discarded within the same bounds as a refused one, not read to its end.
      drainAndClose(req);
      return { answer: checked.refuse };
    }
    return afterChecks(req, path, name, resolved, checked.headers);
  };

  const afterChecks = (
    req: IncomingMessage,
    path: string,
    name: string,
    resolved: Resolved<E>,
    extra: AnswerHeaders | undefined,
  ): Decision | Promise<Decision> => {
    // A request without a body, and steps that answer at once, wait no turn of the event loop.
    const read = readAndCapture(req, path, name, extra);
    return read instanceof Promise
      ? read.then((r) => (isCaptured(r) ? answer(r, name, resolved, extra) : r))
      : answer(read, name, resolved, extra);
  };

  const answer = (
    captured: CapturedRequest,
    name: string,
    { endpoint, pipeline }: Resolved<E>,
    extra: AnswerHeaders | undefined,
  ): Decision | Promise<Decision> => {
    const exchange = { endpoint, request: captured };
    const ran = runSteps(pipeline.steps, exchange);
    const finish = (o: Outcome): Decision => {
      let outcome = o;
      if (pipeline.finish) outcome = pipeline.finish(exchange, outcome);
      // A fresh header object: a step may answer with a shared one.
      if (extra) outcome.answer = withHeaders(outcome.answer, extra);
      const record = (recorded: Pick<Outcome, 'problems' | 'recordedBody'>, truncated = false): void => {
        count(outcome.behavior);
        ctx.history.record(
          historyEntry(name, captured, outcome.answer, {
            behavior: outcome.behavior,
            ruleId: outcome.ruleId,
            problems: recorded.problems,
            responseName: outcome.responseName,
            recordedBody: recorded.recordedBody,
            recordedTruncated: truncated,
            callout: outcome.callout,
            validation: outcome.validation,
            responseValidation: outcome.responseValidation,
            redact: sensitive,
            captureLimit: ctx.config.captureLimit,
            now: ctx.now(),
          }),
        );
      };
      if (outcome.answer.stream) return { streamed: outcome, record };
      record(outcome);
      return { answer: outcome.answer };
    };
    return ran instanceof Promise ? ran.then(finish) : finish(ran);
  };

  /**
   * Reads the body with the limit and captures the request; a refused body comes back as the 413 to
   * send, a failed read as dropped. A request that cannot have a body is captured at once.
   */
  const readAndCapture = (
    req: IncomingMessage,
    path: string,
    endpoint: string,
    extraHeaders: AnswerHeaders = {},
  ): CapturedRequest | Promise<CapturedRequest | Decision> => {
    // A multipart body's capture waits for its parts; any other is captured at once.
    const capture = (body: Buffer): CapturedRequest | Promise<CapturedRequest> =>
      captureRequest(req, path, body, { trustProxy: ctx.config.trustProxy });
    if (!mayHaveBody(req)) return capture(EMPTY);
    return readBody(req, ctx.config.bodyLimit).then((body) => {
      if (body.ok) return capture(body.body);
      if (body.reason === 'too_large') {
        ctx.log.info({ endpoint, path }, 'request body over the limit');
        // No `Connection: close`: Node would destroy the socket right after the answer, under the
        // client's writes, and a client that reads only after sending would see a reset, not the 413.
        drainAndClose(req);
        return { answer: tooLargeAnswer(ctx.config.bodyLimit, extraHeaders) };
      }
      req.destroy();
      return { dropped: true as const };
    });
  };

  return {
    resolve({ name }) {
      const k = known(name);
      if (k !== 'read') return k;
      return endpoints
        .get(name)
        .then((endpoint) => (endpoint ? { endpoint, pipeline: routing.user } : undefined));
    },
    run,
  };
}

function isCaptured(r: CapturedRequest | Decision): r is CapturedRequest {
  return !('answer' in r || 'streamed' in r || 'dropped' in r);
}
