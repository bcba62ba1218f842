/** Public surface of mock endpoints: routes, names, the pipeline. */
export { endpointRoutes, splitEndpointUrl } from './routes.js';
export { endpointNameProblem, RESERVED_NAMES, SERVICE_LABELS } from './names.js';
export { answerEndpoint, defaultAnswer, type PipelineResult } from './pipeline.js';
export { historyEntry, type Answer } from './record.js';
