/** A RedisEventBus on a link of its own to a test's Redis, closed together; keys under a fresh prefix unless given. */
import {
  RedisEventBus,
  RedisLink,
  DependencyStatus,
  type RedisEventBusOptions,
} from '../../src/cluster/index.js';

let n = 0;

export class TestRedisBus extends RedisEventBus {
  constructor(
    readonly ownLink: RedisLink,
    readonly status: DependencyStatus,
    opts: RedisEventBusOptions,
  ) {
    super(ownLink, { status, ...opts });
  }

  override async close(): Promise<void> {
    await super.close();
    await this.ownLink.close();
  }
}

/** A fresh key prefix, so that buses of different tests never read each other's stream. */
export function freshPrefix(): string {
  return `test${process.pid}-${++n}:`;
}

export async function redisBus(url: string, opts: Partial<RedisEventBusOptions> = {}): Promise<TestRedisBus> {
  const link = new RedisLink(url);
  await link.ready();
  const bus = new TestRedisBus(link, new DependencyStatus(), {
    streamLength: 10_000,
    replayMax: 1000,
    markRefreshMs: 50,
    blockMs: 500,
    prefix: freshPrefix(),
    ...opts,
  });
  await bus.started;
  return bus;
}
