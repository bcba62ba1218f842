/**
 * Sensitive headers (SPEC §12): `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`,
 * `X-Api-Key` and the operator's own list are stored, published and logged redacted unless the
 * operator opts in (KEEP_SENSITIVE_HEADERS). What stays is what a reader needs to debug: the auth
 * scheme (`Bearer [REDACTED]`), the cookie names (`sid=[REDACTED]`) and a Set-Cookie's attributes.
 */

export const REDACTED = '[REDACTED]';

export const SENSITIVE_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
];

/** One header value, redacted for its header. */
export function redactValue(name: string, value: string): string {
  if (name === 'authorization' || name === 'proxy-authorization') {
    const m = /^([A-Za-z][A-Za-z0-9._~+/-]*)\s+\S/.exec(value);
    return m ? `${m[1]} ${REDACTED}` : REDACTED;
  }
  if (name === 'cookie')
    return value
      .split(';')
      .map((part) => {
        const eq = part.indexOf('=');
        return eq === -1 ? REDACTED : `${part.slice(0, eq).trim()}=${REDACTED}`;
      })
      .join('; ');
  if (name === 'set-cookie') {
    const semi = value.indexOf(';');
    const pair = semi === -1 ? value : value.slice(0, semi);
    const eq = pair.indexOf('=');
    return (
      (eq === -1 ? REDACTED : `${pair.slice(0, eq).trim()}=${REDACTED}`) +
      (semi === -1 ? '' : value.slice(semi))
    );
  }
  return REDACTED;
}

/**
 * A copy of `headers` with the sensitive ones redacted, or `headers` itself when none is present (the
 * common case costs a few lookups and no copy). `names` are lower-case.
 */
export function redactHeaders<V extends string | readonly string[]>(
  headers: Readonly<Record<string, V>>,
  names: ReadonlySet<string>,
): Readonly<Record<string, V>> {
  let out: Record<string, V> | undefined;
  for (const name of names) {
    const v = Object.hasOwn(headers, name) ? headers[name] : undefined;
    if (v === undefined) continue;
    out ??= Object.assign(Object.create(null) as Record<string, V>, headers);
    out[name] = (typeof v === 'string' ? redactValue(name, v) : v.map((x) => redactValue(name, x))) as V;
  }
  return out ?? headers;
}
