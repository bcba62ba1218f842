/**
 * Live events (SPEC §4): published by the API and the request pipeline, delivered to the dashboards
 * connected to an endpoint's SSE stream. Endpoint changes (src/admin/) travel on the same bus: each is
 * heard by every change listener (the endpoint cache) and, when it has a notice, delivered to the
 * endpoint's dashboards as an ordinary event. The in-memory bus serves one instance; a shared bus
 * (Redis) implements the same interface.
 */

export const EVENT_NAMES = [
  'request.created',
  'requests.deleted',
  'rule.created',
  'rule.updated',
  'rule.deleted',
  'rules.deleted',
  'rules.reordered',
  'settings.updated',
  'tunnel.connected',
  'tunnel.disconnected',
  'reset',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

export interface MockEvent {
  endpoint: string;
  name: EventName;
  data: unknown;
  /**
   * Where the event stands in the bus's sequence (`<a>-<b>`, two integers), set by the bus on the
   * events it delivers: an event stream's `id:`, from which a dashboard resumes (`replay`). An event a
   * shared bus could only deliver on this instance (Redis unreachable) has none.
   */
  id?: string;
}

export type EventListener = (e: MockEvent) => void;

/** What part of an endpoint a change touched. */
export const CHANGE_KINDS = [
  'created',
  'deleted',
  'settings',
  'rules',
  'state',
  'spec',
  'blobs',
  'certificates',
] as const;

export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** One change to an endpoint, as a command (src/admin/) announces it once it is written. */
export interface EndpointChange {
  endpoint: string;
  what: ChangeKind;
  /** The event the endpoint's dashboards receive for it (SPEC §4), when they receive one. */
  notice?: { name: EventName; data: unknown };
}

export type ChangeListener = (c: EndpointChange) => void;

/**
 * What a dashboard that resumes after `lastId` gets: the events of its endpoint it missed, oldest
 * first, or a reset when the bus can no longer tell them all (trimmed, published while nobody
 * listened, lost to an outage, too many): the dashboard then reloads what it shows. `id` is where the
 * dashboard stands once it has them (the last event's id, or the bus's position for a reset).
 */
export type Replay =
  { reset: false; events: MockEvent[] } | { reset: true; id: string | undefined; reason: string };

/** The shape of an event id: two integers joined by `-` (a Redis stream id, or the memory bus's). */
export const EVENT_ID = /^(\d{1,20})-(\d{1,20})$/;

/** Whether event id `a` comes after `b` in the bus's sequence (both of the EVENT_ID shape). */
export function idAfter(a: string, b: string): boolean {
  const [a1 = 0n, a2 = 0n] = a.split('-').map((x) => BigInt(x));
  const [b1 = 0n, b2 = 0n] = b.split('-').map((x) => BigInt(x));
  return a1 !== b1 ? a1 > b1 : a2 > b2;
}

export interface EventBus {
  publish(e: MockEvent): void;
  /**
   * Whether an event of the endpoint would reach anyone, so that a publisher can skip building it.
   * A bus shared between instances answers true.
   */
  isListening(endpoint: string): boolean;
  /** Listens to one endpoint's events; returns the unsubscribe function. */
  subscribe(endpoint: string, listener: EventListener): () => void;
  /**
   * Announces a change to an endpoint: every change listener hears it, then its notice (if any) is
   * published to the endpoint's subscribers like any event. On one instance both happen before this
   * returns, so the next request reads the endpoint afresh.
   */
  publishChange(c: EndpointChange): void;
  /** Listens to the changes of every endpoint; returns the unsubscribe function. */
  subscribeChanges(listener: ChangeListener): () => void;
  /**
   * The endpoint's events after `lastId` (an id this bus gave, EVENT_ID shape), for a dashboard that
   * reconnects with `Last-Event-ID`; never rejects (what it cannot answer is a reset). The caller
   * subscribes first, so that nothing falls between the replay and the live events.
   */
  replay(endpoint: string, lastId: string): Promise<Replay>;
  close(): Promise<void>;
}
