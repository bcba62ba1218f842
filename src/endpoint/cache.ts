/**
 * The endpoints the request path reads, kept in memory: a request to an endpoint would otherwise read
 * its row (and its rules) from the store every time. An entry stays until the endpoint changes: the
 * cache listens to the event bus (`listen`), and every change a command announces (src/admin/: its
 * settings, rules, spec, certificates, … or its deletion) drops the endpoint's entry, so the next
 * request reads it afresh. Unknown names are not kept (an endpoint created a moment later answers at
 * once). An entry is a resolved endpoint: the record and what it means for a request (its effective
 * settings, its plan's limits), worked out once when the entry is built by the resolver the server
 * gives the cache; a request reads them and computes nothing. Capabilities that compile per endpoint
 * (rules, templates) key their compiled state on the record object of the entry, so it lives exactly
 * as long as the entry.
 *
 * One instance hears its own changes before the command returns. Several instances (REDIS_URL) also
 * fence each entry with the version of the endpoint's configuration it was built from: with a
 * `fence`, every `get` compares it with the shared version (cluster/'s VersionFence: one Redis
 * read), and an entry behind it is read again, once per version however many requests wait for it.
 * A request that follows a change's API answer, on any instance, is served from the changed
 * configuration.
 */
import type { EventBus } from '../events/index.js';
import type { Metrics } from '../metrics/index.js';
import type { EndpointRecord, Store } from '../store/index.js';

/**
 * The shared versions a cache checks its entries against (cluster/'s VersionFence, with REDIS_URL).
 */
export interface VersionCheck {
  /**
   * The shared version of the endpoint's configuration; null when it does not exist; undefined when
   * it cannot be known now (then what the cache holds is served). Never rejects.
   */
  endpoint(name: string): Promise<number | null | undefined>;
}

export interface EndpointCacheOptions {
  /** Checks each entry against the shared versions on every `get` (several instances). */
  fence?: VersionCheck | undefined;
  /** Counts the entries read again because their shared version moved. */
  metrics?: Pick<Metrics, 'configReloads'> | undefined;
}

/** Most endpoints kept; the least recently loaded goes first. */
export const ENDPOINT_CACHE_MAX = 10_000;

/**
 * An endpoint as the request path reads it: its stored record, its effective settings `S` and its
 * plan's limits `P`. endpoint/ does not know their shapes (the mock model defines them): the resolver
 * the server passes to the cache does, and the pipeline of user endpoints names the concrete type.
 */
export interface ResolvedEndpoint<S = unknown, P = unknown> {
  readonly record: EndpointRecord;
  readonly settings: S;
  readonly plan: P;
}

/** Works out what a record means; called once per cache entry (and once per built-in endpoint). */
export type EndpointResolver<E extends ResolvedEndpoint> = (record: EndpointRecord) => E;

export class EndpointCache<E extends ResolvedEndpoint = ResolvedEndpoint> {
  private readonly entries = new Map<string, Promise<E | undefined>>();
  /** The entries whose read has ended, for `loaded`. */
  private readonly records = new Map<string, E>();
  /** With a fence: the shared version each entry (read, or being read) is current for. */
  private readonly versions = new Map<string, number>();
  private readonly fence: VersionCheck | undefined;
  private readonly metrics: Pick<Metrics, 'configReloads'> | undefined;

  constructor(
    private readonly store: Pick<Store, 'getEndpoint'>,
    /** Resolves each record the store returns, once, when its entry is built. */
    readonly resolve: EndpointResolver<E>,
    private readonly max = ENDPOINT_CACHE_MAX,
    opts: EndpointCacheOptions = {},
  ) {
    this.fence = opts.fence;
    this.metrics = opts.metrics;
  }

  /** The endpoint `name`, or undefined when it does not exist. */
  get(name: string): Promise<E | undefined> {
    if (this.fence) return this.fence.endpoint(name).then((shared) => this.current(name, shared));
    return this.entries.get(name) ?? this.load(name, undefined);
  }

  /** The entry of `name` current for the `shared` version: held, being read, or read now. */
  private current(name: string, shared: number | null | undefined): Promise<E | undefined> | undefined {
    if (shared === null) {
      this.forget(name);
      return undefined;
    }
    const held = this.entries.get(name);
    if (shared === undefined) return held ?? this.load(name, undefined);
    const version = this.versions.get(name);
    if (held && version !== undefined && version >= shared) return held;
    if (held) {
      this.metrics?.configReloads.inc();
      this.forget(name);
    }
    return this.load(name, shared);
  }

  /**
   * Reads `name` from the store into a new entry. With a fence the entry is current for `shared`
   * (read before the store is) and for the version the record was read with, whichever is greater.
   */
  private load(name: string, shared: number | undefined): Promise<E | undefined> {
    // A resolver that throws (a record it cannot read) fails this read like a store error: the
    // entry is dropped, and the next request tries again.
    const loading = this.store.getEndpoint(name).then(
      (record) => {
        let ep: E | undefined;
        try {
          ep = record ? this.resolve(record) : undefined;
        } catch (err) {
          if (this.entries.get(name) === loading) this.forget(name);
          throw err;
        }
        if (this.entries.get(name) === loading) {
          if (ep) {
            this.records.set(name, ep);
            if (this.fence) this.versions.set(name, Math.max(shared ?? 0, record?.configVersion ?? 0));
          } else this.forget(name);
        }
        return ep;
      },
      (err: unknown) => {
        if (this.entries.get(name) === loading) this.forget(name);
        throw err;
      },
    );
    if (this.entries.size >= this.max) this.forget(this.entries.keys().next().value!);
    this.entries.set(name, loading);
    if (shared !== undefined) this.versions.set(name, shared);
    return loading;
  }

  /**
   * The endpoint `name` when the cache holds it already, read: what `get` would resolve to, without
   * the turns of the event loop its promise costs (the request path asks this first). Undefined when
   * it is not held (not read yet, being read, or unknown), and always with a fence, whose check an
   * entry passes on each request: then ask `get`.
   */
  loaded(name: string): E | undefined {
    return this.fence ? undefined : this.records.get(name);
  }

  /**
   * Drops each endpoint's entry when a change of it is announced on `bus`; returns the function that
   * stops listening. The one place the cache is told that an endpoint changed.
   */
  listen(bus: Pick<EventBus, 'subscribeChanges'>): () => void {
    return bus.subscribeChanges((c) => this.invalidate(c.endpoint));
  }

  /** Forgets `name`: the next request reads it from the store. */
  invalidate(name: string): void {
    this.forget(name);
  }

  private forget(name: string): void {
    this.entries.delete(name);
    this.records.delete(name);
    this.versions.delete(name);
  }

  clear(): void {
    this.entries.clear();
    this.records.clear();
    this.versions.clear();
  }
}

/**
 * State compiled from a cached endpoint record (its rules, its OpenAPI spec): built on first use and
 * kept exactly as long as the record, which the cache replaces when the endpoint changes. A build that
 * fails (a store read) is forgotten, so the next request builds it again.
 */
export class RecordMemo<T> {
  private readonly byRecord = new WeakMap<EndpointRecord, Promise<T>>();
  private readonly built = new WeakMap<EndpointRecord, T>();

  get(ep: EndpointRecord, build: () => Promise<T>): Promise<T> {
    let c = this.byRecord.get(ep);
    if (!c) {
      c = build();
      this.byRecord.set(ep, c);
      c.then(
        (value) => this.built.set(ep, value),
        () => this.byRecord.delete(ep),
      );
    }
    return c;
  }

  /** What `get` built for `ep`, once it has been built: read without waiting a turn. */
  ready(ep: EndpointRecord): T | undefined {
    return this.built.get(ep);
  }
}
