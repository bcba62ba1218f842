/**
 * Commands on an endpoint as a whole: create it, delete it, change its settings (which may claim a
 * custom domain). Shared by the API's endpoint routes and the configuration file loader.
 */
import { AppError } from '../errors.js';
import {
  claimedDomain,
  customDomainProblem,
  endpointNameProblem,
  isBuiltIn,
  storedSettings,
  normalizeDomain,
  type CustomDomains,
} from '../endpoint/index.js';
import { effectiveSettings, mergeSettings, type Settings, type SettingsPatch } from '../mock/index.js';
import { MTLS_NEEDS_TLS, tlsConfigured } from '../mtls/index.js';
import { redactTargetUrl, targetProblem } from '../outbound/index.js';
import { planNameOf, planOf, plansFor } from '../plans.js';
import { detail, validationError } from '../schema/index.js';
import type { EndpointRecord, JsonObject } from '../store/index.js';
import { changed, type AdminDeps, type ChangeVersions } from './changed.js';

/** What creating, deleting and configuring an endpoint use, besides the store and the bus. */
export interface EndpointDeps extends AdminDeps {
  /** The dispatch's map of custom domains, kept in step with the stored settings. */
  domains: Pick<CustomDomains, 'set'>;
}

/**
 * Creates an endpoint with DEFAULT_PLAN (400 for a bad name); undefined when it already exists (and
 * then nothing is announced).
 */
export async function createEndpoint(
  deps: Pick<AdminDeps, 'config' | 'store' | 'events' | 'fence' | 'now'>,
  name: string,
): Promise<EndpointRecord | undefined> {
  const problem = endpointNameProblem(name);
  if (problem) throw validationError([detail('/name', problem, name)]);
  const rec: EndpointRecord = { name, createdAt: deps.now(), settings: { plan: deps.config.defaultPlan } };
  const made = await deps.store.changeEndpoint(name, (tx) => tx.createEndpoint(rec), {
    unchanged: (created) => !created,
  });
  if (!made.result) return undefined;
  await changed(deps, name, 'created', made);
  return rec;
}

/**
 * Deletes an endpoint with its rules, history, files, state and keys: 403 for the built-in `echo`,
 * 404 when the store no longer holds it.
 */
export async function deleteEndpoint(
  deps: Pick<EndpointDeps, 'store' | 'events' | 'fence' | 'domains'>,
  ep: EndpointRecord,
): Promise<void> {
  if (isBuiltIn(ep)) throw new AppError('forbidden', `The built-in "${ep.name}" endpoint cannot be deleted.`);
  const gone = await deps.store.changeEndpoint(ep.name, (tx) => tx.deleteEndpoint(ep.name), {
    unchanged: (deleted) => !deleted,
    domains: claimedDomain(ep.settings) !== undefined,
  });
  deps.domains.set(ep.name, undefined);
  // Announced either way: when the store did not hold it, it is gone all the same.
  await changed(deps, ep.name, 'deleted', gone);
  if (!gone.result) throw new AppError('not_found', `Endpoint "${ep.name}" does not exist.`);
}

export interface SettingsChange {
  /** Throws unless the caller may change the plan or the custom domain (an admin key). */
  requireAdmin: () => void;
  /** Replace the stored settings (keeping the plan unless the patch names one) instead of merging. */
  replace?: boolean;
}

/**
 * Writes settings that may set a custom domain: 409 when another endpoint has the domain set
 * (enabled or not), then the write, then the dispatch map. A change that sets a domain or releases
 * one is a claim: the store runs claims one at a time on every instance, each check with its write
 * in one transaction, and moves the domains' version.
 */
async function writeSettings(
  deps: Pick<EndpointDeps, 'store' | 'domains'>,
  ep: EndpointRecord,
  stored: JsonObject,
): Promise<ChangeVersions> {
  const domain = storedSettings(stored).customDomain?.domain;
  const written = await deps.store.changeEndpoint(
    ep.name,
    async (tx) => {
      if (domain !== undefined)
        for (const other of await tx.listEndpoints()) {
          const theirs = storedSettings(other.settings).customDomain?.domain;
          if (other.name !== ep.name && theirs !== undefined && normalizeDomain(theirs) === domain)
            throw new AppError(
              'conflict',
              `The domain "${domain}" is already the custom domain of another endpoint.`,
            );
        }
      await tx.updateEndpointSettings(ep.name, stored);
    },
    { domains: domain !== undefined || claimedDomain(ep.settings) !== undefined },
  );
  deps.domains.set(ep.name, claimedDomain(stored));
  return written;
}

/**
 * Checks a settings patch against the endpoint's plan and the proxy target rules, stores it (merged,
 * or replacing the stored settings; a custom domain is claimed here, 409 when another endpoint holds
 * it) and announces `settings` with the dashboards' `settings.updated`. Answers the settings after the
 * change.
 */
export async function changeSettings(
  deps: Pick<EndpointDeps, 'config' | 'store' | 'events' | 'fence' | 'domains'>,
  ep: EndpointRecord,
  patch: SettingsPatch,
  how: SettingsChange,
): Promise<Settings> {
  const { config } = deps;
  const plans = plansFor(config);
  const currentPlan = planNameOf(config, ep);
  if (patch.plan !== undefined && patch.plan !== currentPlan) {
    // A key scoped to the endpoint must not lift its own limits.
    how.requireAdmin();
    if (!Object.hasOwn(plans, patch.plan))
      throw validationError([
        detail('/plan', `Unknown plan; known plans: ${Object.keys(plans).join(', ')}`, patch.plan),
      ]);
  }
  const domain = patch.customDomain?.domain;
  if (patch.customDomain !== undefined) {
    // A claimed domain takes every request for that host, the API's included: operators only.
    how.requireAdmin();
    const problem = typeof domain === 'string' ? customDomainProblem(domain, config.baseDomain) : undefined;
    if (problem !== undefined) throw validationError([detail('/customDomain/domain', problem, domain)]);
  }
  const target = patch.proxy?.targetUrl;
  const targetIssue = typeof target === 'string' ? targetProblem(target) : undefined;
  if (targetIssue !== undefined)
    throw validationError([
      detail('/proxy/targetUrl', `Not a proxy target: ${targetIssue}`, redactTargetUrl(target!)),
    ]);
  // Without TLS no client certificate ever reaches the server: the setting could only refuse everything.
  if (patch.mtls?.enabled === true && !tlsConfigured(config))
    throw validationError([detail('/mtls/enabled', MTLS_NEEDS_TLS, true)], MTLS_NEEDS_TLS);
  const base = how.replace ? { plan: currentPlan } : ep.settings;
  const stored = mergeSettings(
    base,
    typeof domain === 'string'
      ? { ...patch, customDomain: { ...patch.customDomain, domain: normalizeDomain(domain) } }
      : patch,
  );
  const updated: EndpointRecord = { ...ep, settings: stored };
  const settings = effectiveSettings(stored, planNameOf(config, updated));
  if (settings.security.enabled && settings.security.headerKey === '')
    throw validationError([
      detail('/security/headerKey', 'Required when security is enabled', settings.security.headerKey),
    ]);
  const plan = planOf(config, updated);
  if (!plan.proxy && typeof patch.proxy?.targetUrl === 'string')
    throw new AppError('plan_limit', `The plan "${plan.name}" does not include the HTTP proxy.`);
  if (!plan.tunnel && patch.localTunnel === true)
    throw new AppError('plan_limit', `The plan "${plan.name}" does not include the local tunnel.`);
  if (settings.customDomain.enabled && settings.customDomain.domain === undefined)
    throw validationError([detail('/customDomain/domain', 'Required when the custom domain is enabled', '')]);
  const written = await writeSettings(deps, ep, stored);
  await changed(deps, ep.name, 'settings', written, { name: 'settings.updated', data: settings });
  return settings;
}
