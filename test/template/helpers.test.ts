/** Each template helper, rendered for real (SPEC §6). */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { compileTemplate, loadFakeData, type TemplateInput } from '../../src/template/index.js';

export const INPUT: TemplateInput = {
  method: 'POST',
  path: '/users/7?x=1&x=2&q=hi',
  pathname: '/users/7',
  headers: { cookie: 'a=1; sid=abc', 'x-env': 'Prod' },
  query: { x: ['1', '2'], q: 'hi' },
  body: { user: { name: 'Ada', tags: ['a', 'b'] }, list: [{ sku: 'S1' }] },
  pathParams: { id: '7' },
  locale: 'en',
  now: Date.UTC(2026, 0, 2, 3, 4, 5),
};

export function render(source: string, input: Partial<TemplateInput> = {}) {
  const r = compileTemplate(source).render({ ...INPUT, ...input });
  assert.ok(r.ok, JSON.stringify(r));
  return r;
}
const text = (source: string, input: Partial<TemplateInput> = {}) => render(source, input).text;

before(loadFakeData);

const CASES: [string, string][] = [
  ["{{body 'user.name'}}", 'Ada'],
  ["{{body 'user.tags.1'}}", 'b'],
  ["{{body 'list.0.sku'}}", 'S1'],
  ["{{body 'user.missing' 'none'}}", 'none'],
  ["{{body 'user.missing'}}", ''],
  ["{{{body 'user.tags'}}}", '["a","b"]'],
  ["{{queryParam 'q'}}", 'hi'],
  ["{{queryParam 'x.1'}}", '2'],
  ["{{queryParam 'nope' 'dflt'}}", 'dflt'],
  ["{{header 'X-Env'}}", 'Prod'],
  ["{{header 'nope' 'd'}}", 'd'],
  ["{{pathParam 'id'}}", '7'],
  ["{{pathParam 'nope' 'd'}}", 'd'],
  ["{{cookie 'sid'}}", 'abc'],
  ["{{cookie 'none' 'd'}}", 'd'],
  ['{{method}}', 'POST'],
  ['{{path}}', '/users/7'],
  ['{{now}}', '2026-01-02T03:04:05.000Z'],
  ["{{now 'iso'}}", '2026-01-02T03:04:05.000Z'],
  ["{{now 'utc'}}", 'Fri, 02 Jan 2026 03:04:05 GMT'],
  ["{{now 'epoch'}}", String(Date.UTC(2026, 0, 2, 3, 4, 5) / 1000)],
  ["{{now 'iso' '+1d'}}", '2026-01-03T03:04:05.000Z'],
  ["{{now offset='-2h'}}", '2026-01-02T01:04:05.000Z'],
  ["{{#if (eq (queryParam 'q') 'hi')}}yes{{else}}no{{/if}}", 'yes'],
  ['{{#if (ne 1 1)}}yes{{else}}no{{/if}}', 'no'],
  ['{{#each (array 1 2 3)}}{{this}}{{#unless @last}},{{/unless}}{{/each}}', '1,2,3'],
  ['{{#repeat 3}}x{{/repeat}}', 'xxx'],
  ["{{#repeat 3 separator=','}}{{@index}}{{/repeat}}", '0,1,2'],
  [
    "{{#switch (queryParam 'q')}}{{#case 'no'}}N{{/case}}{{#case 'x' 'hi'}}H{{/case}}{{#default}}D{{/default}}{{/switch}}",
    'H',
  ],
  ["{{#switch 'zz'}}{{#case 'a'}}A{{/case}}{{#default}}D{{/default}}{{/switch}}", 'D'],
  ['{{gt 10 9}} {{gte 2 2}} {{lt 1 2}} {{lte 3 2}}', 'true true true false'],
  ['{{and true 1 "x"}} {{or false 0 "y"}} {{not false}}', 'true true true'],
  ["{{len (body 'user.tags')}} {{len 'abcd'}} {{len (object a=1 b=2)}}", '2 4 2'],
  ["{{{json (object id=1 name='x')}}}", '{"id":1,"name":"x"}'],
  ["{{{json (array 'a' 2)}}}", '["a",2]'],
  ["{{lowercase (header 'x-env')}} {{uppercase 'abc'}}", 'prod ABC'],
  ["{{concat 'a' 1 'b'}}", 'a1b'],
  ["{{contains 'haystack' 'st'}} {{contains (body 'user.tags') 'c'}}", 'true false'],
  ['{{faker "random.uuid"}}'.replace('random.uuid', 'nope.nope'), ''],
];

for (const [source, expected] of CASES) {
  test(`${source} → ${JSON.stringify(expected)}`, () => {
    assert.equal(text(source), expected);
  });
}

test('{{…}} HTML-escapes and {{{…}}} does not', () => {
  assert.equal(text("{{body 'b'}}|{{{body 'b'}}}", { body: { b: '<a&b>' } }), '&lt;a&amp;b&gt;|<a&b>');
});

test('repeat with a minimum and a maximum renders a count between them', () => {
  for (let i = 0; i < 20; i++) {
    const n = text('{{#repeat 2 4}}x{{/repeat}}').length;
    assert.ok(n >= 2 && n <= 4, String(n));
  }
});

test('faker: current names, arguments as strings, JSON-ish objects and hash arguments', () => {
  assert.match(text("{{faker 'string.uuid'}}"), /^[0-9a-f-]{36}$/);
  for (let i = 0; i < 20; i++) {
    const a = Number(text("{{faker 'number.int' min=5 max=9}}"));
    const b = Number(text("{{faker 'random.number' '{min:5, max:9}'}}"));
    assert.ok(a >= 5 && a <= 9 && b >= 5 && b <= 9, `${a} ${b}`);
  }
  const d = new Date(text("{{faker 'date.between' '2020-01-01' '2020-12-31'}}"));
  assert.ok(d.getUTCFullYear() === 2020, d.toISOString());
  const past = new Date(text("{{faker 'date.past' '2'}}")).getTime();
  assert.ok(past < Date.now() && past > Date.now() - 2 * 366 * 86_400_000);
  assert.match(text("{{faker 'image.cats'}}"), /^https:\/\/loremflickr\.com\/640\/480\/cats$/);
  assert.match(text("{{faker 'image.image'}}"), /^https:\/\/loremflickr\.com\/640\/480\/[a-z]+$/);
});

test("the endpoint's locale picks faker's locale", () => {
  const names = (locale: string) =>
    new Set(Array.from({ length: 30 }, () => text("{{faker 'location.country'}}", { locale })));
  const de = names('de');
  const en = names('en');
  assert.ok(
    [...de].some((c) => !en.has(c)),
    'German country names differ from English ones',
  );
  const r = render("{{faker 'person.firstName'}}", { locale: 'xx_YY' });
  assert.ok(r.problems.some((p) => /no locale "xx_YY"/.test(p)));
});

test('faker names found once per instance: unknown names, names built from the request and guarded ones behave alike every time', () => {
  // The methods found are kept per faker instance and name (helpers/faker.ts), in a bounded table:
  // a template that builds names from the request must not grow it without end, nor break later calls.
  const dynamic = compileTemplate("{{faker (queryParam 'n')}}");
  for (let i = 0; i < 1100; i++) {
    const r = dynamic.render({ ...INPUT, query: { n: `person.nope${i}` } });
    assert.ok(r.ok);
    assert.equal(r.text, '');
    assert.deepEqual(r.problems, [`faker: unknown attribute "person.nope${i}"`]);
  }
  for (let i = 0; i < 3; i++) {
    const known = dynamic.render({ ...INPUT, query: { n: 'person.firstName' } });
    assert.ok(known.ok);
    assert.match(known.text, /^\S+/);
    assert.equal(text("{{faker 'person.constructor'}}"), '', 'still refused once looked up');
    assert.equal(text("{{faker 'helpers.constructor'}}"), '');
  }
});

test("a faker method found for one locale is not reused for another: each renders its own locale's data", () => {
  // Triple braces: a name such as D'Angelo is not HTML-escaped (which `{{…}}` would write D&#x27;Angelo).
  const names = (locale: string) =>
    Array.from({ length: 20 }, () => text("{{{faker 'person.firstName'}}}", { locale }));
  for (const round of [1, 2]) {
    for (const n of names('en')) assert.match(n, /^[A-Za-z' .-]+$/, `en, round ${round}`);
    for (const n of names('ru')) assert.match(n, /[А-Яа-яЁё]/, `ru, round ${round}`);
  }
});
