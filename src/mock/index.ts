/** Public surface of mock endpoints: the pipeline of user endpoints and its steps. */
export type { MockDeps } from './deps.js';
export { mockPipeline, defaultAnswer, defaultStep, quotaStep } from './pipeline.js';
export {
  Action,
  Condition,
  blobsOf,
  isTemplated,
  MAX_DELAY_MS,
  MAX_ENDPOINT_RULES,
  MAX_RULES,
  parseRule,
  parseRuleList,
  Rule,
  RULE_METHODS,
  ruleFromRecord,
  RuleId,
  RuleInput,
  RulePatch,
  ruleToRecord,
  type RuleData,
} from './rule-model.js';
export { defaultSettings, effectiveSettings, mergeSettings, Settings, SettingsPatch } from './settings.js';
export { endpointResolver, type Endpoint, type MockExchange, type MockStep } from './endpoint-settings.js';
export { compileRules, type CompiledRules, type RuleMatch } from './matcher.js';
export { collectionLocator, compileCrud, CRUD_LIST_MAX, type CrudTarget } from './crud.js';
export { compileAction, pickWeighted, type CompiledAction, type TemplateCompiler } from './actions.js';
export { REGEX_INPUT_MAX, userRegexProblem } from '../regex/index.js';
export {
  HAR_MAX_ENTRIES,
  harRules,
  ruleKey,
  type HarImportOptions,
  type HarImportPlan,
  type HarSkip,
} from './har-import.js';
export { recordedRule, type RecordedExchange, type RuleRecorder } from './recording.js';
export { CrudListBudget, type CrudListBudgetOptions } from './crud-list-budget.js';
export { sampleDelay, seededRandom, type Random } from './latency.js';
export { MAX_DRIBBLE_CHUNKS, type ChunkedSpec, type DelaySpec } from './latency-schema.js';
export { CHAOS_SEED_MAX } from './settings.js';
export { previewTemplate, type PreviewInput, type PreviewResult } from './preview.js';

// gRPC rules (SPEC §13): the `grpc` action as stored, its bounds, and the checks beyond its schema.
export {
  GrpcActionSchema,
  GRPC_MAX_DETAILS,
  GRPC_MAX_INTERVAL_MS,
  GRPC_MAX_METADATA,
  GRPC_MAX_RESPONSES,
  GRPC_MAX_STATUS_MESSAGE,
  GRPC_MAX_STREAM_COUNT,
  type GrpcAction,
} from './rule-model.js';
export { GRPC_MAX_DETAIL_BYTES } from './grpc-rule-checks.js';
export {
  grpcService,
  GRPC_CLIENT_MESSAGES_MAX,
  GENERATED_STREAM_COUNT,
  type CallTransport,
  type GrpcServiceDeps,
} from './grpc-service.js';
