/**
 * What an endpoint's settings do to the answers given past its guards (issue 37): `faults.proxy` and
 * `faults.tunnel` replace every proxied or tunnelled answer with a fault once the upstream has
 * answered, and `chaos` hits `percent` of the requests with an extra delay, a fault, or both (the delay
 * first). Guards' refusals (preflight, certificate, security, rate limit, quota) are never hit: they are
 * the endpoint's own answers, not the mock's. A chaos delay is waited before the rules run (as a slow
 * network would), so that no upstream answer is held while it passes.
 *
 * Invariants: one draw decides each request; with a `seed`, the draws (hits and delays) come from a
 * generator made when the endpoint's settings were loaded, so a run of requests after a settings
 * change repeats on the same instance (each instance of a cluster has its own). A fault a rule already
 * gives is kept; chaos only adds its delay.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { runSteps, type Outcome } from '../endpoint/index.js';
import type { Fault } from '../http/index.js';
import type { EndpointRecord } from '../store/index.js';
import type { Endpoint, MockExchange, MockStep } from './endpoint-settings.js';
import { withFault } from './faults.js';
import { sampleDelay, seededRandom, type Random } from './latency.js';

/** A seeded endpoint's generator, per loaded settings (a changed endpoint is a new record). */
const generators = new WeakMap<EndpointRecord, Random>();

function randomOf(ep: Endpoint): Random {
  const { seed } = ep.settings.chaos;
  if (seed === undefined) return Math.random;
  let r = generators.get(ep.record);
  if (!r) generators.set(ep.record, (r = seededRandom(seed)));
  return r;
}

/** A chaos hit for one request: what to add to its answer. */
interface Hit {
  fault?: Fault;
  delay: number;
}

/** Whether chaos hits this request, drawn from the endpoint's generator. */
function draw(ep: Endpoint): Hit | undefined {
  const { chaos } = ep.settings;
  if (!(chaos.percent > 0)) return undefined;
  const random = randomOf(ep);
  if (random() * 100 >= chaos.percent) return undefined;
  const hit: Hit = { delay: sampleDelay(chaos.delay, random) };
  if (chaos.fault !== undefined) hit.fault = chaos.fault;
  return hit;
}

/** `o` with the endpoint's `faults` setting (proxy, tunnel) and a chaos hit's fault applied. */
function faulted(x: MockExchange, o: Outcome, hit: Hit | undefined): Outcome {
  const { faults } = x.endpoint.settings;
  let out = o;
  const upstream =
    o.behavior === 'proxy' ? faults.proxy : o.behavior === 'tunnel' ? faults.tunnel : undefined;
  if (upstream !== undefined && out.answer.fault === undefined)
    out = withFault(out, upstream, `the endpoint's faults.${o.behavior} setting`);
  if (hit?.fault !== undefined && out.answer.fault === undefined)
    out = withFault(out, hit.fault, "the endpoint's chaos setting");
  if (hit && hit.delay > 0)
    out = { ...out, problems: [...(out.problems ?? []), `chaos: delayed ${hit.delay} ms`] };
  return out;
}

/**
 * One step running `steps` (the last must always answer) with the endpoint's `faults` and `chaos`:
 * a chaos delay is waited before the first of them runs, so no upstream answer is held meanwhile.
 */
export function withChaos(steps: readonly MockStep[]): MockStep {
  return (x) => {
    const hit = draw(x.endpoint);
    const run = (): Outcome | Promise<Outcome> => {
      const o = runSteps(steps, x);
      return o instanceof Promise ? o.then((v) => faulted(x, v, hit)) : faulted(x, o, hit);
    };
    return hit && hit.delay > 0 ? sleep(hit.delay).then(run) : run();
  };
}
