/**
 * Which URLs an outbound request may name, before any address is looked at: http and https only, no
 * credentials in the URL (`http://x@127.0.0.1` is a classic disguise), a host present. The WHATWG
 * parser normalises the odd forms of an IPv4 address (`0x7f.1`, `2130706433`) to dotted form, so the
 * address policy sees the address the connection would use.
 */
import type { Refusal } from './address-policy.js';

/** A URL or address refused by the outbound rules. */
export class TargetRefused extends Error {
  override name = 'TargetRefused';
  constructor(
    message: string,
    readonly refusal?: Refusal,
  ) {
    super(message);
  }
}

/**
 * `url` with any user name and password replaced by `[REDACTED]`, for messages, the history and error
 * details: a refused URL is named without the credentials it carried. Text that is no URL is kept.
 */
export function redactTargetUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (u.username === '' && u.password === '') return url;
  return `${u.protocol}//[REDACTED]@${u.host}${u.pathname}${u.search}${u.hash}`;
}

/** Why `url` may not be a target, or undefined when its form is acceptable. */
export function targetProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `the scheme ${u.protocol} is not http or https`;
  if (u.username !== '' || u.password !== '') return 'a URL with credentials (user@host) is not accepted';
  if (u.hostname === '') return 'the URL has no host';
  return undefined;
}

/** The parsed URL, or TargetRefused. */
export function parseTarget(url: string): URL {
  const problem = targetProblem(url);
  if (problem !== undefined)
    throw new TargetRefused(`The target ${JSON.stringify(redactTargetUrl(url))} is refused: ${problem}`);
  return new URL(url);
}
