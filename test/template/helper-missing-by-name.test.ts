/**
 * Stops: `{{helperMissing}}` or `{{blockHelperMissing}}` written by name answering 561 with a
 * JavaScript message ("Cannot read properties of undefined (reading 'call')", issue 30, item 5). They
 * are unknown helpers like any other: rendered empty and noted by name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTemplate, type TemplateInput } from '../../src/template/index.js';

const INPUT: TemplateInput = {
  method: 'GET',
  path: '/',
  pathname: '/',
  headers: {},
  query: {},
  body: undefined,
  pathParams: {},
  locale: 'en',
  now: 0,
};

test('helperMissing and blockHelperMissing by name render empty and are noted by name', () => {
  for (const [source, name] of [
    ['a{{helperMissing}}b', 'helperMissing'],
    ['a{{helperMissing 1}}b', 'helperMissing'],
    ['a{{#helperMissing}}x{{/helperMissing}}b', 'helperMissing'],
    ['a{{blockHelperMissing}}b', 'blockHelperMissing'],
    ['a{{#blockHelperMissing 1}}x{{/blockHelperMissing}}b', 'blockHelperMissing'],
  ] as const) {
    const r = compileTemplate(source).render(INPUT);
    assert.ok(r.ok, `${source}: ${JSON.stringify(r)}`);
    assert.equal(r.text, 'ab');
    assert.ok(
      r.problems.some((p) => p.includes(`"${name}"`)),
      `${source}: ${JSON.stringify(r.problems)}`,
    );
    assert.ok(!r.problems.some((p) => /Cannot read|undefined/.test(p)));
  }
});
