/**
 * What every command of this folder needs, and the one way a command ends: `changed` makes the
 * change's version shared (with REDIS_URL) and announces the change on the event bus once it is
 * written. The endpoint cache drops the endpoint's entry when it hears it, and a notice reaches the
 * endpoint's dashboards. A command that refuses (a bad name, a rule over the plan) announces nothing
 * and writes nothing.
 *
 * A command writes through `store.changeEndpoint`, which moves the endpoint's configuration version
 * in the write's own transaction and answers it; `changed` sets it in Redis before the command
 * answers (cluster/'s VersionFence), so a request that follows the answer, on any instance, is
 * served from the changed configuration.
 */
import type { VersionFence } from '../cluster/index.js';
import type { Config } from '../config.js';
import type { ChangeKind, EndpointChange, EventBus, EventName } from '../events/index.js';
import type { Store } from '../store/index.js';

/** The services the commands draw on; each command takes the few it uses (`Pick<AdminDeps, …>`). */
export interface AdminDeps {
  config: Config;
  store: Store;
  /** Where `changed` announces. */
  events: Pick<EventBus, 'publishChange'>;
  /**
   * Where `changed` makes a change's versions shared before the command answers: the fence of
   * REDIS_URL; absent for a single instance, whose bus is enough.
   */
  fence?: Pick<VersionFence, 'announce'> | undefined;
  /** The clock, injectable for tests. */
  now: () => number;
}

/** The versions a change wrote (what `store.changeEndpoint` answers); undefined ones are not shared. */
export interface ChangeVersions {
  version: number | undefined;
  domainsVersion?: number;
}

/**
 * Announces one change of `endpoint`: `what` part of it, and the dashboards' event when there is one.
 * With a fence, its versions are shared first (awaited: the command answers after). The bus hears the
 * change even when sharing failed, so this instance's cache never keeps the old entry.
 */
export async function changed(
  deps: Pick<AdminDeps, 'events' | 'fence'>,
  endpoint: string,
  what: ChangeKind,
  versions: ChangeVersions | undefined,
  notice?: { name: EventName; data: unknown },
): Promise<void> {
  const c: EndpointChange = notice ? { endpoint, what, notice } : { endpoint, what };
  try {
    if (deps.fence && versions)
      await deps.fence.announce(endpoint, versions.version, versions.domainsVersion);
  } finally {
    deps.events.publishChange(c);
  }
}
