/**
 * The tunnel's link of the fallback chain (SPEC §5, right after the rules): when the endpoint's
 * `localTunnel` setting is on, its plan includes the tunnel and a client is connected (to this instance,
 * or to the one another instance's lease names), the request goes through the tunnel and is recorded as
 * `tunnel`; otherwise the chain goes on to the next link.
 */
import type { MockDeps } from './deps.js';
import type { ResolvedEndpoint, Step } from '../endpoint/index.js';

/** What the step reads of a resolved endpoint: its `localTunnel` setting and its plan's `tunnel`. */
type TunnelEndpoint = ResolvedEndpoint<{ readonly localTunnel: boolean }, { readonly tunnel: boolean }>;

export function tunnelStep(ctx: Pick<MockDeps, 'config' | 'tunnels'>): Step<TunnelEndpoint> {
  return ({ endpoint, request }) => {
    if (!endpoint.settings.localTunnel || !endpoint.plan.tunnel) return undefined;
    const answer = ctx.tunnels.forward(endpoint.record.name, request);
    return answer?.then((a) => (a === undefined ? undefined : { answer: a, behavior: 'tunnel' }));
  };
}
