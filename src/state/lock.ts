/**
 * Serialises the state work of one endpoint's requests on this instance: a request that renders state
 * helpers reads the state, renders and stores its changes while it holds the endpoint's lock, so that
 * 1,000 requests incrementing one counter at once see 1 … 1,000, each a different value. The stored
 * values do not depend on the lock (every change is one atomic statement, store/state-table.ts); the
 * lock makes what each response shows exact. It excludes nothing in another process: with several
 * instances (PostgreSQL), the store's lock, taken inside this one, does (Store.withStateLock); this one
 * still keeps an instance's waiting requests off the database's connections.
 */
export interface StateLock {
  /** Runs `fn` once every earlier holder of `key` is done; no two run at once. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

/** The in-process lock: one promise chain per key, dropped when its last holder finishes. */
export class MemoryStateLock implements StateLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const mine = before.then(fn);
    const tail = mine.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with a holder or waiters (for tests: the map does not grow). */
  get size(): number {
    return this.tails.size;
  }
}
