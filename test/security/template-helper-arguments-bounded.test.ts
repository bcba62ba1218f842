/**
 * @runs-alone: it times the event loop, so scripts/run-tests.mjs runs it after the other files, by itself.
 * Stops: helper arguments that chose the cost of a render (issue 30, item 3). `{{faker 'string.alpha'
 * 100000000}}` held the event loop for 21.8 s on every request, and `{{faker 'lorem.words' (queryParam
 * 'count')}}` let any client choose the cost: the output and loop caps are checked only after a helper
 * returns. A faker call's size arguments are estimated before the call and charged to the render's
 * TEMPLATE_MAX_FAKE_DATA budget; a call past it is not made (561). `concat` checks the output cap
 * before it joins.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTemplate, loadFakeData, type TemplateInput } from '../../src/template/index.js';
import { fakerCost } from '../../src/template/helpers/faker-cost.js';
import { useApp } from '../helpers/endpoint.js';
import { call, createEndpoint } from '../helpers/api-helpers.js';
import { probeWhile } from '../helpers/probe.js';

const INPUT: TemplateInput = {
  method: 'GET',
  path: '/',
  pathname: '/',
  headers: {},
  query: {},
  body: { big: 'x'.repeat(200_000) },
  pathParams: {},
  locale: 'en',
  now: 0,
};

before(loadFakeData);

test('fakerCost: sizes from counts, lengths, options objects and patterns; values are not sizes', () => {
  assert.equal(fakerCost('string.alpha', [100_000_000]), 100_000_000);
  assert.equal(
    fakerCost('string.alpha', [Object.assign(Object.create(null), { length: { min: 1, max: 9 } })]),
    10,
  );
  assert.equal(fakerCost('string.numeric', ['12']), 12);
  assert.equal(fakerCost('lorem.words', [{ min: 1, max: 3 }]), 32);
  assert.equal(fakerCost('lorem.paragraphs', [2]), 800);
  assert.equal(fakerCost('internet.password', [{ length: 50 }]), 50);
  assert.equal(fakerCost('date.betweens', [{ from: '2020-01-01', to: '2021-01-01', count: 4 }]), 100);
  assert.equal(fakerCost('helpers.fromRegExp', ['a{1000}']), 1007);
  assert.equal(fakerCost('helpers.fake', ['{{lorem.words(5)}}']), 5 * 400 + 18);
  assert.equal(fakerCost('string.alpha', [Infinity]), Infinity);
  // Values, not sizes.
  assert.equal(fakerCost('number.int', [{ min: 0, max: 1e12 }]), 0);
  assert.equal(fakerCost('date.past', [{ years: 1e9 }]), 0);
  assert.equal(fakerCost('person.firstName', ['female']), 0);
  // An array is data to pick from.
  assert.equal(fakerCost('helpers.arrayElement', [[1e9, 2e9]]), 0);
});

test('TEMPLATE_MAX_FAKE_DATA at limit - 1, limit and limit + 1, for one call and for a render', () => {
  const run = (source: string) => compileTemplate(source, { maxFakeData: 1000 }).render(INPUT);
  const ok = (source: string, length: number) => {
    const r = run(source);
    assert.ok(r.ok, source);
    assert.equal(r.text.length, length, source);
  };
  ok("{{faker 'string.alpha' 999}}", 999);
  ok("{{faker 'string.alpha' 1000}}", 1000);
  const over = run("{{faker 'string.alpha' 1001}}");
  assert.ok(!over.ok);
  assert.match(
    over.error,
    /faker 'string\.alpha' asks for about 1001 characters.*at most 1000 \(TEMPLATE_MAX_FAKE_DATA\)/,
  );
  // The budget is the render's: the calls of a loop add up.
  ok("{{#repeat 2}}{{faker 'string.alpha' 500}}{{/repeat}}", 1000);
  assert.ok(!run("{{#repeat 3}}{{faker 'string.alpha' 500}}{{/repeat}}").ok);
  // Options objects and hash arguments are sizes too.
  assert.ok(!run("{{faker 'string.alpha' '{length: {min: 1, max: 100000000}}'}}").ok);
  assert.ok(!run("{{faker 'string.alpha' length=100000000}}").ok);
  assert.ok(!run("{{faker 'lorem.words' 200}}").ok);
  const words = run("{{faker 'lorem.words' 3}}");
  assert.equal(words.ok && words.text.split(' ').length, 3);
  // Never more than the output cap, whatever the setting says.
  assert.ok(
    !compileTemplate("{{faker 'string.alpha' 2000}}", { maxFakeData: 1_000_000, maxOutput: 1000 }).render(
      INPUT,
    ).ok,
  );
  // Methods whose numbers are values are not charged.
  ok("{{faker 'number.int' '{min: 5, max: 5}'}}", 1);
});

test("TEMPLATE_MAX_LOOP_WORK: iterations times the template's mustaches, at limit - 1, limit and limit + 1", () => {
  // 4 mustaches: `{{#repeat}}`, `{{/repeat}}` and two inside; each iteration costs 4.
  const source = (n: number) => `{{#repeat ${n}}}{{x}}{{y}}{{/repeat}}`;
  const run = (n: number) => compileTemplate(source(n), { maxLoopWork: 40 }).render(INPUT);
  assert.ok(run(9).ok);
  assert.ok(run(10).ok);
  const over = run(11);
  assert.ok(!over.ok);
  assert.match(
    over.error,
    /loops ran more than 40 iterations times its 4 mustaches \(TEMPLATE_MAX_LOOP_WORK\)/,
  );
  // each counts the same way.
  assert.ok(
    !compileTemplate('{{#each (array 1 2 3 4 5 6 7 8 9 10 11)}}{{x}}{{y}}{{/each}}', {
      maxLoopWork: 40,
    }).render(INPUT).ok,
  );
});

test('concat checks the output cap before it joins: a subexpression cannot build a huge text', () => {
  const source = `{{len (concat ${"(body 'big') ".repeat(10)})}}`;
  const r = compileTemplate(source).render(INPUT);
  assert.ok(!r.ok);
  assert.match(r.error, /more than 1048576 characters/);
  const small = compileTemplate(`{{len (concat ${"(body 'big') ".repeat(5)})}}`).render(INPUT);
  assert.deepEqual(small.ok && small.text, '1000000');
});

test('the breaking inputs answer 561 quickly, and a client from 127.0.0.2 is served meanwhile', async (t) => {
  const app = await useApp(t, {}, { listen: true });
  await createEndpoint(app, 'shop');
  await createEndpoint(app, 'probe');
  const rule = (path: string, body: string) => ({
    conditions: [{ type: 'path', operator: 'equals', value: path }],
    action: { type: 'mock', templated: true, body },
  });
  assert.equal(
    (await call(app, 'POST', '/endpoints/shop/rules', rule('/alpha', "{{faker 'string.alpha' 100000000}}")))
      .status,
    201,
  );
  assert.equal(
    (
      await call(
        app,
        'POST',
        '/endpoints/shop/rules',
        rule('/words', "{{faker 'lorem.words' (queryParam 'count')}}"),
      )
    ).status,
    201,
  );
  // A repeat count from the query over a block of 490 mustaches that print nothing: 0.6 s before.
  const empty = `{{#repeat (queryParam 'n')}}${'{{x}}'.repeat(490)}{{/repeat}}`;
  assert.equal((await call(app, 'POST', '/endpoints/shop/rules', rule('/loop', empty))).status, 201);
  // Compiled (and faker loaded) before the clock starts.
  assert.equal((await fetch(`${app.url}/e/shop/words?count=2`)).status, 200);

  for (const path of ['/alpha', '/words?count=100000000', '/words?count=1e9', '/loop?n=10000', '/alpha']) {
    const started = performance.now();
    const { result, probe } = await probeWhile(
      `${app.url}/e/probe/`,
      fetch(`${app.url}/e/shop${path}`).then(async (r) => ({ status: r.status, text: await r.text() })),
    );
    const ms = performance.now() - started;
    assert.equal(result.status, 561, `${path}: ${result.text}`);
    assert.match(result.text, /TEMPLATE_MAX_FAKE_DATA|TEMPLATE_MAX_LOOP_WORK/);
    assert.ok(ms < 1000, `${path} answered in ${ms} ms`);
    assert.ok(probe.served >= 1 && probe.slowestMs < 500, JSON.stringify(probe));
  }
  const five = await fetch(`${app.url}/e/shop/words?count=5`);
  assert.equal(five.status, 200);
  assert.equal((await five.text()).split(' ').length, 5);
});
