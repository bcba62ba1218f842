/**
 * Leadership of the background jobs among instances on one PostgreSQL database (SPEC §8): the instance
 * whose connection holds the session-level advisory lock (LOCK_SPACE.jobs, 'leader') runs them, the
 * others skip their ticks. The lock is held on a connection of its own, outside the pool, for as long
 * as that connection lives: leadership stays with one instance from tick to tick, and PostgreSQL frees
 * it when the leader stops, is killed or loses its connection, after which the next tick of another
 * instance takes it. Each check costs one round trip on that connection.
 */
import pg from 'pg';
import { LOCK_SPACE } from './advisory.js';

const LEADER = 'leader';

export class PgLeader {
  private client: pg.Client | undefined;
  private held = false;
  private closed = false;
  /** The check under way: concurrent ticks share it (one connection, one query at a time). */
  private pending: Promise<boolean> | undefined;

  constructor(
    private readonly url: string,
    /** Told when this instance becomes the leader (true) or stops being it (false). */
    private readonly onChange: (leads: boolean) => void = () => undefined,
    private readonly connectTimeoutMs = 5000,
  ) {}

  /** True while this instance holds the lock; tries to take it when it does not. Never throws. */
  leads(): Promise<boolean> {
    this.pending ??= this.check().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async check(): Promise<boolean> {
    if (this.closed) return false;
    try {
      const client = this.client ?? (await this.connect());
      if (this.held) {
        // The lock lives as long as the connection: one that still answers still holds it.
        await client.query('select 1');
        return true;
      }
      const r = await client.query<{ ok: boolean }>(
        'select pg_try_advisory_lock($1::int, hashtext($2)) as ok',
        [LOCK_SPACE.jobs, LEADER],
      );
      this.set(r.rows[0]?.ok === true);
    } catch {
      this.drop();
    }
    return this.held;
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: this.connectTimeoutMs,
      application_name: 'mockingbird leader',
    });
    client.on('error', () => {
      if (this.client === client) this.drop();
    });
    await client.connect().catch((err: unknown) => {
      void client.end().catch(() => undefined);
      throw err;
    });
    if (this.closed) {
      await client.end().catch(() => undefined);
      throw new Error('closed');
    }
    this.client = client;
    return client;
  }

  /** Forgets the connection (and with it the lock, which PostgreSQL frees when it ends). */
  private drop(): void {
    const c = this.client;
    this.client = undefined;
    this.set(false);
    if (c) void c.end().catch(() => undefined);
  }

  private set(held: boolean): void {
    if (held === this.held) return;
    this.held = held;
    this.onChange(held);
  }

  /** Lets the lock go (ending the connection frees it) so that another instance may lead at once. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pending?.catch(() => undefined);
    const c = this.client;
    this.client = undefined;
    this.held = false;
    await c?.end().catch(() => undefined);
  }
}
