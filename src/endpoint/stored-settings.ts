/**
 * The three parts of an endpoint's stored settings document that are read before, or without, the
 * mock model resolving the whole of it (mock/settings.ts): its plan's name (to resolve the plan and
 * its retention), whether it is the built-in echo, and its custom-domain claim (dispatch and the
 * uniqueness of claims). Read here once, typed; no other module reads the stored JSON by key. The
 * API validated the document when it was written, so a part of an unexpected type reads as absent.
 */
import type { JsonObject } from '../store/index.js';

export interface StoredSettings {
  /** The plan the endpoint was given; absent: the default plan. */
  readonly plan: string | undefined;
  /** Whether this is a built-in endpoint (the echo). */
  readonly builtIn: boolean;
  /** The custom domain it names, claimed for dispatch only when `enabled`. */
  readonly customDomain: { readonly domain: string; readonly enabled: boolean } | undefined;
}

export function storedSettings(settings: JsonObject): StoredSettings {
  const { plan, builtIn, customDomain } = settings;
  let domain: StoredSettings['customDomain'];
  if (typeof customDomain === 'object' && customDomain !== null && !Array.isArray(customDomain)) {
    const d = customDomain['domain'];
    if (typeof d === 'string') domain = { domain: d, enabled: customDomain['enabled'] === true };
  }
  return {
    plan: typeof plan === 'string' ? plan : undefined,
    builtIn: builtIn === true,
    customDomain: domain,
  };
}
