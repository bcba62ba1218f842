/**
 * Custom domains: a request whose `Host` is an endpoint's `customDomain.domain` (port ignored) is
 * served by that endpoint, as if sent to `<name>.<BASE_DOMAIN>`. The claims live in one map from
 * domain to endpoint name, loaded from the store at start and changed by the settings API; a host
 * that is not claimed costs one map lookup, and none at all while nobody has claimed a domain.
 *
 * One instance sees its own changes at once. Several instances (REDIS_URL) see each other's claims
 * through the domains' shared version (`sharedClaims`): a request whose host could be a claimed
 * domain is dispatched only once the map is as current as that version, read again from the store
 * once per version.
 */
import type { IncomingMessage } from 'node:http';
import type { JsonObject, Store } from '../store/index.js';
import { storedSettings } from './stored-settings.js';
import { hostName } from './host.js';

/** The form a domain is stored and looked up in: lower case, no trailing dot. */
export function normalizeDomain(domain: string): string {
  const d = domain.toLowerCase();
  return d.endsWith('.') ? d.slice(0, -1) : d;
}

/**
 * Why `domain` cannot be claimed on a server whose base domain is `baseDomain`, or undefined: the base
 * domain and its sub-domains already name endpoints (or the API), and an IP address is the server's
 * own, which serves the API.
 */
export function customDomainProblem(domain: string, baseDomain: string): string | undefined {
  const d = normalizeDomain(domain);
  const base = normalizeDomain(baseDomain);
  if (d === base || d.endsWith('.' + base))
    return `"${d}" is the base domain or one of its sub-domains, which already name endpoints`;
  if (/^[0-9.]+$/.test(d)) return 'an IP address cannot be a custom domain';
  return undefined;
}

/** The domain an endpoint's stored settings claim for dispatch (enabled and set), or undefined. */
export function claimedDomain(settings: JsonObject): string | undefined {
  const c = storedSettings(settings).customDomain;
  if (!c || !c.enabled || c.domain === '') return undefined;
  return normalizeDomain(c.domain);
}

export class CustomDomains {
  private byDomain = new Map<string, string>();
  private byEndpoint = new Map<string, string>();

  /** Reads every endpoint's claim from the store (at start). */
  async load(store: Pick<Store, 'listEndpoints'>): Promise<void> {
    for (const ep of await store.listEndpoints()) this.set(ep.name, claimedDomain(ep.settings));
  }

  /** Replaces the map with the claims the store holds now. */
  async reload(store: Pick<Store, 'listEndpoints'>): Promise<void> {
    const fresh = new CustomDomains();
    await fresh.load(store);
    this.byDomain = fresh.byDomain;
    this.byEndpoint = fresh.byEndpoint;
  }

  /** `endpoint` now serves `domain` (undefined: no custom domain any more). */
  set(endpoint: string, domain: string | undefined): void {
    const old = this.byEndpoint.get(endpoint);
    if (old !== undefined && this.byDomain.get(old) === endpoint) this.byDomain.delete(old);
    this.byEndpoint.delete(endpoint);
    if (domain === undefined) return;
    const d = normalizeDomain(domain);
    this.byDomain.set(d, endpoint);
    this.byEndpoint.set(endpoint, d);
  }

  /** The endpoint a `Host` header names through a custom domain, or undefined. */
  lookup(host: string | undefined): string | undefined {
    const h = hostName(host);
    return h === undefined ? undefined : this.get(h);
  }

  /** The same for a host already in `hostName`'s form: one map lookup, none while nothing is claimed. */
  get(host: string): string | undefined {
    return this.byDomain.size === 0 ? undefined : this.byDomain.get(host);
  }
}

/** The domains' shared version (cluster/'s VersionFence): undefined when it cannot be known now. */
export interface DomainsVersionCheck {
  domains(): Promise<number | undefined>;
}

/**
 * The check the dispatch runs before a request whose host could be claimed (not under the base
 * domain, not an IP address) when several instances share the claims: the map is read again when the
 * shared version moved past the one it was read for (`version`, read before the map was), one read
 * at a time. Undefined for a request that needs no check; the promise never rejects (a store that
 * cannot be read leaves the map as it is).
 */
export function sharedClaims(
  domains: CustomDomains,
  fence: DomainsVersionCheck,
  store: Pick<Store, 'listEndpoints'>,
  baseDomain: string,
  version: number,
): (req: IncomingMessage) => Promise<void> | undefined {
  let current = version;
  let reading: Promise<void> | undefined;
  const freshen = async (shared: number | undefined): Promise<void> => {
    while (shared !== undefined && current < shared) {
      if (!reading) {
        const target = shared;
        reading = domains
          .reload(store)
          .then(() => void (current = Math.max(current, target)))
          .finally(() => (reading = undefined));
      }
      try {
        await reading;
      } catch {
        return;
      }
    }
  };
  return (req) => {
    const host = hostName(req.headers.host);
    if (host === undefined || customDomainProblem(host, baseDomain) !== undefined) return undefined;
    return fence.domains().then(freshen);
  };
}
