/**
 * Public surface of endpoint changes: one command per change (create an endpoint, change its settings
 * and claim its domain, its rules, state, blobs, OpenAPI document and client certificates). Each
 * validates, writes through the store and ends in one `changed(endpoint, what)` on the event bus,
 * which the endpoint cache listens to. API routes, the configuration file and the proxy's recording
 * call these; each takes the few services it uses, not the whole application context.
 */
export { changed, type AdminDeps } from './changed.js';
export {
  changeSettings,
  createEndpoint,
  deleteEndpoint,
  type EndpointDeps,
  type SettingsChange,
} from './endpoints.js';
export {
  appendRecordedRule,
  appendRule,
  appendRules,
  deleteAllRules,
  deleteRule,
  patchedRule,
  reorderRules,
  replaceRule,
  replaceRules,
  ruleOf,
} from './rules.js';
export { deleteStateItem, deleteStateItems, putState, stateItemsOf, type NewStateItem } from './state.js';
export { deleteSpec, refuseWithoutOpenapi, uploadGrpcSpec, uploadSpec, type SpecDeps } from './specs.js';
export { deleteBlob, storeBlob } from './blobs.js';
export {
  issueCertificate,
  revokeCertificate,
  type CertificateDeps,
  type IssuedCertificate,
} from './certificates.js';
