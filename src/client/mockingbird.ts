/**
 * The typed client of a Mockingbird server, for tests: the management API (endpoints, keys, and per
 * endpoint everything under it), the TOTP generator, and the helpers tests need. It runs wherever
 * `fetch` does (Node 20+, browsers) and loads nothing of the server.
 */
import { Transport, type FetchLike } from './http.js';
import { EndpointClient } from './endpoint.js';
import { TotpClient, type TotpBudget } from './totp.js';
import type { Endpoint, KeyInfo, NewKey } from './types.js';

export interface MockingbirdOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** An API key (`mb_…`): the admin key, or one scoped to an endpoint. */
  apiKey?: string;
  /** Another fetch (a proxy agent, a mock); the global one by default. */
  fetch?: FetchLike;
  /**
   * TOTP calls: retries after a 429 (default 3), the longest Retry-After to wait for (60 s), the most
   * a call may take with its waits (`budgetMs`, 4000) and who is told of a wait on the rate limit.
   */
  totp?: { retries?: number; maxRetryWaitMs?: number } & TotpBudget;
  /** How the client waits before a retry (tests replace it). */
  sleep?: (ms: number) => Promise<void>;
}

export class Mockingbird {
  readonly baseUrl: string;
  readonly totp: TotpClient;
  private readonly t: Transport;

  constructor(opts: MockingbirdOptions) {
    this.t = new Transport(opts);
    this.baseUrl = this.t.baseUrl;
    this.totp = new TotpClient(this.t, {
      ...opts.totp,
      retries: opts.totp?.retries ?? 3,
      maxRetryWaitMs: opts.totp?.maxRetryWaitMs ?? 60_000,
    });
  }

  /** The client of one endpoint (no request is made). */
  endpoint(name: string): EndpointClient {
    return new EndpointClient(this.t, name);
  }

  /** Creates an endpoint (admin key) and answers its client. */
  async createEndpoint(name: string): Promise<EndpointClient> {
    await this.t.json<Endpoint>('POST', '/api/v2/endpoints', { body: { name } });
    return this.endpoint(name);
  }

  /** The endpoint's client, creating the endpoint when it does not exist yet. */
  async ensureEndpoint(name: string): Promise<EndpointClient> {
    const ep = this.endpoint(name);
    try {
      await ep.get();
      return ep;
    } catch (err) {
      if ((err as { status?: number }).status !== 404) throw err;
      return this.createEndpoint(name);
    }
  }

  async endpoints(): Promise<Endpoint[]> {
    return (await this.t.json<{ data: Endpoint[] }>('GET', '/api/v2/endpoints')).data;
  }

  deleteEndpoint(name: string): Promise<{ name: string; deleted: true }> {
    return this.endpoint(name).delete();
  }

  /** Creates an API key (admin key): an admin key, or one scoped to `endpoint`. */
  createKey(endpoint?: string): Promise<NewKey> {
    return this.t.json('POST', '/api/v2/keys', { body: endpoint === undefined ? {} : { endpoint } });
  }

  async keys(): Promise<KeyInfo[]> {
    return (await this.t.json<{ data: KeyInfo[] }>('GET', '/api/v2/keys')).data;
  }

  deleteKey(id: string): Promise<{ id: string; deleted: true }> {
    return this.t.json('DELETE', `/api/v2/keys/${encodeURIComponent(id)}`);
  }

  /** The management API's OpenAPI document. */
  openapi(): Promise<Record<string, unknown>> {
    return this.t.json('GET', '/api/v2/openapi.json', { auth: false });
  }
}
