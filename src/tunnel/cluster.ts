/**
 * Tunnels across instances (SPEC §8, with REDIS_URL): a tunnel client connected to one instance serves
 * its endpoint's requests arriving at any instance.
 *
 *   - The instance holding an endpoint's first client writes a lease in Redis naming itself and its
 *     INSTANCE_URL, signed (hop-wire.ts), for LEASE_TTL_MS, renewed every LEASE_RENEW_MS while a client
 *     of the endpoint is connected, deleted when the last one leaves and when the instance closes
 *     (compare-and-delete: only its own).
 *   - An instance with no client of the endpoint reads the lease and hops the request to its owner
 *     (hop-client.ts, hop-server.ts): once, never further.
 *   - The owner gone (unreachable, no client any more, lease expired): the fallback chain goes on
 *     where the request arrived. An unreachable owner's lease is deleted there and then, so the other
 *     instances stop asking it; a live owner takes it back at its next renewal.
 *   - Redis down: no hop, each instance serves its own clients, and `/health` says so (`tunnels`).
 *
 * Without REDIS_URL none of this is built and the hub serves its own clients as it always did.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { Leases, type DependencyStatus, type RedisLink } from '../cluster/index.js';
import type { Answer, CapturedRequest } from '../http/index.js';
import type { Metrics } from '../metrics/index.js';
import { requestHead } from './headers.js';
import { HopClient } from './hop-client.js';
import { hopServer } from './hop-server.js';
import { hopKeys, leaseOwner, leaseValue, type HopKeys } from './hop-wire.js';
import type { RemoteTunnels, TunnelHub } from './hub.js';

/** A lease its owner stopped renewing expires after this many ms. */
export const LEASE_TTL_MS = 15_000;
/** How often an owner renews its leases. */
export const LEASE_RENEW_MS = 5_000;
/** The Redis key of an endpoint's lease. */
export const leaseKey = (endpoint: string): string => `mockingbird:tunnel:${endpoint}`;

export interface TunnelClusterOptions {
  hub: TunnelHub;
  redis: RedisLink;
  status: Pick<DependencyStatus, 'report'>;
  metrics: Pick<Metrics, 'tunnelHops'>;
  /** The instances' shared secret (kept in the shared database). */
  secret: string;
  /** The URL other instances reach this one at (read when a lease is written: after listening). */
  instanceUrl: () => string;
  /** TUNNEL_TIMEOUT (ms). */
  timeoutMs: number;
  log: FastifyBaseLogger;
}

export class TunnelCluster implements RemoteTunnels {
  /** This process's id in leases: a restarted instance is another owner. */
  readonly instance = randomUUID();
  /** Serves hops from other instances (the listener hands it requests for which `isHop` holds). */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  private readonly keys: HopKeys;
  private readonly leases: Leases;
  private readonly client: HopClient;
  private closing = false;

  constructor(private readonly o: TunnelClusterOptions) {
    this.keys = hopKeys(o.secret);
    this.leases = new Leases(o.redis, {
      ttlMs: LEASE_TTL_MS,
      renewMs: LEASE_RENEW_MS,
      onResult: (ok) => this.report(ok),
    });
    this.client = new HopClient({ timeoutMs: o.timeoutMs, hopKey: this.keys.hop });
    this.handle = hopServer({
      hub: o.hub,
      keys: this.keys,
      accepting: () => !this.closing,
      refused: () => o.metrics.tunnelHops.inc({ outcome: 'refused' }),
      log: o.log,
    });
    this.report(true);
    o.hub.reachOthers(this);
  }

  clientsChanged(endpoint: string, clients: number): void {
    if (this.closing) return;
    const key = leaseKey(endpoint);
    if (clients === 0) void this.leases.release(key);
    else if (!this.leases.holds(key)) {
      const owner = { instance: this.instance, url: this.o.instanceUrl() };
      void this.leases.hold(key, leaseValue(this.keys, endpoint, owner));
    }
  }

  forward(endpoint: string, request: CapturedRequest): Promise<Answer | undefined> | undefined {
    if (!this.o.redis.up) {
      this.report(false);
      return undefined;
    }
    return this.viaOwner(endpoint, request);
  }

  private async viaOwner(endpoint: string, request: CapturedRequest): Promise<Answer | undefined> {
    const key = leaseKey(endpoint);
    const value = await this.leases.read(key);
    if (value === undefined) return undefined;
    const owner = leaseOwner(this.keys, endpoint, value);
    if (owner === undefined) {
      this.o.log.warn({ endpoint }, 'tunnel lease not signed by an instance: ignored');
      return undefined;
    }
    if (owner.instance === this.instance) return undefined;
    const r = await this.client.send(owner.url, endpoint, requestHead(request), request.rawBody);
    if (r.kind === 'answer') {
      this.o.metrics.tunnelHops.inc({ outcome: 'forwarded' });
      return r.answer;
    }
    this.o.metrics.tunnelHops.inc({ outcome: r.kind === 'refused' ? 'refused' : 'owner_gone' });
    this.o.log.info({ endpoint, owner: owner.url, why: r.why }, 'tunnel hop not answered: fallback chain');
    if (r.kind === 'unreachable') await this.leases.drop(key, value);
    return undefined;
  }

  private report(ok: boolean): void {
    if (ok) this.o.status.report('tunnels', 'up', 'tunnel clients serve requests arriving at any instance');
    else
      this.o.status.report(
        'tunnels',
        'degraded',
        'Redis unreachable: each instance serves only the tunnel clients connected to it',
      );
  }

  /** Deletes this instance's leases at once (SIGTERM): the others stop hopping here; new hops are declined. */
  async releaseLeases(): Promise<void> {
    this.closing = true;
    await this.leases.close();
  }

  /** Closes the connections kept to other instances. */
  close(): void {
    this.client.close();
  }
}
