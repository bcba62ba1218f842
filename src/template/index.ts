/** Public surface of response templates. */
export {
  compileTemplate,
  headerValueProblem,
  isSafeHeaderValue,
  fakerOf,
  loadFakeData,
  TEMPLATE_LIMITS,
  templateLimits,
  type CompiledTemplate,
  type RenderResult,
} from './engine.js';
export type { StateUse } from './state-refs.js';
export { SOURCE_LIMITS, sourceLimits, templateSourceProblem, type SourceLimits } from './source-limits.js';
export type { StateAccess, TemplateInput, TemplateLimits } from './state.js';
export { SEED_NAMES, IMAGE_CATEGORIES } from './faker-names.js';
