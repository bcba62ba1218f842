/**
 * Each endpoint's stored history kept within its caps as entries arrive (SPEC §12): the hourly
 * retention alone let a flood keep hundreds of thousands of entries, gigabytes, for up to an hour.
 *
 * The writer reports every batch it wrote; what each endpoint holds is known from the last time it
 * was measured plus what was written since, so that a batch within the caps costs no query. Past a
 * cap the store trims the endpoint's oldest entries. It trusts the estimate, and deletes without
 * counting, only when it can tell that nothing was removed since the count (HistoryTrim.removals:
 * on SQLite, whose file is this process's alone); otherwise it counts first. Deletes by the API or
 * the retention only make the estimate too high, which costs one early count, never an entry the
 * caps allow. The endpoint is counted again at least once a minute, for the entries other instances
 * write to a shared database, and after a write that failed (a batch written again may have been
 * stored the first time: its entries would be counted twice).
 *
 * A trim goes 1 % below the caps (a low-water mark), so that an endpoint at its cap under steady
 * load is trimmed once every hundredth of its cap, not after every batch: a count reads the
 * endpoint's whole time index (100,000 entries by default).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { NewHistoryEntry, Store } from '../store/index.js';

export interface HistoryCaps {
  maxEntries: number;
  maxBytes: number;
}

interface Usage {
  entries: number;
  bytes: number;
  /** When the store last counted the endpoint. */
  measuredAt: number;
  /** The store's removals then (HistoryTrim.removals). */
  removals: number | undefined;
}

const REMEASURE_MS = 60_000;

/** The caps a trim goes down to: 1 % below each (none below a cap under 100). */
function lowWater(caps: HistoryCaps): HistoryCaps {
  return {
    maxEntries: caps.maxEntries - Math.floor(caps.maxEntries / 100),
    maxBytes: caps.maxBytes - Math.floor(caps.maxBytes / 100),
  };
}

export class EndpointHistoryCap {
  private readonly usage = new Map<string, Usage>();
  private readonly low: HistoryCaps;

  constructor(
    private readonly store: Pick<Store, 'trimHistory'>,
    private readonly caps: HistoryCaps,
    private readonly log: Pick<FastifyBaseLogger, 'error' | 'debug'> | undefined,
    private readonly now: () => number,
  ) {
    this.low = lowWater(caps);
  }

  /** Accounts for a written batch and trims the endpoints it took past a cap; returns how many went. */
  async afterWrite(batch: readonly { entry: NewHistoryEntry; weight: number }[]): Promise<number> {
    const added = new Map<string, { entries: number; bytes: number }>();
    for (const { entry, weight } of batch) {
      const a = added.get(entry.entry.endpoint) ?? { entries: 0, bytes: 0 };
      a.entries += 1;
      a.bytes += weight;
      added.set(entry.entry.endpoint, a);
    }
    const at = this.now();
    if (this.usage.size > 10_000) this.usage.clear();
    let trimmed = 0;
    for (const [endpoint, a] of added) {
      const u = this.usage.get(endpoint);
      const fresh = u !== undefined && at - u.measuredAt < REMEASURE_MS;
      if (fresh) {
        u.entries += a.entries;
        u.bytes += a.bytes;
        if (u.entries <= this.caps.maxEntries && u.bytes <= this.caps.maxBytes) continue;
      }
      // Known to be over a cap: down to the low-water mark. Not known (a first or a periodic
      // measure): down to the caps only, so that a measure alone never takes more than they allow.
      trimmed += await this.trim(endpoint, at, fresh ? this.low : this.caps, fresh ? u : undefined);
    }
    return trimmed;
  }

  /** Forgets every estimate: each endpoint is counted at its next trim. */
  forget(): void {
    this.usage.clear();
  }

  private async trim(endpoint: string, at: number, to: HistoryCaps, known?: Usage): Promise<number> {
    try {
      const estimate =
        known?.removals === undefined
          ? undefined
          : { entries: known.entries, bytes: known.bytes, removals: known.removals };
      const r = await this.store.trimHistory(endpoint, to, estimate);
      this.usage.set(endpoint, {
        entries: r.entries,
        bytes: r.bytes,
        measuredAt: r.estimated && known ? known.measuredAt : at,
        removals: r.removals,
      });
      if (r.deleted > 0)
        this.log?.debug({ endpoint, deleted: r.deleted }, 'history cap: oldest entries removed');
      return r.deleted;
    } catch (err) {
      // Tried again after the next write to the endpoint; the hourly retention is the backstop.
      this.usage.delete(endpoint);
      this.log?.error({ err, endpoint }, 'history cap: trimming failed');
      return 0;
    }
  }
}
