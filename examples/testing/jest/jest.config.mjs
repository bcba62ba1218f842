// Jest runs these ES modules as they are (no transform) with `NODE_OPTIONS=--experimental-vm-modules`.
export default {
  testEnvironment: 'node',
  transform: {},
  testMatch: ['**/*.test.mjs'],
  globalSetup: './global-setup.mjs',
  globalTeardown: './global-teardown.mjs',
};
