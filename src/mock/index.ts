/** Public surface of mock endpoints: routes, names, the pipeline, and the model of rules and settings. */
export { endpointRoutes, splitEndpointUrl } from './routes.js';
export { endpointNameProblem, RESERVED_NAMES, SERVICE_LABELS } from './names.js';
export { answerEndpoint, defaultAnswer, type PipelineResult } from './pipeline.js';
export { historyEntry, type Answer } from './record.js';
export {
  Action,
  Condition,
  isTemplated,
  MAX_DELAY_MS,
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
