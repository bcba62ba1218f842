/**
 * A stream that resumes (`Last-Event-ID`, SPEC §8): the client gets the events of its endpoint it
 * missed, exactly once and in order, then the live ones; or one `reset` event when the bus cannot
 * tell what it missed (the dashboard then reloads what it shows). The stream subscribes before it
 * asks for the replay, holds the live events until the replay is written, and drops those the replay
 * (or the client) already has. The catch-up is written straight to the stream, in one write, not
 * through the batcher (sse-batch.ts): a batch is shared by every stream of an endpoint, and the
 * catch-up is this stream's alone.
 */
import { idAfter, type EventBus, type MockEvent, type Replay } from '../events/index.js';
import type { SseStream } from './sse.js';
import { eventFrame, sseFrame } from './sse-frame.js';

/** Subscribes `live` to the endpoint's events, after a catch-up from `lastId` if given; returns the unsubscribe. */
export function subscribeFrom(
  events: Pick<EventBus, 'subscribe' | 'replay'>,
  endpoint: string,
  lastId: string | undefined,
  stream: Pick<SseStream, 'closed' | 'sendFrame'>,
  live: (e: MockEvent) => void,
): () => void {
  if (lastId === undefined) return events.subscribe(endpoint, live);
  let held: MockEvent[] | undefined = [];
  const unsubscribe = events.subscribe(endpoint, (e) => (held ? held.push(e) : live(e)));
  void events
    .replay(endpoint, lastId)
    .catch((): Replay => ({ reset: true, id: undefined, reason: 'the events could not be read' }))
    .then((r) => {
      const waiting = held ?? [];
      held = undefined;
      if (stream.closed) return;
      const frames: Buffer[] = [];
      let at: string | undefined;
      if (r.reset) {
        frames.push(sseFrame('reset', { reason: r.reason }, r.id));
        at = r.id;
      } else {
        for (const e of r.events) frames.push(eventFrame(e));
        at = r.events.at(-1)?.id ?? lastId;
      }
      for (const e of waiting)
        if (e.id === undefined || at === undefined || idAfter(e.id, at)) frames.push(eventFrame(e));
      if (frames.length > 0) stream.sendFrame(frames.length === 1 ? frames[0]! : Buffer.concat(frames));
    });
  return unsubscribe;
}
