/**
 * The entries of the shared event stream (a Redis Stream, redis-event-bus.ts), as field/value pairs:
 * `o` the instance that wrote it, `u` its number there (to skip what it already delivered itself),
 * `k` the kind, `p` the endpoint, `n` an event name, `w` a change's kind, `d` the event's data (JSON,
 * parsed only by an instance with a dashboard of that endpoint). Kinds: `e` an event, `c` an endpoint
 * change (with its notice, if any), `l` a dashboard started listening to `p` somewhere, `g` a gap: its
 * writer delivered events on its own while Redis was unreachable, so the stream misses them.
 */
import {
  CHANGE_KINDS,
  EVENT_NAMES,
  type ChangeKind,
  type EndpointChange,
  type EventName,
  type MockEvent,
} from '../events/index.js';

export type Entry =
  | { kind: 'event'; origin: string; uid: number; endpoint: string; name: EventName; data: string }
  | {
      kind: 'change';
      origin: string;
      uid: number;
      endpoint: string;
      what: ChangeKind;
      notice?: { name: EventName; data: string };
    }
  | { kind: 'listen'; origin: string; endpoint: string }
  | { kind: 'gap'; origin: string };

const NAMES: ReadonlySet<string> = new Set(EVENT_NAMES);
const KINDS: ReadonlySet<string> = new Set(CHANGE_KINDS);

export function eventFields(origin: string, uid: number, e: MockEvent): string[] {
  return ['o', origin, 'u', String(uid), 'k', 'e', 'p', e.endpoint, 'n', e.name, 'd', json(e.data)];
}

export function changeFields(origin: string, uid: number, c: EndpointChange): string[] {
  const f = ['o', origin, 'u', String(uid), 'k', 'c', 'p', c.endpoint, 'w', c.what];
  if (c.notice) f.push('n', c.notice.name, 'd', json(c.notice.data));
  return f;
}

export function listenFields(origin: string, endpoint: string): string[] {
  return ['o', origin, 'k', 'l', 'p', endpoint];
}

export function gapFields(origin: string): string[] {
  return ['o', origin, 'k', 'g'];
}

function json(data: unknown): string {
  return JSON.stringify(data ?? null);
}

/** An entry's fields as Redis returns them (`[f1, v1, f2, v2, …]`); undefined for what no instance writes. */
export function decodeEntry(fields: string[]): Entry | undefined {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
  const origin = f.o ?? '';
  const endpoint = f.p ?? '';
  const uid = Number(f.u);
  switch (f.k) {
    case 'e':
      if (!endpoint || !NAMES.has(f.n ?? '') || f.d === undefined) return undefined;
      return { kind: 'event', origin, uid, endpoint, name: f.n as EventName, data: f.d };
    case 'c': {
      if (!endpoint || !KINDS.has(f.w ?? '')) return undefined;
      const c: Entry = { kind: 'change', origin, uid, endpoint, what: f.w as ChangeKind };
      if (NAMES.has(f.n ?? '') && f.d !== undefined) c.notice = { name: f.n as EventName, data: f.d };
      return c;
    }
    case 'l':
      return endpoint ? { kind: 'listen', origin, endpoint } : undefined;
    case 'g':
      return { kind: 'gap', origin };
    default:
      return undefined;
  }
}

/** The event an entry carries, with its data parsed; undefined for an entry without one. */
export function entryEvent(en: Entry, id: string): MockEvent | undefined {
  const carried = en.kind === 'event' ? en : en.kind === 'change' ? en.notice : undefined;
  if (!carried || en.kind === 'listen' || en.kind === 'gap') return undefined;
  let data: unknown;
  try {
    data = JSON.parse(carried.data);
  } catch {
    return undefined;
  }
  return { endpoint: en.endpoint, name: carried.name, data, id };
}

/** The milliseconds part of a stream id (`<ms>-<n>`). */
export function idMs(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}
