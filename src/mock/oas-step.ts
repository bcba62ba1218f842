/**
 * The OpenAPI link of the fallback chain (SPEC §5 step 4, after the tunnel and the proxy): when the
 * endpoint has an uploaded spec, its plan allows OpenAPI mocking, and an operation of the spec fits
 * the request's method and path, the operation answers, recorded as `oas`. Otherwise the request goes
 * on to the default response.
 */
import type { MockDeps } from './deps.js';
import type { Step } from '../endpoint/index.js';
import { specAnswer } from '../oas/index.js';
import { planOf } from '../plans.js';
import { settingsOf } from './endpoint-settings.js';

export function oasStep(ctx: Pick<MockDeps, 'config' | 'log' | 'store'>): Step {
  return async (x) => {
    if (!planOf(ctx.config, x.endpoint).openapi) return undefined;
    const r = await specAnswer(ctx, x.endpoint, x.request, settingsOf(ctx.config, x.endpoint).locale);
    if (!r) return undefined;
    return { answer: r.answer, behavior: 'oas', ...(r.problems.length > 0 ? { problems: r.problems } : {}) };
  };
}
