/**
 * An endpoint's effective settings (stored values over the defaults), computed once per endpoint
 * record: the endpoint cache hands out one record object until the endpoint changes, so the steps of
 * every request read one settings object instead of merging the defaults again.
 */
import type { Config } from '../config.js';
import { planNameOf } from '../plans.js';
import type { EndpointRecord } from '../store/index.js';
import { effectiveSettings, type Settings } from './settings.js';

const computed = new WeakMap<EndpointRecord, Settings>();

export function settingsOf(config: Config, ep: EndpointRecord): Settings {
  let s = computed.get(ep);
  if (!s) computed.set(ep, (s = effectiveSettings(ep.settings, planNameOf(config, ep))));
  return s;
}
