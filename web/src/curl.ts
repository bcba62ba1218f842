/** "Copy as curl": the recorded request as a shell command against the endpoint's path-form URL. */
const SKIP = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'transfer-encoding']);

/** POSIX shell single-quoting: safe for any text, quotes included. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function curlCommand(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | null | undefined,
): string {
  const parts = ['curl'];
  if (method !== 'GET' || body) parts.push('-X', shellQuote(method));
  parts.push(shellQuote(url));
  for (const [k, v] of Object.entries(headers))
    if (!SKIP.has(k.toLowerCase())) parts.push('-H', shellQuote(`${k}: ${v}`));
  if (body) parts.push('--data-binary', shellQuote(body));
  return parts.join(' ');
}
