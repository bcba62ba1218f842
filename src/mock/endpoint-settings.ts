/**
 * The endpoint the mock pipeline reads: its record, its effective settings (stored values over the
 * defaults, typed) and its plan's limits. The endpoint cache builds one per entry with the resolver
 * below, so the steps of every request read one settings object and one plan, computed when the
 * endpoint was loaded (or changed), never per request.
 */
import type { Config } from '../config.js';
import type { EndpointResolver, Exchange, ResolvedEndpoint, Step } from '../endpoint/index.js';
import { planNameOf, planOf, type Plan } from '../plans.js';
import { effectiveSettings, type Settings } from './settings.js';

/** An endpoint with its effective settings and its plan, as the mock pipeline's steps read it. */
export type Endpoint = ResolvedEndpoint<Settings, Plan>;
/** A request to an `Endpoint`. */
export type MockExchange = Exchange<Endpoint>;
/** A step of the mock pipeline. */
export type MockStep = Step<Endpoint>;

/** Resolves a record into an `Endpoint` under `config`'s plans (the endpoint cache's resolver). */
export function endpointResolver(config: Config): EndpointResolver<Endpoint> {
  return (record) => ({
    record,
    settings: effectiveSettings(record.settings, planNameOf(config, record)),
    plan: planOf(config, record),
  });
}
