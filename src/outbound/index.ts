/**
 * Public surface of outbound HTTP: the one client (undici) and the one SSRF guard every request
 * Mockingbird sends on a user's behalf goes through (the proxy, rule callouts), and the bounded queue
 * of async callouts waiting to be sent.
 */
export {
  OutboundClient,
  OutboundError,
  UPSTREAM_CONNECTIONS_PER_ORIGIN,
  UPSTREAM_MAX_HEADER_BYTES,
  type OutboundOptions,
  type UpstreamRequest,
  type UpstreamResponse,
} from './client.js';
export { AddressPolicy, BUILT_IN_DENY, parseCidr, type Refusal } from './address-policy.js';
export { parseTarget, redactTargetUrl, targetProblem, TargetRefused } from './target.js';
export { HOP_HEADER, MAX_HOPS, newInstanceId, nextHop, nextHopWithin } from './hop.js';
export { CalloutQueue, type CalloutJob, type CalloutQueueOptions } from './callout-queue.js';
