/**
 * Freshness across instances (SPEC §8, issue 33 items 1 and 6): the shared configuration versions.
 * Every change of an endpoint moves its version in PostgreSQL (store/config-version.ts); before the
 * API answers 2xx, `announce` sets it in Redis ("set if greater"). An instance keeps each cached
 * endpoint with the version it was built from and asks `endpoint(name)` on each request: one Redis
 * GET. The custom domains' map does the same with `domains()`.
 *
 * Invariant: once a change's 2xx has been sent, a version read on any instance is at least the
 * change's version. Redis holds it (the announce succeeded), or the read goes to PostgreSQL:
 *
 * - a key Redis does not hold (restarted empty) is read from PostgreSQL (one primary-key read) and
 *   put back, set-if-greater;
 * - Redis unreachable or slow (the link's command timeout): the read goes to PostgreSQL, and for
 *   SKIP_MS after a failure every read does, without waiting on Redis again;
 * - an announce that fails (after RETRIES) suspends the fence before the 2xx: it writes a marker in
 *   PostgreSQL (`meta.fence_suspended`) and waits WAIT_MS. Every instance reads the marker every
 *   POLL_MS and trusts Redis only for TRUST_MS after a read that found none, so after the wait no
 *   instance trusts Redis any more, also one that can reach it while this one cannot (a partial
 *   outage); they read PostgreSQL. Once the marker's time is over, an instance that reaches Redis
 *   copies every version from PostgreSQL into it, set-if-greater, then removes the marker (only if
 *   nobody renewed it meanwhile); trust comes back with the next poll.
 *
 * When neither Redis nor PostgreSQL answers, a read is unknown (undefined): the caller serves what it
 * has cached, as nothing can have changed without PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../store/index.js';
import type { RedisLink } from './redis.js';
import type { DependencyStatus } from './status.js';

/** Redis keys: one per endpoint, and the custom domains'. */
export const ENDPOINT_VERSION_KEY = 'mb:config-version:';
export const DOMAINS_VERSION_KEY = 'mb:domains-version';
/** The `meta` key of the suspension marker. */
export const SUSPENSION_KEY = 'fence_suspended';

/** Sets each key to its value unless it holds a greater one. */
const SET_IF_GREATER = `
for i, key in ipairs(KEYS) do
  local cur = tonumber(redis.call('GET', key))
  if cur == nil or cur < tonumber(ARGV[i]) then redis.call('SET', key, ARGV[i]) end
end
return #KEYS`;

/** Keys per script call when all versions are copied back. */
const RESYNC_CHUNK = 500;

/** What the fence reads and writes in PostgreSQL (the source of truth). */
export type FenceStore = Pick<
  Store,
  'getConfigVersion' | 'listConfigVersions' | 'getDomainsVersion' | 'getMeta' | 'setMeta' | 'swapMeta'
>;

export interface VersionFenceOptions {
  /** How often the suspension marker is read (ms). */
  pollMs?: number;
  /** How long a read that found no marker lets Redis be trusted (ms). */
  trustMs?: number;
  /** How long a marker stands before the versions are copied back and it is removed (ms). */
  suspendMs?: number;
  /** Further attempts of a failed announce, RETRY_DELAY_MS apart. */
  retries?: number;
  retryDelayMs?: number;
  /** After a Redis read failed, reads go to PostgreSQL at once for this long (ms). */
  skipMs?: number;
  /** A monotonic clock (ms). */
  clock?: () => number;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

const DEFAULTS = {
  pollMs: 500,
  trustMs: 1500,
  suspendMs: 10_000,
  retries: 2,
  retryDelayMs: 100,
  skipMs: 1000,
  clock: () => performance.now(),
};

/**
 * A shared version: a number; null when the endpoint does not exist; undefined when neither Redis
 * nor PostgreSQL could say.
 */
export type SharedVersion = number | null | undefined;

export class VersionFence {
  private readonly opts: typeof DEFAULTS & Pick<VersionFenceOptions, 'log'>;
  /** Redis's versions are trusted until then (clock ms): set by a poll that found no marker. */
  private trustedUntil = 0;
  /** Reads skip Redis until then (clock ms), after one failed. */
  private skipUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** The marker this instance wrote last, and since when its chain of markers has stood. */
  private mine: { value: string; since: number } | undefined;
  private reported: string | undefined;

  constructor(
    private readonly link: Pick<RedisLink, 'client'>,
    private readonly store: FenceStore,
    private readonly status: Pick<DependencyStatus, 'report'>,
    opts: VersionFenceOptions = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
  }

  /** How long a suspending announce waits: past every other instance's trust, with room for drift. */
  get waitMs(): number {
    return Math.ceil(this.opts.trustMs * 1.1) + 50;
  }

  /** Starts reading the marker (at once, then every POLL_MS). */
  start(): void {
    if (this.timer) return;
    this.poll();
    this.timer = setInterval(() => this.poll(), this.opts.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.polling;
  }

  /** Whether Redis's versions are trusted now. */
  get trusted(): boolean {
    return this.opts.clock() < this.trustedUntil;
  }

  /** The shared version of `endpoint`'s configuration (null: no such endpoint). Never rejects. */
  endpoint(name: string): Promise<SharedVersion> {
    return this.read(
      ENDPOINT_VERSION_KEY + name,
      async () => (await this.store.getConfigVersion(name)) ?? null,
    );
  }

  /** The shared version of the custom domains. Never rejects. */
  domains(): Promise<number | undefined> {
    return this.read(DOMAINS_VERSION_KEY, () => this.store.getDomainsVersion()) as Promise<
      number | undefined
    >;
  }

  private async read(key: string, fromStore: () => Promise<number | null>): Promise<SharedVersion> {
    let missing = false;
    const now = this.opts.clock();
    if (now >= this.trustedUntil)
      this.report(
        'degraded',
        'Redis not trusted now (suspended, or not checked yet): versions read from PostgreSQL',
      );
    else if (now >= this.skipUntil) {
      try {
        const v = await this.link.client.get(key);
        if (v !== null) {
          this.report('up');
          return Number(v);
        }
        missing = true;
      } catch (err) {
        this.skipUntil = this.opts.clock() + this.opts.skipMs;
        this.report(
          'degraded',
          `Redis did not answer (${(err as Error).message}): versions read from PostgreSQL`,
        );
      }
    }
    let v: number | null;
    try {
      v = await fromStore();
    } catch {
      return undefined;
    }
    // Redis restarted empty (or never held it): put the truth back for the next reads.
    if (missing && v !== null) this.setIfGreater([[key, v]]).catch(() => undefined);
    return v;
  }

  /**
   * Makes a committed change's versions shared before its command answers: set-if-greater in Redis,
   * retried; when that still fails, the fence is suspended (see the module's comment) and this
   * resolves once no instance trusts Redis any more. Rejects only when PostgreSQL cannot take the
   * marker either.
   */
  async announce(endpoint: string, version: number | undefined, domainsVersion?: number): Promise<void> {
    const pairs: [string, number][] = [];
    if (version !== undefined) pairs.push([ENDPOINT_VERSION_KEY + endpoint, version]);
    if (domainsVersion !== undefined) pairs.push([DOMAINS_VERSION_KEY, domainsVersion]);
    if (pairs.length === 0) return;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.setIfGreater(pairs);
        return;
      } catch (err) {
        if (attempt >= this.opts.retries) return this.suspend(endpoint, err as Error);
        await sleep(this.opts.retryDelayMs);
      }
    }
  }

  private async setIfGreater(pairs: readonly (readonly [string, number])[]): Promise<void> {
    await this.link.client.eval(
      SET_IF_GREATER,
      pairs.length,
      ...pairs.map(([k]) => k),
      ...pairs.map(([, v]) => String(v)),
    );
  }

  private async suspend(endpoint: string, err: Error): Promise<void> {
    const next = JSON.stringify({ until: Date.now() + this.opts.suspendMs, id: randomUUID() });
    const mine = this.mine;
    // A marker of ours that has stood long enough: no instance trusts Redis now; keep it standing.
    if (
      mine &&
      this.opts.clock() >= mine.since + this.waitMs &&
      (await this.store.swapMeta(SUSPENSION_KEY, mine.value, next))
    ) {
      this.mine = { value: next, since: mine.since };
      return;
    }
    this.opts.log?.warn(
      { endpoint, reason: err.message },
      'a configuration version could not be set in Redis: versions are read from PostgreSQL on every instance for a while',
    );
    this.trustedUntil = 0;
    await this.store.setMeta(SUSPENSION_KEY, next);
    this.mine = { value: next, since: this.opts.clock() };
    await sleep(this.waitMs);
  }

  private poll(): void {
    if (this.polling) return;
    const issued = this.opts.clock();
    this.polling = (async () => {
      try {
        const marker = await this.store.getMeta(SUSPENSION_KEY);
        if (marker === undefined) {
          this.trustedUntil = issued + this.opts.trustMs;
          return;
        }
        this.trustedUntil = 0;
        if (overdue(marker)) await this.resync(marker);
      } catch {
        // PostgreSQL or Redis did not answer: the trust lapses by itself.
      }
    })().finally(() => (this.polling = undefined));
  }

  /** Copies every version from PostgreSQL into Redis, then removes `marker` unless it was renewed. */
  private async resync(marker: string): Promise<void> {
    const pairs: [string, number][] = (await this.store.listConfigVersions()).map((v) => [
      ENDPOINT_VERSION_KEY + v.endpoint,
      v.version,
    ]);
    pairs.push([DOMAINS_VERSION_KEY, await this.store.getDomainsVersion()]);
    for (let i = 0; i < pairs.length; i += RESYNC_CHUNK)
      await this.setIfGreater(pairs.slice(i, i + RESYNC_CHUNK));
    if (await this.store.swapMeta(SUSPENSION_KEY, marker, undefined))
      this.opts.log?.info(
        { versions: pairs.length },
        'configuration versions copied back to Redis: the fence trusts it again',
      );
  }

  private report(state: 'up' | 'degraded', detail?: string): void {
    const key = detail === undefined ? state : `${state}:${detail}`;
    if (this.reported === key) return;
    this.reported = key;
    this.status.report('config_versions', state, detail);
  }
}

/** Whether a marker's time is over (one that cannot be read is). */
function overdue(marker: string): boolean {
  try {
    const { until } = JSON.parse(marker) as { until?: unknown };
    return typeof until !== 'number' || Date.now() > until;
  } catch {
    return true;
  }
}
