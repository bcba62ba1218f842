// Module hooks for the examples test: the frameworks' packages resolve to the shims next to this
// file, and `mockingbird-server/client` to the client's sources (the built package is checked by
// test/cli/npm-start.test.ts).
const here = new URL('./', import.meta.url);
const MAP = {
  vitest: new URL('vitest.ts', here).href,
  '@jest/globals': new URL('jest.ts', here).href,
  '@playwright/test': new URL('playwright.ts', here).href,
  'mockingbird-server/client': new URL('../../../src/client/index.ts', here).href,
};

export async function resolve(specifier, context, next) {
  const url = MAP[specifier];
  // Handed on (not short-circuited) so that tsx, which loads the .ts files, resolves them too.
  return next(url ?? specifier, context);
}
