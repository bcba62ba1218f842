/** The host a `Host` header names, in one form for every lookup of the dispatch. */

/**
 * `Host` without its port, lower case, without a trailing dot; undefined when there is none or it is
 * an IPv6 literal (which names no endpoint).
 */
export function hostName(host: string | undefined): string | undefined {
  if (!host || host.startsWith('[')) return undefined;
  let h = host.toLowerCase();
  const colon = h.lastIndexOf(':');
  if (colon !== -1) h = h.slice(0, colon);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}
