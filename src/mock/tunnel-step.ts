/**
 * The tunnel's link of the fallback chain (SPEC §5, right after the rules): when the endpoint's
 * `localTunnel` setting is on, its plan includes the tunnel and a client is connected, the request goes
 * through the tunnel and is recorded as `tunnel`; otherwise the chain goes on to the next link.
 */
import type { MockDeps } from './deps.js';
import type { Step } from '../endpoint/index.js';
import { planOf } from '../plans.js';

export function tunnelStep(ctx: Pick<MockDeps, 'config' | 'tunnels'>): Step {
  return ({ endpoint, request }) => {
    // Read from the stored settings: a setting never written is off (its default).
    if (endpoint.settings['localTunnel'] !== true || !planOf(ctx.config, endpoint).tunnel) return undefined;
    const answer = ctx.tunnels.forward(endpoint.name, request);
    return answer?.then((a) => ({ answer: a, behavior: 'tunnel' }));
  };
}
