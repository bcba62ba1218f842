/**
 * Stops: a `__proto__` key in a mocks-as-code file silently ignored (it became the prototype of the
 * object read from the file, so its content was dropped or, read through inheritance, half-applied).
 * Keys are data: `__proto__` is an unknown key or a bad endpoint name like any other, refused with
 * its line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ConfigFileError, loadConfigFile } from '../../src/config-file/index.js';
import { useApp } from '../helpers/endpoint.js';
import { tempFiles } from './helpers.js';

test('a __proto__ key in a configuration file is refused with its line, and nothing is applied', async (t) => {
  const app = await useApp(t);
  for (const [yaml, message] of [
    [
      'endpoints:\n  __proto__:\n    settings: { localTunnel: true }\n',
      /m\.yaml:\d+:\d+: \/endpoints\/__proto__: An endpoint name/,
    ],
    [
      'endpoints:\n  shop:\n    settings:\n      __proto__: { localTunnel: true }\n',
      /m\.yaml:4:\d+: \/endpoints\/shop\/settings\/__proto__: Unexpected property/,
    ],
  ] as const) {
    const file = join(tempFiles({ 'm.yaml': yaml }), 'm.yaml');
    const err = await loadConfigFile(app.ctx, file).then(
      () => assert.fail('loaded'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ConfigFileError, String(err));
    assert.match(err.message, message);
  }
  assert.equal(await app.ctx.store.getEndpoint('shop'), undefined);
});
