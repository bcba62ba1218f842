/** Public surface of mock endpoints: the pipeline of user endpoints and its steps. */
export { mockPipeline, defaultAnswer, defaultStep, quotaStep } from './pipeline.js';
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
