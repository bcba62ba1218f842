/**
 * What templates must never do (SPEC §6): reach prototypes or run code, loop or grow without bound,
 * or break a response on a recoverable mistake. Tests are named after what they stop.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileTemplate,
  isSafeHeaderValue,
  loadFakeData,
  type TemplateInput,
} from '../../src/template/index.js';

const INPUT: TemplateInput = {
  method: 'GET',
  path: '/',
  pathname: '/',
  headers: {},
  query: { q: 'x' },
  body: { a: { b: 1 } },
  pathParams: {},
  locale: 'en',
  now: 0,
};
const run = (source: string, limits = {}) => compileTemplate(source, limits).render(INPUT);

before(loadFakeData);

test('prototype access: constructor, __proto__ and lookup tricks render nothing and run nothing', () => {
  for (const source of [
    '{{constructor.name}}',
    '{{__proto__}}',
    '{{this.constructor}}',
    '{{lookup this "constructor"}}',
    '{{#with (lookup this "constructor")}}{{name}}{{/with}}',
    '{{#with (body "a")}}{{constructor.name}}{{__proto__.toString}}{{/with}}',
    '{{lookup (body "a") "__proto__"}}',
    "{{faker 'constructor.constructor'}}",
    "{{faker 'person.constructor'}}",
    "{{faker 'helpers.constructor'}}",
    "{{faker 'person.__proto__'}}",
    "{{#with (lookup (lookup this 'constructor') 'constructor')}}{{this 'return process'}}{{/with}}",
  ]) {
    const r = run(source);
    assert.ok(r.ok, source);
    assert.equal(r.text, '', `${source} rendered ${JSON.stringify(r.text)}`);
  }
});

test('no code runs: the log helper is gone and helpers get no global objects', () => {
  const r = run('{{log "x"}}{{process}}{{global}}{{require "fs"}}');
  assert.ok(r.ok);
  assert.equal(r.text, '');
});

test('loop bombs: 100,000,000 repeats answer an error within the iteration budget, fast', () => {
  const started = Date.now();
  const r = run('{{#repeat 100000000}}x{{/repeat}}');
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.error : '', /more than 10000 loop iterations/);
  assert.ok(Date.now() - started < 1000);
});

test('nested loops count together against one budget', () => {
  const r = run('{{#repeat 200}}{{#repeat 200}}x{{/repeat}}{{/repeat}}');
  assert.equal(r.ok, false);
  const each = run(
    '{{#repeat 101}}{{#each (array 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99)}}{{this}}{{/each}}{{/repeat}}',
  );
  assert.equal(each.ok, false);
});

test('iteration budget: limit − 1, limit and limit + 1', () => {
  const limits = { maxIterations: 100 };
  assert.equal(run('{{#repeat 99}}x{{/repeat}}', limits).ok, true);
  assert.equal(run('{{#repeat 100}}x{{/repeat}}', limits).ok, true);
  assert.equal(run('{{#repeat 101}}x{{/repeat}}', limits).ok, false);
});

test('output bombs: a render over the output limit is an error, not a huge answer', () => {
  const limits = { maxOutput: 1000 };
  assert.equal(run('{{#repeat 10}}' + 'x'.repeat(99) + '{{/repeat}}', limits).ok, true);
  assert.equal(run('{{#repeat 10}}' + 'x'.repeat(100) + '{{/repeat}}', limits).ok, true);
  const over = run('{{#repeat 10}}' + 'x'.repeat(101) + '{{/repeat}}', limits);
  assert.equal(over.ok, false);
  assert.match(!over.ok ? over.error : '', /more than 1000 characters/);
});

test('unknown helpers, unknown block helpers and throwing helpers render empty and are noted', () => {
  const r = run('a{{nope 1}}b{{#nada}}x{{/nada}}c{{now "iso" "+zz"}}');
  assert.ok(r.ok);
  assert.equal(r.text.slice(0, 3), 'abc');
  assert.ok(r.problems.some((p) => /unknown helper "nope"/.test(p)));
  assert.ok(r.problems.some((p) => /nada/.test(p)));
  assert.ok(r.problems.some((p) => /offset "\+zz"/.test(p)));
  const bad = run("{{faker 'date.between' 'not a date' 'neither'}}");
  assert.ok(bad.ok);
  assert.equal(bad.text, '');
  assert.ok(
    bad.problems.some((p) => /^faker:/.test(p)),
    JSON.stringify(bad.problems),
  );
});

test('a compiled template renders alike every time: guards, problems, budgets and request data hold on later renders', () => {
  // Handlebars' set-up of its helpers and prototype rules runs at a template's first render only
  // (engine.ts, templateOf): each later render must behave as the first did.
  const guarded = compileTemplate(
    '{{constructor.name}}{{lookup this "constructor"}}{{lookup (body "a") "__proto__"}}',
  );
  const noted = compileTemplate('a{{nope 1}}b{{#nada}}x{{/nada}}c');
  const looping = compileTemplate('{{#repeat 20000}}x{{/repeat}}');
  const echoing = compileTemplate(
    '{{#*inline "q"}}[{{queryParam "q"}}]{{/inline}}{{> q}}{{#each (array 1 2)}}{{this}}{{/each}}',
  );
  for (let i = 0; i < 3; i++) {
    const g = guarded.render(INPUT);
    assert.deepEqual(g, { ok: true, text: '', problems: [] }, `render ${i + 1}`);
    const n = noted.render(INPUT);
    assert.ok(n.ok);
    assert.equal(n.text, 'abc');
    // Noted afresh each time, and only once each.
    assert.deepEqual(
      n.problems,
      ['unknown helper "nope"', 'unknown helper "nada"', 'unknown block helper "nada"'],
      `render ${i + 1}`,
    );
    const l = looping.render(INPUT);
    assert.equal(l.ok, false, `render ${i + 1}: the loop budget holds`);
    const q = `call ${i}`;
    const e = echoing.render({ ...INPUT, query: { q } });
    assert.deepEqual(e, { ok: true, text: `[${q}]12`, problems: [] });
  }
});

test('syntax errors are recovered: the broken fragment is output as text, the rest still renders', () => {
  const r = run('{"q":"{{queryParam \'q\'}}", "broken": "{{#if}}"}');
  assert.ok(r.ok);
  assert.equal(r.text, '{"q":"x", "broken": "{{#if}}"}');
  assert.ok(r.problems.some((p) => /syntax error on line 1/.test(p)));
  const open = run('line one\n{{ unterminated');
  assert.ok(open.ok);
  assert.equal(open.text, 'line one\n{{ unterminated');
});

test('a template that cannot be recovered gives an error naming its line', () => {
  const r = run('ok\n{{#each (array 1)}}\n{{/if}}\n'.repeat(30));
  if (!r.ok) assert.match(r.error, /line \d+/);
  else assert.ok(r.problems.length > 0);
});

test('header values with CR, LF or NUL are not safe to send', () => {
  assert.equal(isSafeHeaderValue('fine value'), true);
  for (const v of ['a\r\nb', 'a\nb', 'a\rb', 'a\0b']) assert.equal(isSafeHeaderValue(v), false);
});
