/** Stands in for `@jest/globals` when the suite runs the documented Jest example: its names over node:test. */
export {
  describe,
  it,
  it as test,
  before as beforeAll,
  after as afterAll,
  beforeEach,
  afterEach,
} from 'node:test';
export { expect } from './expect.js';
