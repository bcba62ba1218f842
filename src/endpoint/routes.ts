/**
 * The request lifecycle of every endpoint, the echo included: `/e/<name>/<rest>` (and every
 * `<name>.<domain>` request, rewritten to that form by dispatch.ts). A request goes through
 *
 *   resolve the endpoint → checks that need no body → read and capture → answer (pipeline steps)
 *   → record in the history → send
 *
 * The whole lifecycle runs in the route's onRequest hook, before Fastify's body handling: Fastify
 * refuses a Content-Type it cannot parse (`text`, `;;;`) with 415 and a QUERY without one with 400,
 * while an endpoint must see every request as it was sent. The body is read here, off the raw socket,
 * with the limit counted on the wire.
 */
import { pipeline } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import {
  BodyTap,
  captureRequest,
  drainAndClose,
  mayHaveBody,
  readBody,
  replyDirect,
  TEXT_TYPE,
  tooLargeAnswer,
  type AnswerHeaders,
  type CapturedRequest,
  withHeaders,
} from '../http/index.js';
import type { EndpointRecord } from '../store/index.js';
import { endpointTarget } from './dispatch.js';
import { BUILT_IN_SETTINGS, endpointNameProblem } from './names.js';
import { runSteps, type EndpointPipeline, type Outcome } from './pipeline.js';
import { historyEntry, sensitiveHeaders } from './record.js';

const EMPTY = Buffer.alloc(0);

export interface EndpointRouting {
  /** Built-in endpoints (the echo) by name, answered without a store lookup. */
  builtIn: ReadonlyMap<string, EndpointPipeline>;
  /** The pipeline of every user endpoint. */
  user: EndpointPipeline;
}

/** The record a built-in endpoint is seen as (its stored row exists for listings only). */
function builtInRecord(name: string): EndpointRecord {
  return { name, createdAt: 0, settings: { ...BUILT_IN_SETTINGS } };
}

export async function endpointRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  routing: EndpointRouting,
): Promise<void> {
  // The lifecycle answers in onRequest; Fastify's parsers never see an endpoint's body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  const sensitive = sensitiveHeaders(ctx.config);
  const builtIns = new Map(
    [...routing.builtIn].map(([name, pipeline]) => [name, { endpoint: builtInRecord(name), pipeline }]),
  );

  const lifecycle = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const { name, path } = endpointTarget(request.url);
    // A built-in or an endpoint the cache holds is found at once; only a read waits.
    const found = builtIns.get(name) ?? userEndpoint(ctx, name, routing.user);
    const resolved = found instanceof Promise ? await found : found;
    if (!resolved) {
      request.raw.resume();
      return reply
        .code(404)
        .type(TEXT_TYPE)
        .send(
          `The endpoint "${name}" does not exist; create it with POST /api/v2/endpoints {"name":"${name}"} or in the dashboard.\n`,
        );
    }
    const { endpoint, pipeline } = resolved;
    let extra: AnswerHeaders | undefined;
    if (pipeline.beforeBody) {
      const b = pipeline.beforeBody(request.raw, endpoint);
      const checked = b instanceof Promise ? await b : b; // the echo's check answers at once
      if (checked.refuse) {
        // The body is discarded within the same bounds as a refused one, not read to its end.
        drainAndClose(request.raw);
        return replyDirect(reply, checked.refuse);
      }
      extra = checked.headers;
    }
    // A request without a body, and steps that answer at once, wait no turn of the event loop.
    const read = readAndCapture(ctx, request, reply, path, name, extra);
    const captured = read instanceof Promise ? await read : read;
    if (!captured) return reply;
    const exchange = { endpoint, request: captured };
    const ran = runSteps(pipeline.steps, exchange);
    let outcome = ran instanceof Promise ? await ran : ran;
    if (pipeline.finish) outcome = pipeline.finish(exchange, outcome);
    // A fresh header object: a step may answer with a shared one.
    if (extra) outcome.answer = withHeaders(outcome.answer, extra);
    const record = (recorded: Pick<Outcome, 'problems' | 'recordedBody'>, truncated = false): void =>
      ctx.history.record(
        historyEntry(name, captured, outcome.answer, {
          behavior: outcome.behavior,
          ruleId: outcome.ruleId,
          problems: recorded.problems,
          responseName: outcome.responseName,
          recordedBody: recorded.recordedBody,
          recordedTruncated: truncated,
          callout: outcome.callout,
          redact: sensitive,
          captureLimit: ctx.config.captureLimit,
          now: ctx.now(),
        }),
      );
    if (!outcome.answer.stream) {
      record(outcome);
      return replyDirect(reply, outcome.answer);
    }
    return sendStreamed(reply, outcome, ctx.config.captureLimit, record);
  };

  const unreachable = (): never => {
    throw new Error('endpoint requests are answered in onRequest');
  };
  for (const url of ['/e/:name', '/e/:name/*'])
    app.route({ method: app.supportedMethods, url, onRequest: lifecycle, handler: unreachable });
}

/**
 * Sends a streamed answer as it arrives and records it once it has ended (or failed: a stream cut
 * mid-way is recorded with what went through and a problem saying so).
 */
function sendStreamed(
  reply: FastifyReply,
  outcome: Outcome,
  captureLimit: number,
  record: (recorded: Pick<Outcome, 'problems' | 'recordedBody'>, truncated: boolean) => void,
): FastifyReply {
  const tap = new BodyTap(captureLimit);
  pipeline(outcome.answer.stream!, tap, (err) => {
    const { body, truncated } = tap.captured();
    const problems = [...(outcome.problems ?? [])];
    if (err) problems.push(`The answer was cut after ${tap.length} bytes: ${err.message}`);
    record({ problems, recordedBody: body }, truncated);
  });
  void reply
    .code(outcome.answer.status)
    .headers(outcome.answer.headers as Record<string, string | string[]>)
    .send(tap);
  // Fastify sets a stream's headers and leaves them until its first chunk; the status and headers are
  // known now (an upstream's first byte may take seconds). With no onSend hook in this scope, send()
  // has set them synchronously: they go at once.
  if (!reply.raw.headersSent) reply.raw.flushHeaders();
  return reply;
}

type Resolved = { endpoint: EndpointRecord; pipeline: EndpointPipeline } | undefined;

/** The user endpoint `name`: at once when the cache holds it (EndpointCache.loaded), else once read. */
function userEndpoint(
  ctx: AppContext,
  name: string,
  pipeline: EndpointPipeline,
): Resolved | Promise<Resolved> {
  if (endpointNameProblem(name) !== undefined) return undefined;
  const held = ctx.endpoints.loaded(name);
  if (held) return { endpoint: held, pipeline };
  return ctx.endpoints.get(name).then((endpoint) => (endpoint ? { endpoint, pipeline } : undefined));
}

/**
 * Reads the body with the limit and captures the request; on a refused body answers 413 and returns
 * undefined. A request that cannot have a body is captured at once.
 */
function readAndCapture(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  endpoint: string,
  extraHeaders: AnswerHeaders = {},
): CapturedRequest | undefined | Promise<CapturedRequest | undefined> {
  const capture = (body: Buffer) =>
    captureRequest(request.raw, path, body, { trustProxy: ctx.config.trustProxy });
  if (!mayHaveBody(request.raw)) return capture(EMPTY);
  return readBody(request.raw, ctx.config.bodyLimit).then((body) => {
    if (body.ok) return capture(body.body);
    if (body.reason === 'too_large') {
      ctx.log.info({ endpoint, path }, 'request body over the limit');
      // No `Connection: close`: Node would destroy the socket right after the answer, under the
      // client's writes, and a client that reads only after sending would see a reset, not the 413.
      drainAndClose(request.raw);
      void replyDirect(reply, tooLargeAnswer(ctx.config.bodyLimit, extraHeaders));
    } else {
      request.raw.destroy();
      void reply.hijack();
    }
    return undefined;
  });
}
