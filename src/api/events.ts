/**
 * The live event stream of one endpoint (SPEC §4 "Real-time events"): GET /endpoints/:ep/events,
 * Server-Sent Events fed by the event bus. Browsers' EventSource cannot send headers, so the key may
 * also come as `?access_token=` (checked by the API's onRequest hook). Streams are bounded in number,
 * in total and per key (stream-slots.ts), in what a reader may leave unread (sse.ts) and in what all
 * readers leave unread together (sse-hub.ts, which also serialises each event once). Open streams
 * are ended when the server closes, else they would hold `fastify.close()` until every dashboard went away.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiDeps } from './deps.js';
import { AppError } from '../errors.js';
import { errorResponses } from './history-schemas.js';
import { EndpointParams, ErrorBody } from './schemas/common.js';
import { EVENT_ID } from '../events/index.js';
import { CLOSE_RETRY_MS, openSse, type SseStream } from './sse.js';
import { subscribeFrom } from './sse-resume.js';
import { StreamSlots } from './stream-slots.js';

const EventsQuery = Type.Object(
  {
    access_token: Type.Optional(
      Type.String({ minLength: 1, description: 'The API key, for clients that cannot send headers.' }),
    ),
  },
  { additionalProperties: false },
);

/** Registers the event stream on `app` (relative to /endpoints/:ep, endpoint-scope.ts) and ends it on close. */
export async function eventsApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'events' | 'sse'>,
): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const streams = new Set<SseStream>();
  const slots = new StreamSlots({
    total: ctx.config.sseMaxStreams,
    perKey: ctx.config.sseMaxStreamsPerKey,
  });

  // preClose runs before the server waits for open connections to end. The last line tells browsers to
  // come back at once: behind a load balancer, to another instance, from their Last-Event-ID.
  api.addHook('preClose', async () => {
    for (const s of [...streams]) s.close({ retryMs: CLOSE_RETRY_MS });
  });

  api.get(
    '/events',
    {
      schema: {
        tags: ['Events'],
        summary: 'Live events of an endpoint (text/event-stream)',
        description:
          'Server-Sent Events: `event: <name>` and `data: <json>` per event (request.created, requests.deleted, ' +
          'rule.created, rule.updated, rule.deleted, rules.deleted, rules.reordered, settings.updated, ' +
          'tunnel.connected, tunnel.disconnected), a comment every 15 s as a heartbeat. Each event has an ' +
          '`id:`; a client that reconnects with `Last-Event-ID` (EventSource does) gets the events it ' +
          'missed, then the live ones, or one `reset` event when they are no longer kept (reload then). ' +
          'A Last-Event-ID not of the `<integer>-<integer>` shape: 400. Over ' +
          'SSE_MAX_STREAMS_PER_KEY streams of one key, or SSE_MAX_STREAMS in all: 429 with Retry-After.',
        params: EndpointParams,
        querystring: EventsQuery,
        response: { ...errorResponses, 429: ErrorBody },
      },
    },
    async (request, reply) => {
      const ep = request.endpoint.name;
      const lastId = lastEventId(request.headers['last-event-id']);
      // No await from here on: the slot is counted in the same turn as the check that allowed it.
      const keyId = request.principal?.keyId;
      if (keyId === undefined) throw new AppError('missing_authentication');
      const releaseSlot = slots.take(keyId);
      reply.hijack();
      const stream = openSse(reply.raw, { maxBuffered: ctx.config.sseMaxBuffered, hub: ctx.sse });
      // One serialisation of each event for all of its streams, one write per stream per turn (sse-batch.ts).
      const unsubscribe = subscribeFrom(ctx.events, ep, lastId, stream, (e) =>
        ctx.sse.batches.deliver(stream, e),
      );
      streams.add(stream);
      // Runs at once if the client had already gone.
      stream.onClose(() => {
        unsubscribe();
        streams.delete(stream);
        releaseSlot();
      });
    },
  );
}

/** The Last-Event-ID header: undefined when absent or empty, else an id of the bus's shape (400 otherwise). */
function lastEventId(raw: string | string[] | undefined): string | undefined {
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (v === undefined || v.trim() === '') return undefined;
  if (!EVENT_ID.test(v.trim()))
    throw new AppError(
      'validation_error',
      'Last-Event-ID must be the id of an event this service sent: two integers joined by "-".',
    );
  return v.trim();
}
