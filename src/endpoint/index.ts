/** Public surface of the endpoint lifecycle: dispatch, names, pipeline types, history entries. */
export {
  endpointLifecycle,
  type Decision,
  type EndpointRouting,
  type Lifecycle,
  type Resolved,
  type StreamRecorder,
} from './lifecycle.js';
export type { LifecycleDeps } from './deps.js';
export {
  endpointForHost,
  endpointNamer,
  endpointTarget,
  targetFinder,
  PATH_FORM_PREFIX,
  type Target,
} from './dispatch.js';
export { sandboxed, SANDBOX_HEADERS, SANDBOX_POLICY } from './sandbox.js';
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
export { storedSettings, type StoredSettings } from './stored-settings.js';
export {
  CustomDomains,
  claimedDomain,
  customDomainProblem,
  normalizeDomain,
  sharedClaims,
  type DomainsVersionCheck,
} from './custom-domains.js';
export {
  EndpointCache,
  ENDPOINT_CACHE_MAX,
  RecordMemo,
  type EndpointCacheOptions,
  type EndpointResolver,
  type ResolvedEndpoint,
  type VersionCheck,
} from './cache.js';
