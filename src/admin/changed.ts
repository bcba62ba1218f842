/**
 * What every command of this folder needs, and the one way a command ends: `changed` announces the
 * change on the event bus once it is written. The endpoint cache drops the endpoint's entry when it
 * hears it, and a notice reaches the endpoint's dashboards. A command that refuses (a bad name, a rule
 * over the plan) announces nothing and writes nothing.
 */
import type { Config } from '../config.js';
import type { ChangeKind, EndpointChange, EventBus, EventName } from '../events/index.js';
import type { Store } from '../store/index.js';

/** The services the commands draw on; each command takes the few it uses (`Pick<AdminDeps, …>`). */
export interface AdminDeps {
  config: Config;
  store: Store;
  /** Where `changed` announces. */
  events: Pick<EventBus, 'publishChange'>;
  /** The clock, injectable for tests. */
  now: () => number;
}

/** Announces one change of `endpoint`: `what` part of it, and the dashboards' event when there is one. */
export function changed(
  deps: Pick<AdminDeps, 'events'>,
  endpoint: string,
  what: ChangeKind,
  notice?: { name: EventName; data: unknown },
): void {
  const c: EndpointChange = notice ? { endpoint, what, notice } : { endpoint, what };
  deps.events.publishChange(c);
}
