/**
 * What a dashboard that reconnects with Last-Event-ID missed, read from the shared event stream
 * (redis-event-bus.ts): the entries after its id, of its endpoint, in order; or a reset when the stream
 * cannot tell them all. The stream is trimmed from its oldest entry, so it holds everything after the id
 * exactly when it still holds the id itself (a stream made anew by a Redis restarted empty does not).
 */
import type { Redis } from 'ioredis';
import { EVENT_ID, type MockEvent, type Replay } from '../events/index.js';
import { decodeEntry, entryEvent, idMs } from './event-entry.js';

/** Entries read at once (XREAD, XRANGE). */
export const PAGE = 500;

export type StreamEntries = [id: string, fields: string[]][];

export interface ReplayOptions {
  /** Most events replayed; more is a reset. */
  replayMax: number;
  /** When the endpoint's listen mark was made (Redis ms), undefined without one (listen-marks.ts). */
  markSince: (endpoint: string) => Promise<number | undefined>;
  /** How long after a mark is made every instance is sure to have heard of it (ms). */
  settleMs: number;
}

export async function replayStream(
  c: Redis,
  key: string,
  endpoint: string,
  lastId: string,
  opts: ReplayOptions,
): Promise<Replay> {
  if (!EVENT_ID.test(lastId)) return { reset: true, id: undefined, reason: 'not an event id' };
  try {
    const [found, newest] = await Promise.all([
      c.xrange(key, lastId, lastId),
      c.xrevrange(key, '+', '-', 'COUNT', 1),
    ]);
    const here = newest[0]?.[0];
    if (found.length === 0) return { reset: true, id: here, reason: 'older than the event stream keeps' };
    // Before every instance knew of the mark, one may have skipped building an event of the endpoint.
    const since = await opts.markSince(endpoint);
    if (since === undefined || since > idMs(lastId) - opts.settleMs)
      return { reset: true, id: here, reason: 'events were not kept while nobody listened' };
    const events: MockEvent[] = [];
    let from = `(${lastId}`;
    for (;;) {
      const page = (await c.xrange(key, from, '+', 'COUNT', PAGE)) as StreamEntries;
      for (const [id, fields] of page) {
        const en = decodeEntry(fields);
        if (en?.kind === 'gap') return { reset: true, id: here, reason: 'events were lost to an outage' };
        if (!en || en.endpoint !== endpoint) continue;
        const e = entryEvent(en, id);
        if (!e) continue;
        if (events.length === opts.replayMax)
          return { reset: true, id: here, reason: `more than ${opts.replayMax} events missed` };
        events.push(e);
      }
      if (page.length < PAGE) break;
      from = `(${page[page.length - 1]![0]}`;
    }
    return { reset: false, events };
  } catch {
    return { reset: true, id: undefined, reason: 'Redis unreachable' };
  }
}
