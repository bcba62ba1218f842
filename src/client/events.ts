/**
 * An endpoint's live events (`GET /api/v2/endpoints/:ep/events`) read from a fetch stream: the API
 * key goes in the Authorization header, and the Server-Sent Events are parsed by eventsource-parser.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { Transport } from './http.js';
import type { EndpointEvent } from './types.js';

/** An open event stream: iterate it for events; `close()` ends it (so does leaving the loop). */
export interface EventStream extends AsyncIterable<EndpointEvent> {
  close(): void;
}

function parseData(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Opens the stream of `endpoint`; resolves once the server has answered, which is when it has
 * subscribed the stream: every event after that moment is delivered.
 */
export async function openEvents(
  transport: Transport,
  endpoint: string,
  signal?: AbortSignal,
): Promise<EventStream> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const res = await transport.raw('GET', `/api/v2/endpoints/${encodeURIComponent(endpoint)}/events`, {
    headers: { accept: 'text/event-stream' },
    signal: controller.signal,
  });
  if (!res.body) throw new Error('The event stream has no body.');
  const messages = res.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const close = () => {
    signal?.removeEventListener('abort', onAbort);
    controller.abort();
    void messages.cancel().catch(() => undefined);
  };
  async function* iterate(): AsyncGenerator<EndpointEvent> {
    try {
      for (;;) {
        let next: Awaited<ReturnType<typeof messages.read>>;
        try {
          next = await messages.read();
        } catch (err) {
          if (controller.signal.aborted) return;
          throw err;
        }
        if (next.done) return;
        yield { event: next.value.event ?? 'message', data: parseData(next.value.data) };
      }
    } finally {
      close();
    }
  }
  const it = iterate();
  return { close, [Symbol.asyncIterator]: () => it };
}
