/** Stands in for `vitest` when the suite runs the documented Vitest example: its names over node:test. */
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
