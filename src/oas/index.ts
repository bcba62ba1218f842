/**
 * Public surface of OpenAPI mocking (SPEC §7): validating an uploaded document off the event loop,
 * the upload job, and the answers of a spec's operations for the pipeline's OpenAPI step.
 */
export {
  validateSpec,
  OAS_VALIDATIONS_AT_ONCE,
  OAS_VALIDATIONS_WAITING,
  OAS_VALIDATION_TIMEOUT_MS,
  OAS_VALIDATION_HEAP_MB,
  type ValidSpec,
} from './validate.js';
export { startSpecJob, startUploadJob, jobView, type UploadWork } from './jobs.js';
export type { OasDeps } from './deps.js';
export { specAnswer, compiledSpecOf, readySpecOf } from './serve.js';
export { checkRequest, OAS_CONTRACT_VIOLATIONS_MAX, type ContractCheck } from './contract-request.js';
export { checkResponse, OAS_CONTRACT_RESPONSE_BYTES } from './contract-response.js';
export { OAS_CONTRACT_SCHEMA_NODES } from './contract-schemas.js';
export {
  compileSpec,
  schemaUnitsOf,
  type CompiledSpec,
  type Operation,
  type OperationMatch,
} from './compile.js';
export {
  generate,
  OAS_GENERATE_DEPTH,
  OAS_GENERATE_ITEMS,
  OAS_GENERATE_NODES,
  OAS_GENERATE_STRING,
} from './generate.js';
export { parsePrefer, type OasAnswer } from './respond.js';
export type { OperationSummary } from './document.js';
export { OAS_WARNINGS_MAX, OAS_EXAMPLE_CHECKS, type SpecWarning } from './lint.js';
export { OAS_PATTERN_ATTEMPTS, OAS_PATTERN_STEPS, OAS_PATTERN_EXTRA } from './pattern.js';
export { isZip, OAS_ZIP_ENTRIES, OAS_ZIP_RATIO } from './bundle.js';
