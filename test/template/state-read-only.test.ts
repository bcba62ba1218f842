/**
 * Which templates only read the state (state-refs.ts `readOnly`): they take no lock of the store, so
 * that with several instances a read never waits for, nor holds up, the endpoint's changes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTemplate } from '../../src/template/index.js';

test('only literal get and length operations make a template read-only', () => {
  const readOnly = (source: string) => compileTemplate(source).state?.readOnly === true;
  assert.equal(
    readOnly("{{step-counter 'get' 'n'}} {{list 'length' 'l'}} {{{data-store 'get' 'k' 'x'}}}"),
    true,
  );
  assert.equal(readOnly("{{#each (list 'get' 'cart')}}{{this}}{{/each}}"), true);
  assert.equal(
    readOnly("{{data-store 'get' (pathParam 'id')}}"),
    true,
    'a computed name, a read all the same',
  );
  assert.equal(readOnly("{{step-counter 'get' 'n'}}{{step-counter 'inc' 'n'}}"), false);
  assert.equal(readOnly("{{list 'pop' 'l'}}"), false);
  assert.equal(readOnly("{{data-store 'set' 'k' 1}}"), false);
  assert.equal(readOnly("{{step-counter (query 'op') 'n'}}"), false, 'a computed operation may write');
  assert.equal(compileTemplate('{{body "x"}}').state, undefined);
});
