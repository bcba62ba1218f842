/**
 * Live events (SPEC §4): published by the API and the request pipeline, delivered to the dashboards
 * connected to an endpoint's SSE stream. The in-memory bus serves one instance; a shared bus (Redis)
 * implements the same interface.
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

export interface EventBus {
  publish(e: MockEvent): void;
  /**
   * Whether an event of the endpoint would reach anyone, so that a publisher can skip building it.
   * A bus shared between instances answers true.
   */
  isListening(endpoint: string): boolean;
  /** Listens to one endpoint's events; returns the unsubscribe function. */
  subscribe(endpoint: string, listener: EventListener): () => void;
  close(): Promise<void>;
}

export class MemoryEventBus implements EventBus {
  private readonly listeners = new Map<string, Set<EventListener>>();

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

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
