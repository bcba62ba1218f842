/**
 * The state helpers as the template engine sees them (SPEC §6): which state a template names (read
 * before the render), the changes a render notes for the store, and a render without state.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTemplate, type TemplateInput } from '../../src/template/index.js';
import { StateSession } from '../../src/state/index.js';

const INPUT: TemplateInput = {
  method: 'POST',
  path: '/',
  pathname: '/',
  headers: {},
  query: {},
  body: { user: { name: 'Ada', tags: ['a', 'b'] } },
  pathParams: {},
  locale: 'en',
  now: 0,
};

const LIMITS = { maxItems: 10, maxKey: 256, maxValue: 1000, maxList: 5 };

test('a template names the state its helpers spell out; a computed name makes it dynamic; none: undefined', () => {
  assert.equal(compileTemplate('{{body "x"}} {{len "abc"}}').state, undefined);
  assert.deepEqual(
    compileTemplate(
      "{{step-counter 'inc' 'visits'}}{{#each (list 'get' 'cart')}}{{this}}{{/each}}{{#if (data-store 'get' 'mode')}}x{{/if}}{{step-counter 'get' 'visits'}}",
    ).state,
    {
      refs: [
        { type: 'counter', key: 'visits' },
        { type: 'list', key: 'cart' },
        { type: 'string', key: 'mode' },
      ],
      dynamic: false,
    },
  );
  assert.equal(compileTemplate("{{data-store 'get' (pathParam 'id')}}").state?.dynamic, true);
});

test('a render reads the snapshot, sees its own changes, and notes them in order for the store', () => {
  const session = new StateSession(
    { items: [{ type: 'counter', key: 'n', value: 4, lastModified: 0 }], count: 1 },
    LIMITS,
  );
  const t = compileTemplate(
    "{{step-counter 'inc' 'n'}} {{step-counter 'inc' 'n' 2}} {{list 'push' 'l' 'a'}}{{list 'push' 'l' (body 'user')}}{{list 'length' 'l'}} {{{list 'pop' 'l'}}}",
  );
  const r = t.render({ ...INPUT, state: session });
  assert.ok(r.ok);
  assert.equal(r.text, '5 7 2 {"name":"Ada","tags":["a","b"]}');
  assert.deepEqual(
    session.ops.map((o) => o.op),
    ['add', 'add', 'push', 'push', 'pop'],
  );
});

test('without state (a render outside a rule), a state helper renders empty and says why', () => {
  const r = compileTemplate("[{{step-counter 'inc' 'n'}}]").render(INPUT);
  assert.ok(r.ok);
  assert.equal(r.text, '[]');
  assert.match(r.problems.join(), /step-counter: endpoint state is not available here/);
});
