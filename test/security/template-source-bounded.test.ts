/**
 * @runs-alone: it times the event loop, so scripts/run-tests.mjs runs it after the other files, by itself.
 * Stops: a template whose parse and compile froze every tenant (issue 30, item 2). 20,000 nested
 * `{{#if 1}}` held the event loop for 7 min 16 s on the first request after the save, 80,000
 * mustaches for 8.2 s. A template is measured in one linear pass before Handlebars sees it: over
 * TEMPLATE_MAX_BYTES, TEMPLATE_MAX_MUSTACHES or TEMPLATE_MAX_NESTING it is refused when saved (400),
 * through the API and a mocks-as-code file alike, and one stored before the bounds answers 561 fast.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SOURCE_LIMITS, templateSourceProblem } from '../../src/template/index.js';
import { ConfigFileError, loadConfigFile } from '../../src/config-file/index.js';
import { startApp } from '../helpers/app.js';
import { useApp } from '../helpers/endpoint.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { probeWhile } from '../helpers/probe.js';
import { tempFiles } from '../config-file/helpers.js';

const limits = { maxBytes: 100, maxMustaches: 5, maxNesting: 3 };
const nested = (n: number, inner = 'x') => '{{#if 1}}'.repeat(n) + inner + '{{/if}}'.repeat(n);

test('templateSourceProblem: bytes, mustaches and nesting at limit - 1, limit and limit + 1', () => {
  assert.equal(templateSourceProblem('a'.repeat(99), limits), undefined);
  assert.equal(templateSourceProblem('a'.repeat(100), limits), undefined);
  assert.match(templateSourceProblem('a'.repeat(101), limits)!, /101 bytes.*TEMPLATE_MAX_BYTES/);
  // Bytes are UTF-8 bytes: 50 two-byte characters are 100 bytes, 51 are 102.
  assert.equal(templateSourceProblem('é'.repeat(50), limits), undefined);
  assert.match(templateSourceProblem('é'.repeat(51), limits)!, /TEMPLATE_MAX_BYTES/);

  assert.equal(templateSourceProblem('{{a}}'.repeat(4), limits), undefined);
  assert.equal(templateSourceProblem('{{a}}'.repeat(5), limits), undefined);
  assert.match(
    templateSourceProblem('{{a}}'.repeat(6), limits)!,
    /more than 5 mustaches.*TEMPLATE_MAX_MUSTACHES/,
  );

  const wide = { ...limits, maxBytes: 10_000, maxMustaches: 100 };
  assert.equal(templateSourceProblem(nested(2), wide), undefined);
  assert.equal(templateSourceProblem(nested(3), wide), undefined);
  assert.match(templateSourceProblem(nested(4), wide)!, /more than 3 deep.*TEMPLATE_MAX_NESTING/);
  // Blocks one after the other are not nested.
  assert.equal(templateSourceProblem(nested(3).repeat(5), wide), undefined);
  // Subexpressions count with the blocks around them.
  assert.equal(templateSourceProblem('{{#if 1}}{{a (b (c 1))}}{{/if}}', wide), undefined);
  assert.match(templateSourceProblem('{{#if 1}}{{a (b (c (d 1)))}}{{/if}}', wide)!, /TEMPLATE_MAX_NESTING/);
  // An else-if chain nests as Handlebars nests it; a plain else does not.
  assert.equal(templateSourceProblem('{{#if a}}{{else if b}}{{else if c}}{{/if}}', wide), undefined);
  assert.match(
    templateSourceProblem('{{#if a}}{{else if b}}{{else if c}}{{else if d}}{{/if}}', wide)!,
    /TEMPLATE_MAX_NESTING/,
  );
  assert.equal(templateSourceProblem('{{#if a}}{{else}}{{^}}{{/if}}'.repeat(3), wide), undefined);
  // Parentheses in strings and comments are text; a comment's mustaches do not count.
  assert.equal(templateSourceProblem('{{a \'((((((\' ")))((("}}', wide), undefined);
  assert.equal(templateSourceProblem('{{!-- {{#if}}{{#if}}{{#if}}{{#if}} }} ((((( --}}x', wide), undefined);
  assert.equal(templateSourceProblem('{{! ((((( }}' + '{{a}}'.repeat(5), limits), undefined);
});

test('the breaking inputs are refused when saved, fast, with a 400 naming the setting', async (t) => {
  const app = await useApp(t, {}, { listen: true });
  await createEndpoint(app, 'shop');
  await createEndpoint(app, 'probe');
  const rule = (body: string) => ({
    conditions: [{ type: 'path', operator: 'equals', value: '/t' }],
    action: { type: 'mock', templated: true, body },
  });
  for (const [body, setting] of [
    [nested(20_000), /TEMPLATE_MAX_NESTING/],
    ['{{method}}'.repeat(80_000), /TEMPLATE_MAX_MUSTACHES/],
  ] as const) {
    const started = performance.now();
    const { result, probe } = await probeWhile(
      `${app.url}/e/probe/`,
      call(app, 'POST', '/endpoints/shop/rules', rule(body)),
    );
    const ms = performance.now() - started;
    assert.equal(result.status, 400, result.text);
    assert.equal(result.body.error.code, 'validation_error');
    assert.equal(result.body.error.details[0].path, '/action/body');
    assert.match(result.body.error.details[0].message, setting);
    assert.ok(ms < 2000, `refused in ${ms} ms`);
    assert.ok(probe.served >= 1 && probe.slowestMs < 500, JSON.stringify(probe));
  }
  // A templated header value and a callout's templates are checked the same way.
  const header = {
    conditions: [{ type: 'path', operator: 'equals', value: '/h' }],
    action: { type: 'mock', headers: [{ key: 'x-t', value: nested(40), templated: true }] },
  };
  const h = await call(app, 'POST', '/endpoints/shop/rules', header);
  assert.equal(h.status, 400);
  assert.equal(h.body.error.details[0].path, '/action/headers/0/value');
  // Not templated: the same text is a body like any other.
  const plain = await call(app, 'POST', '/endpoints/shop/rules', {
    ...rule(nested(40)),
    action: { type: 'mock', body: nested(40) },
  });
  assert.equal(plain.status, 201, plain.text);
  assert.equal((await call(app, 'GET', '/endpoints/shop/rules')).body.data.length, 1);
});

test('TEMPLATE_MAX_MUSTACHES and TEMPLATE_MAX_NESTING through the API at limit - 1, limit and limit + 1', async (t) => {
  const app = await startApp(
    { templateMaxMustaches: 10, templateMaxNesting: 4, templateMaxBytes: 2048 },
    { listen: true },
  );
  t.after(() => app.stop());
  await createEndpoint(app, 'shop');
  const save = (body: string) =>
    call(app, 'PUT', '/endpoints/shop/rules', {
      rules: [
        {
          conditions: [{ type: 'path', operator: 'equals', value: '/t' }],
          action: { type: 'mock', templated: true, body },
        },
      ],
    });
  assert.equal((await save('{{method}}'.repeat(9))).status, 200);
  assert.equal((await save('{{method}}'.repeat(10))).status, 200);
  const over = await save('{{method}}'.repeat(11));
  assert.equal(over.status, 400);
  assert.equal(over.body.error.details[0].path, '/rules/0/action/body');
  assert.equal((await save(nested(3))).status, 200);
  assert.equal((await save(nested(4))).status, 200);
  assert.equal((await save(nested(5))).status, 400);
  assert.equal((await save('a'.repeat(2047))).status, 200);
  assert.equal((await save('a'.repeat(2048))).status, 200);
  assert.match((await save('a'.repeat(2049))).body.error.details[0].message, /TEMPLATE_MAX_BYTES/);
  // What was saved last within the limits answers.
  const r = await fetch(`${app.url}/e/shop/t`);
  assert.equal((await r.text()).length, 2048);
});

test("TEMPLATE_MAX_MUSTACHES and TEMPLATE_MAX_BYTES hold for a rule's templates together", async (t) => {
  const app = await useApp(t, { templateMaxMustaches: 10 });
  await createEndpoint(app, 'shop');
  const response = (n: number) => ({ weight: 50, templated: true, body: '{{method}}'.repeat(n) });
  const weighted = (a: number, b: number) => ({
    conditions: [{ type: 'path', operator: 'equals', value: '/w' }],
    action: { type: 'weighted', responses: [response(a), response(b)] },
  });
  assert.equal((await call(app, 'POST', '/endpoints/shop/rules', weighted(5, 5))).status, 201);
  const over = await call(app, 'POST', '/endpoints/shop/rules', weighted(5, 6));
  assert.equal(over.status, 400);
  assert.equal(over.body.error.details[0].path, '/action');
  assert.match(over.body.error.details[0].message, /rule's templates together has more than 10 mustaches/);
  // Templated headers count with the body.
  const headers = {
    conditions: [{ type: 'path', operator: 'equals', value: '/h' }],
    action: {
      type: 'mock',
      templated: true,
      body: '{{method}}'.repeat(10),
      headers: [{ key: 'x-a', value: '{{method}}', templated: true }],
    },
  };
  assert.equal((await call(app, 'POST', '/endpoints/shop/rules', headers)).status, 400);
});

test('a mocks-as-code file with a template over the bounds is refused, naming the field', async (t) => {
  const app = await useApp(t, { templateMaxNesting: 4 });
  const yaml = `endpoints:
  orders:
    rules:
      - conditions:
          - { type: path, operator: equals, value: /a }
        action:
          type: mock
          templated: true
          body: "${nested(5)}"
`;
  const file = join(tempFiles({ 'm.yaml': yaml }), 'm.yaml');
  const err = await loadConfigFile(app.ctx, file).then(
    () => assert.fail('loaded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConfigFileError, String(err));
  assert.match(err.message, /\/endpoints\/orders\/rules\/0\/action\/body: .*TEMPLATE_MAX_NESTING/);
  assert.equal(await app.ctx.store.getEndpoint('orders'), undefined);
});

test('a template stored before the bounds answers 561 naming the bound, fast, and other clients are served', async (t) => {
  const app = await useApp(t, {}, { listen: true });
  await createEndpoint(app, 'shop');
  await createEndpoint(app, 'probe');
  // Written to the store directly, as a rule saved by an earlier version would be.
  await app.ctx.store.replaceRules('shop', [
    {
      id: 'old',
      data: {
        enabled: true,
        method: '*',
        description: '',
        conditions: [{ type: 'path', operator: 'equals', value: '/t' }],
        action: { type: 'mock', status: 200, headers: [], templated: true, body: nested(20_000) },
      },
    },
  ]);
  const started = performance.now();
  const { result, probe } = await probeWhile(
    `${app.url}/e/probe/`,
    fetch(`${app.url}/e/shop/t`).then(async (r) => ({ status: r.status, text: await r.text() })),
  );
  const ms = performance.now() - started;
  assert.equal(result.status, 561);
  assert.match(result.text, /more than 32 deep \(TEMPLATE_MAX_NESTING\)/);
  assert.ok(ms < 2000, `answered in ${ms} ms`);
  assert.ok(probe.served >= 1 && probe.slowestMs < 500, JSON.stringify(probe));
  assert.equal(SOURCE_LIMITS.maxNesting, 32);
});
