/**
 * Waiting for SQLite's write lock without freezing the process. better-sqlite3 waits for a lock held
 * by another connection (the history worker's, another process's) synchronously, which on the main
 * thread stops every request for as long as it waits. So the main connection's own busy wait is short
 * (BUSY_SLICE_MS), and a query refused with SQLITE_BUSY is tried again after an asynchronous pause, up
 * to a budget (STORE_BUSY_TIMEOUT); only then does its caller see the error (503 store_unavailable).
 */
import {
  CompiledQuery,
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
} from 'kysely';

/** The longest one synchronous busy wait of the main connection may hold the event loop. */
export const BUSY_SLICE_MS = 10;

const isBusy = (err: unknown): boolean =>
  err instanceof Error && /^SQLITE_BUSY/.test(String((err as { code?: unknown }).code));

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class PatientConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly budgetMs: number,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const started = Date.now();
    let wait = 2;
    for (;;) {
      try {
        return await this.inner.executeQuery<R>(query);
      } catch (err) {
        if (!isBusy(err) || Date.now() - started + wait > this.budgetMs) throw err;
        await pause(wait);
        wait = Math.min(wait * 2, 50);
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** Kysely's SQLite driver with every statement (transaction control included) retried while busy. */
class PatientDriver implements Driver {
  private readonly wrapped = new WeakMap<DatabaseConnection, PatientConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly budgetMs: number,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const c = await this.inner.acquireConnection();
    let w = this.wrapped.get(c);
    if (!w) {
      w = new PatientConnection(c, this.budgetMs);
      this.wrapped.set(c, w);
    }
    return w;
  }

  /**
   * `BEGIN IMMEDIATE`, not SQLite's default deferred begin: a deferred transaction that reads first
   * holds a snapshot, and once another connection (the history worker) commits, its first write can
   * never succeed (SQLITE_BUSY_SNAPSHOT, retried in vain until the budget runs out, then 503). Taking
   * the write lock at the start makes the wait happen at BEGIN, where retrying helps.
   */
  async beginTransaction(c: DatabaseConnection): Promise<void> {
    await c.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  commitTransaction(c: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(c);
  }

  rollbackTransaction(c: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(c);
  }

  async savepoint(
    c: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.savepoint?.(c, name, compile);
  }

  async rollbackToSavepoint(
    c: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint?.(c, name, compile);
  }

  async releaseSavepoint(
    c: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.releaseSavepoint?.(c, name, compile);
  }

  releaseConnection(c: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(c instanceof PatientConnection ? c.inner : c);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** Kysely's SqliteDialect whose queries wait up to `budgetMs` for a busy database, asynchronously. */
export class PatientSqliteDialect extends SqliteDialect {
  constructor(
    config: ConstructorParameters<typeof SqliteDialect>[0],
    private readonly budgetMs: number,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new PatientDriver(super.createDriver(), this.budgetMs);
  }
}
