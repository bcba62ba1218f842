/**
 * Endpoint names (SPEC §1): 3–40 of a-z, 0-9 and '-', starting with a letter, not ending with '-'.
 * The one place that knows the built-in `echo` endpoint and the host labels that are not endpoints.
 */
import type { EndpointRecord } from '../store/index.js';
import { storedSettings } from './stored-settings.js';

/** The built-in echo endpoint (SPEC §2): recorded like any endpoint, answered by the echo. */
export const ECHO_ENDPOINT = 'echo';

export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  ECHO_ENDPOINT,
  'api',
  'tools',
  'www',
  'app',
  'e',
]);

/** Host labels that are not endpoints: they serve the bare-domain routes. */
export const SERVICE_LABELS: ReadonlySet<string> = new Set(['api', 'tools', 'www', 'app', 'e']);

const NAME_RE = /^[a-z][a-z0-9-]{1,38}[a-z0-9]$/;

/** Why `name` cannot be a user endpoint, or undefined when it can. */
export function endpointNameProblem(name: string): string | undefined {
  if (!NAME_RE.test(name))
    return 'An endpoint name has 3 to 40 characters of a-z, 0-9 and "-", starts with a letter and does not end with "-".';
  if (RESERVED_NAMES.has(name)) return `"${name}" is a reserved name.`;
  return undefined;
}

/** Whether `ep` is a built-in endpoint (the echo), which cannot be deleted and no plan limits. */
export function isBuiltIn(ep: Pick<EndpointRecord, 'settings'>): boolean {
  return storedSettings(ep.settings).builtIn;
}

/** The stored settings of a built-in endpoint. */
export const BUILT_IN_SETTINGS = { builtIn: true } as const;
