/** Public surface of the endpoint lifecycle: dispatch, names, pipeline types, history entries. */
export { endpointRoutes } from './routes.js';
export { endpointLifecycle, type EndpointRouting, type Lifecycle } from './lifecycle.js';
export { endpointLane, type Lane } from './lane.js';
export { endpointForHost, endpointTarget, rewriteUrlFor, PATH_FORM_PREFIX } from './dispatch.js';
export { isPathForm, markSandboxed, SANDBOX_HEADERS, SANDBOX_POLICY } from './sandbox.js';
export {
  endpointNameProblem,
  isBuiltIn,
  BUILT_IN_SETTINGS,
  ECHO_ENDPOINT,
  RESERVED_NAMES,
  SERVICE_LABELS,
} from './names.js';
export {
  runSteps,
  type BeforeBody,
  type EndpointPipeline,
  type Exchange,
  type Outcome,
  type Step,
} from './pipeline.js';
export { CustomDomains, claimedDomain, customDomainProblem, normalizeDomain } from './custom-domains.js';
export { EndpointCache, ENDPOINT_CACHE_MAX, RecordMemo } from './cache.js';
