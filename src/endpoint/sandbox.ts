/**
 * Endpoint answers in the dashboard's origin. The path form `/e/<name>/…` (SPEC §1) is served on the
 * host the dashboard and the API are served from: a `text/html` answer there (a rule's body, a blob, a
 * proxied or tunnelled page, an OpenAPI example) would run with the dashboard's origin, read what the
 * dashboard keeps and call the API as the logged-in user. Every answer of the path form therefore
 * carries `Content-Security-Policy: sandbox …` without `allow-same-origin`: the browser gives the page
 * an opaque origin of its own (scripts may run, nothing of the dashboard's origin is theirs). An
 * answer's own policy is kept beside it (a browser enforces both), never in its place.
 *
 * `<name>.<BASE_DOMAIN>` and custom domains are origins of their own (no dashboard, no API key is
 * ever held there), so their answers are left as the endpoint wrote them: a mocked web app may use its
 * cookies and storage.
 *
 * Where it is applied: the endpoint plane's door (serve/) adds it to every answer of the path form it
 * writes (errors, 404s, 413s and 503s included); the `Expect: 100-continue` refusal adds
 * `SANDBOX_HEADERS`.
 */
import { headerMap, headerValues, type Answer, type AnswerHeaders } from '../http/index.js';

/** The policy: an opaque origin; scripts, forms, pop-ups, dialogs and downloads still work. */
export const SANDBOX_POLICY = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';

const CSP = 'content-security-policy';

/** The headers a path-form answer written outside the door adds. */
export const SANDBOX_HEADERS: Readonly<AnswerHeaders> = { [CSP]: SANDBOX_POLICY };

/** `a` with the sandbox policy added to its headers, its own policies (any letter case) kept before it. */
export function sandboxed(a: Answer): Answer {
  let own: string[] | undefined;
  // The answer's names may be a peer's (`__proto__` included): a map without a prototype keeps them data.
  const headers = headerMap();
  for (const [k, v] of Object.entries(a.headers)) {
    if (k.length === CSP.length && k.toLowerCase() === CSP) (own ??= []).push(...headerValues(v));
    else headers[k] = v;
  }
  headers[CSP] = own === undefined ? SANDBOX_POLICY : [...own, SANDBOX_POLICY];
  return { ...a, headers };
}
