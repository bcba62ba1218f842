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
 * One instance hears its own changes before the command returns; a shared bus (REDIS_URL) carries
 * them to every instance.
 */
import type { EventBus } from '../events/index.js';
import type { EndpointRecord, Store } from '../store/index.js';

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

  constructor(
    private readonly store: Pick<Store, 'getEndpoint'>,
    /** Resolves each record the store returns, once, when its entry is built. */
    readonly resolve: EndpointResolver<E>,
    private readonly max = ENDPOINT_CACHE_MAX,
  ) {}

  /** The endpoint `name`, or undefined when it does not exist. */
  get(name: string): Promise<E | undefined> {
    const hit = this.entries.get(name);
    if (hit) return hit;
    // A resolver that throws (a record it cannot read) fails this read like a store error: the
    // entry is dropped, and the next request tries again.
    const loading = this.store.getEndpoint(name).then(
      (record) => {
        let ep: E | undefined;
        try {
          ep = record ? this.resolve(record) : undefined;
        } catch (err) {
          if (this.entries.get(name) === loading) this.entries.delete(name);
          throw err;
        }
        if (this.entries.get(name) === loading) {
          if (ep) this.records.set(name, ep);
          else this.entries.delete(name);
        }
        return ep;
      },
      (err: unknown) => {
        if (this.entries.get(name) === loading) this.entries.delete(name);
        throw err;
      },
    );
    if (this.entries.size >= this.max) this.forget(this.entries.keys().next().value!);
    this.entries.set(name, loading);
    return loading;
  }

  /**
   * The endpoint `name` when the cache holds it already, read: what `get` would resolve to, without
   * the turns of the event loop its promise costs (the request path asks this first). Undefined when
   * it is not held (not read yet, being read, or unknown): then ask `get`.
   */
  loaded(name: string): E | undefined {
    return this.records.get(name);
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
  }

  clear(): void {
    this.entries.clear();
    this.records.clear();
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
