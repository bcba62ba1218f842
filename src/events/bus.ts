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
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

export interface MockEvent {
  endpoint: string;
  name: EventName;
  data: unknown;
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
  close(): Promise<void>;
}

export class MemoryEventBus implements EventBus {
  private readonly listeners = new Map<string, Set<EventListener>>();
  private readonly changeListeners = new Set<ChangeListener>();

  publish(e: MockEvent): void {
    const set = this.listeners.get(e.endpoint);
    if (!set) return;
    for (const l of [...set]) {
      try {
        l(e);
      } catch {
        /* one broken listener must not stop the others */
      }
    }
  }

  isListening(endpoint: string): boolean {
    return this.listeners.has(endpoint);
  }

  subscribe(endpoint: string, listener: EventListener): () => void {
    let set = this.listeners.get(endpoint);
    if (!set) this.listeners.set(endpoint, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(endpoint);
    };
  }

  publishChange(c: EndpointChange): void {
    for (const l of [...this.changeListeners]) {
      try {
        l(c);
      } catch {
        /* one broken listener must not stop the others */
      }
    }
    if (c.notice) this.publish({ endpoint: c.endpoint, name: c.notice.name, data: c.notice.data });
  }

  subscribeChanges(listener: ChangeListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.changeListeners.clear();
  }
}
