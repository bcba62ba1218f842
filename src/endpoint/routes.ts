/**
 * The endpoint routes inside Fastify: `/e/:name` and `/e/:name/*`, every method. The lifecycle
 * (lifecycle.ts) runs in the route's onRequest hook, before Fastify's body handling: Fastify refuses a
 * Content-Type it cannot parse (`text`, `;;;`) with 415 and a QUERY without one with 400, while an
 * endpoint must see every request as it was sent. Most requests never get here: the lane in front of
 * Fastify (lane.ts) answers them, and hands over only what it leaves to Fastify, already decided.
 *
 * A streamed answer (proxy, tunnel) whose source fails mid-body cannot change its status any more:
 * the client's connection is cut (Fastify destroys the response), the history keeps what went through
 * with a problem saying so, and the log gets one warn line, without a stack (an upstream that closes
 * early is the upstream's doing, not an error of ours).
 */
import { pipeline } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BodyTap, replyDirect, replyHeaders } from '../http/index.js';
import { endpointTarget } from './dispatch.js';
import { handedOver } from './hand-over.js';
import type { Decision, Lifecycle, StreamRecorder } from './lifecycle.js';
import type { Outcome } from './pipeline.js';
import { sandboxed, takeSandbox } from './sandbox.js';

export function endpointRoutes(
  app: FastifyInstance,
  lifecycle: Lifecycle,
  captureLimit: number,
  log: FastifyBaseLogger,
): void {
  // The lifecycle answers in onRequest; Fastify's parsers never see an endpoint's body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  const onRequest = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    let decided = handedOver(request.raw);
    if (decided === undefined) {
      const target = endpointTarget(request.url);
      const found = lifecycle.resolve(target);
      // A built-in or an endpoint the cache holds is found at once; only a read waits.
      const ran = lifecycle.run(request.raw, target, found instanceof Promise ? await found : found);
      decided = ran instanceof Promise ? await ran : ran;
    }
    return deliver(reply, decided, captureLimit, log);
  };

  // onRequest answers every request. The hook's promise follows the reply, which Fastify settles as
  // soon as the response closes: when a streamed answer was cut (the response destroyed, never ended)
  // Fastify goes on to the handler, and there is nothing left to do.
  const answered = (_request: FastifyRequest, reply: FastifyReply): void => {
    if (reply.raw.headersSent || reply.raw.destroyed) return;
    throw new Error('endpoint requests are answered in onRequest');
  };
  for (const url of ['/e/:name', '/e/:name/*'])
    app.route({ method: app.supportedMethods, url, onRequest, handler: answered });
}

/**
 * Sends what the lifecycle decided through Fastify; an answer of the path form with the sandbox added
 * to its own headers (sandbox.ts: set on the response alone, an answer's own policy would replace it).
 */
function deliver(
  reply: FastifyReply,
  d: Decision,
  captureLimit: number,
  log: FastifyBaseLogger,
): FastifyReply {
  const sandbox = takeSandbox(reply.raw);
  if (d.answer) return replyDirect(reply, sandbox ? sandboxed(d.answer) : d.answer);
  if (d.streamed) {
    const outcome = sandbox ? { ...d.streamed, answer: sandboxed(d.streamed.answer) } : d.streamed;
    return sendStreamed(reply, outcome, captureLimit, d.record, log);
  }
  return reply.hijack(); // dropped: the connection is gone
}

/**
 * Sends a streamed answer as it arrives and records it once it has ended (or failed: a stream cut
 * mid-way is recorded with what went through and a problem saying so).
 */
function sendStreamed(
  reply: FastifyReply,
  outcome: Outcome,
  captureLimit: number,
  record: StreamRecorder,
  log: FastifyBaseLogger,
): FastifyReply {
  const tap = new BodyTap(captureLimit);
  pipeline(outcome.answer.stream!, tap, (err) => {
    const { body, truncated } = tap.captured();
    const problems = [...(outcome.problems ?? [])];
    if (err) {
      problems.push(`The answer was cut after ${tap.length} bytes: ${err.message}`);
      const { method, url } = reply.request;
      log.warn(
        {
          method,
          url: url.split('?')[0],
          status: outcome.answer.status,
          bytes: tap.length,
          reason: err.message,
        },
        'streamed answer cut',
      );
    }
    record({ problems, recordedBody: body }, truncated);
  });
  void replyHeaders(reply.code(outcome.answer.status), outcome.answer.headers).send(tap);
  // Fastify sets a stream's headers and leaves them until its first chunk; the status and headers are
  // known now (an upstream's first byte may take seconds). With no onSend hook in this scope, send()
  // has set them synchronously: they go at once.
  if (!reply.raw.headersSent) reply.raw.flushHeaders();
  return reply;
}
