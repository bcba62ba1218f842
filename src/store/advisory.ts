/**
 * PostgreSQL advisory locks, the way instances on one database exclude each other (SPEC §8): a lock is
 * a pair (space, hashtext(name)). Each space is one kind of work; 'MB' in its high bytes keeps it apart
 * from another application's two-key locks in the same database. Two names sharing a hash only share
 * a queue, never a wrong answer. SQLite serves one process and takes none of these.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export const LOCK_SPACE = {
  /** An endpoint's state: a request's read, render and changes, the API's capped writes. */
  state: 0x4d42_0001,
  /** An endpoint's CRUD collections: a write checked against the caps. */
  crud: 0x4d42_0002,
  /** The leader-only background jobs (store/leader.ts). */
  jobs: 0x4d42_0003,
} as const;

/** How the store takes its transaction-scoped locks (PostgreSQL shared by several instances). */
export interface AdvisoryLocks {
  /**
   * The longest wait for a lock of the transaction (its advisory lock, then any row): past it the
   * statement fails with 55P03 `lock_not_available`, answered 503 store_unavailable (unavailable.ts).
   * A holder is a transaction of a few statements, so a long wait means a holder out of reach.
   */
  timeoutMs: number;
}

export const ADVISORY_LOCKS: AdvisoryLocks = { timeoutMs: 10_000 };

/**
 * Takes the transaction-scoped lock (space, name), waiting for its holder at most `timeoutMs` (which
 * bounds the transaction's later lock waits too): PostgreSQL frees it at the transaction's end,
 * commit, rollback or lost connection alike. One round trip: the subquery sets `lock_timeout` before
 * the lock is asked for (a volatile subquery is not merged into the outer one). `tx` must be a
 * transaction.
 */
export async function lockForTransaction(
  tx: Kysely<Database>,
  space: number,
  name: string,
  timeoutMs: number,
): Promise<void> {
  await sql`select pg_advisory_xact_lock(${space}::int, hashtext(${name}))
    from (select set_config('lock_timeout', ${String(timeoutMs)}, true)) as bounded`.execute(tx);
}
