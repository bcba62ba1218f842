/**
 * Which endpoint a request is for (SPEC §1), decided in one place and once per request. A host
 * `<name>.<BASE_DOMAIN>`, a domain an endpoint claims, and the path form `/e/<name>/<rest>` name an
 * endpoint; the path the endpoint sees is the request target after the name, as sent (never
 * percent-decoded). Every other request is the management plane's (dashboard, API, TOTP).
 */
import type { IncomingMessage } from 'node:http';
import { SERVICE_LABELS } from './names.js';
import type { CustomDomains } from './custom-domains.js';
import { hostName } from './host.js';

/** The prefix of the path form. */
export const PATH_FORM_PREFIX = '/e/';

/** Maps a Host header to the endpoint it names, or undefined for the bare-domain routes. */
export function endpointForHost(host: string | undefined, baseDomain: string): string | undefined {
  const h = hostName(host);
  return h === undefined ? undefined : labelOf(h, baseDomain);
}

/** The endpoint `<name>.<BASE_DOMAIN>` names, for a host already in `hostName`'s form. */
function labelOf(h: string, baseDomain: string): string | undefined {
  if (!h.endsWith('.' + baseDomain)) return undefined;
  const label = h.slice(0, -(baseDomain.length + 1));
  if (label === '' || label.includes('.') || SERVICE_LABELS.has(label)) return undefined;
  return label;
}

/**
 * An endpoint request: the endpoint's name (lower case), the path it sees (its query included), and
 * whether it came in the path form, which is served in the dashboard's origin (sandbox.ts).
 */
export type Target = { name: string; path: string; pathForm: boolean };

/** Splits `/e/<name>/<rest>?q` into the endpoint name and the path the endpoint sees. */
export function endpointTarget(url: string): Target {
  const afterPrefix = url.slice(PATH_FORM_PREFIX.length);
  const end = afterPrefix.search(/[/?]/);
  const name = (end === -1 ? afterPrefix : afterPrefix.slice(0, end)).toLowerCase();
  let path = end === -1 ? '/' : afterPrefix.slice(end);
  if (path.startsWith('?')) path = '/' + path;
  return { name, path, pathForm: true };
}

/**
 * The dispatch of the one listener: the endpoint a request is for, or undefined for the management
 * plane. A host that names an endpoint wins over the path: `/e/x` on `shop.<domain>` is shop's path.
 */
export function targetFinder(
  baseDomain: string,
  domains?: CustomDomains,
): (req: IncomingMessage) => Target | undefined {
  return (req) => {
    const url = req.url ?? '/';
    const host = hostName(req.headers.host);
    const name = host === undefined ? undefined : (labelOf(host, baseDomain) ?? domains?.get(host));
    if (name !== undefined) return { name, path: url.startsWith('/') ? url : '/' + url, pathForm: false };
    return url.startsWith(PATH_FORM_PREFIX) ? endpointTarget(url) : undefined;
  };
}

/**
 * The endpoint a host names (`<name>.<BASE_DOMAIN>` or a claimed domain), for a request that has no
 * path form: a gRPC call's `:authority`. Undefined when it names none.
 */
export function endpointNamer(
  baseDomain: string,
  domains?: CustomDomains,
): (authority: string | undefined) => string | undefined {
  return (authority) => {
    const host = hostName(authority);
    return host === undefined ? undefined : (labelOf(host, baseDomain) ?? domains?.get(host));
  };
}
