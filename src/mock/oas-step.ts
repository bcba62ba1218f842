/**
 * The OpenAPI link of the fallback chain (SPEC §5 step 4, after the tunnel and the proxy): when the
 * endpoint has an uploaded spec, its plan allows OpenAPI mocking, and an operation of the spec fits
 * the request's method and path, the operation answers, recorded as `oas`. Otherwise the request goes
 * on to the default response.
 */
import type { MockDeps } from './deps.js';
import { specAnswer } from '../oas/index.js';
import type { MockStep } from './endpoint-settings.js';

export function oasStep(ctx: Pick<MockDeps, 'config' | 'log' | 'store'>): MockStep {
  return async ({ endpoint, request }) => {
    if (!endpoint.plan.openapi) return undefined;
    const r = await specAnswer(ctx, endpoint.record, request, endpoint.settings.locale);
    if (!r) return undefined;
    return { answer: r.answer, behavior: 'oas', ...(r.problems.length > 0 ? { problems: r.problems } : {}) };
  };
}
