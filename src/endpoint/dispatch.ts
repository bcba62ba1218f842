/**
 * Which endpoint a request is for (SPEC §1), decided in one place. `<name>.<BASE_DOMAIN>` and the
 * path form `/e/<name>/<rest>` name the same endpoint: Fastify's `rewriteUrl` turns the first into the
 * second, so that one route serves both, and `endpointTarget` splits the path form back into the
 * endpoint name and the path the endpoint sees. Every other host serves the bare-domain routes.
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
 * Fastify's `rewriteUrl`: a request to `<name>.<BASE_DOMAIN>`, or to a domain an endpoint claims,
 * becomes `/e/<name>/…`.
 */
export function rewriteUrlFor(baseDomain: string, domains?: CustomDomains): (req: IncomingMessage) => string {
  return (req) => {
    const url = req.url ?? '/';
    const host = hostName(req.headers.host);
    const name = host === undefined ? undefined : (labelOf(host, baseDomain) ?? domains?.get(host));
    if (name === undefined) return url;
    return `${PATH_FORM_PREFIX}${name}${url.startsWith('/') ? url : '/' + url}`;
  };
}

/** An endpoint's name and the path it sees, from the path form. */
export type Target = { name: string; path: string };

/** Splits `/e/<name>/<rest>?q` into the endpoint name and the path the endpoint sees. */
export function endpointTarget(url: string): Target {
  const afterPrefix = url.slice(PATH_FORM_PREFIX.length);
  const end = afterPrefix.search(/[/?]/);
  const name = (end === -1 ? afterPrefix : afterPrefix.slice(0, end)).toLowerCase();
  let path = end === -1 ? '/' : afterPrefix.slice(end);
  if (path.startsWith('?')) path = '/' + path;
  return { name, path };
}
