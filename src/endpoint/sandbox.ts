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
 * Where it is applied: the lane adds it to the answers it writes; every request of the path form that
 * goes to Fastify has it set on the response before Fastify sees it (`markSandboxed`), so errors,
 * 404s and 503s carry it too, and the endpoint routes add it to the answer's own headers.
 */
import type { ServerResponse } from 'node:http';
import { headerMap, headerValues, type Answer, type AnswerHeaders } from '../http/index.js';
import { PATH_FORM_PREFIX } from './dispatch.js';

/** The policy: an opaque origin; scripts, forms, pop-ups, dialogs and downloads still work. */
export const SANDBOX_POLICY = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';

const CSP = 'content-security-policy';

/** The headers a path-form answer written outside the endpoint routes adds. */
export const SANDBOX_HEADERS: Readonly<AnswerHeaders> = { [CSP]: SANDBOX_POLICY };

const marked = new WeakSet<ServerResponse>();

/**
 * Whether a request sent as `sent` (its URL as received) and routed as `routed` (after the host's
 * rewrite) is of the path form: a `<name>.<domain>` request is rewritten, a path-form one is not.
 */
export function isPathForm(sent: string, routed: string): boolean {
  return routed === sent && routed.startsWith(PATH_FORM_PREFIX);
}

/** Sets the sandbox on `res` before Fastify answers it, and remembers that it did. */
export function markSandboxed(res: ServerResponse): void {
  marked.add(res);
  res.setHeader(CSP, SANDBOX_POLICY);
}

/**
 * Whether `markSandboxed` was applied to `res`; if so, its early copy of the policy is dropped: the
 * caller sends an answer that carries it (`sandboxed`), in the answer's header order.
 */
export function takeSandbox(res: ServerResponse): boolean {
  if (!marked.has(res)) return false;
  res.removeHeader(CSP);
  return true;
}

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
