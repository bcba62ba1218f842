/**
 * The endpoint routes: `/e/<name>/<rest>` (and every `<name>.<domain>` request, rewritten to that form
 * by the server). Bodies are read here, off the raw socket, with the wire limit; the request is
 * captured once, answered by the echo or the endpoint pipeline, and recorded in the history.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import {
  captureRequest,
  clientIp,
  drainAndClose,
  rateLimitHeaders,
  readBody,
  mayHaveBody,
  type CapturedRequest,
} from '../http/index.js';
import { echoDocument, isPreflight, preflightHeaders } from '../echo/index.js';
import { errorBody } from '../errors.js';
import { historyEntry, type Answer } from './record.js';
import { answerEndpoint } from './pipeline.js';
import { endpointNameProblem } from './names.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const EMPTY = Buffer.alloc(0);

/** Splits `/e/<name>/<rest>?q` into the endpoint name and the path the endpoint sees. */
export function splitEndpointUrl(url: string): { name: string; path: string } {
  const afterPrefix = url.slice(3); // drop "/e/"
  const end = afterPrefix.search(/[/?]/);
  const name = (end === -1 ? afterPrefix : afterPrefix.slice(0, end)).toLowerCase();
  let path = end === -1 ? '/' : afterPrefix.slice(end);
  if (path.startsWith('?')) path = '/' + path;
  return { name, path };
}

function send(reply: FastifyReply, a: Answer): FastifyReply {
  return reply.code(a.status).headers(a.headers).send(a.body);
}

export async function endpointRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  // Leave the body on the socket: it is read below, with the limit counted on the wire.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));
  // Fastify refuses a Content-Type it cannot parse (`text`, `;;;`) with 415, and a QUERY without one
  // with 400, before any handler runs; an endpoint must see every request. Fastify is shown a fixed,
  // valid type (request.headers only: the raw headers, which the capture reads, stay untouched).
  app.addHook('onRequest', (request, _reply, done) => {
    request.headers = { 'content-type': 'application/octet-stream' };
    done();
  });

  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const { name, path } = splitEndpointUrl(request.url);
    if (name === 'echo') return handleEcho(ctx, request, reply, path);
    const ep = endpointNameProblem(name) === undefined ? await ctx.store.getEndpoint(name) : undefined;
    if (!ep) {
      request.raw.resume();
      return reply
        .code(404)
        .type('text/plain; charset=utf-8')
        .send(
          `The endpoint "${name}" does not exist; create it with POST /api/v2/endpoints {"name":"${name}"} or in the dashboard.\n`,
        );
    }
    const captured = await readAndCapture(ctx, request, reply, path, name);
    if (!captured) return reply;
    const { answer, behavior, ruleId, problems } = await answerEndpoint(ctx, ep, captured);
    ctx.history.record(
      historyEntry(name, captured, answer, {
        behavior,
        ruleId,
        problems,
        captureLimit: ctx.config.captureLimit,
        now: ctx.now(),
      }),
    );
    return send(reply, answer);
  };

  for (const url of ['/e/:name', '/e/:name/*']) app.route({ method: app.supportedMethods, url, handler });
}

/** Reads the body with the limit and captures the request; on a refused body answers 413 and returns undefined. */
async function readAndCapture(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  endpoint: string,
  extraHeaders: Record<string, string> = {},
): Promise<CapturedRequest | undefined> {
  const body = mayHaveBody(request.raw)
    ? await readBody(request.raw, ctx.config.bodyLimit)
    : ({ ok: true, body: EMPTY } as const);
  if (!body.ok) {
    if (body.reason === 'too_large') {
      const text = JSON.stringify(
        errorBody('payload_too_large', `The request body is larger than ${ctx.config.bodyLimit} bytes.`),
      );
      ctx.log.info({ endpoint, path }, 'request body over the limit');
      // No `Connection: close`: Node would destroy the socket right after the answer, under the
      // client's writes, and a client that reads only after sending would see a reset, not the 413.
      drainAndClose(request.raw);
      void reply.code(413).headers(extraHeaders).type(JSON_TYPE).send(text);
    } else {
      request.raw.destroy();
      void reply.hijack();
    }
    return undefined;
  }
  return captureRequest(request.raw, path, body.body, { trustProxy: ctx.config.trustProxy });
}

async function handleEcho(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
): Promise<FastifyReply> {
  const cors = { 'access-control-allow-origin': '*' };
  const ip = clientIp(request.raw, request.raw.headers, ctx.config.trustProxy);
  const hit = ctx.limiter.hit('echo:' + ip, ctx.config.echoRateLimit, 60_000);
  const decision = hit instanceof Promise ? await hit : hit; // the in-memory limiter answers at once
  const limitHeaders = rateLimitHeaders(decision, ctx.now());
  if (!decision.allowed) {
    // Not recorded: the limit exists to protect the service, history writes included. The body is
    // discarded within the same bounds as a refused one, not read to its end whatever its size.
    drainAndClose(request.raw);
    return reply
      .code(429)
      .headers({ ...cors, ...limitHeaders })
      .type(JSON_TYPE)
      .send(
        JSON.stringify(
          errorBody('rate_limited', `More than ${decision.limit} echo requests a minute from ${ip}.`),
        ),
      );
  }
  const captured = await readAndCapture(ctx, request, reply, path, 'echo', { ...cors, ...limitHeaders });
  if (!captured) return reply;
  let answer: Answer;
  if (isPreflight(captured.method, captured.headers)) {
    answer = { status: 204, headers: { ...preflightHeaders(captured.headers), ...limitHeaders }, body: '' };
  } else {
    answer = {
      status: 200,
      headers: { ...cors, ...limitHeaders, 'content-type': JSON_TYPE },
      body: JSON.stringify(echoDocument(captured)),
    };
  }
  ctx.history.record(
    historyEntry('echo', captured, answer, {
      behavior: 'echo',
      captureLimit: ctx.config.captureLimit,
      now: ctx.now(),
    }),
  );
  return send(reply, answer);
}
