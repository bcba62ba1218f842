/** Public surface of mock endpoints: the pipeline of user endpoints and its steps. */
export { mockPipeline, defaultAnswer, defaultStep, quotaStep } from './pipeline.js';
