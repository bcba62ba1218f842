/**
 * What a faker call will make, judged from its arguments BEFORE it runs. Faker's generators loop
 * over the sizes they are given (`string.alpha 100000000` held the event loop for 21.8 s, and a size
 * may come from the request: `(queryParam 'count')`), and the output cap is checked only after a
 * helper returns. The faker helper charges this estimate to the render's fake-data budget
 * (TEMPLATE_MAX_FAKE_DATA) first, and a call over what is left is not made (561).
 *
 * A method sizes its output when it is one of `string.*`, `lorem.*`, `word.*`, `helpers.*` or listed
 * below; every number in its arguments (positional, in an options object such as `{ length: { min,
 * max } }` or `{ count }`, a numeric string, and for `helpers.*` each number written in a pattern
 * such as `fromRegExp('[a-z]{5}')`) is a count of units, and the estimate is their sum times the
 * characters a unit makes at least as faker writes it; a `helpers.*` text argument (a pattern, a text
 * to slugify) adds its own length, which its output and work follow. Other methods (`number.int`, `date.past`,
 * `image.dataUri`) take values, not sizes: their cost does not grow with their arguments.
 */

const SIZED_NAMESPACES = new Set(['string', 'lorem', 'word', 'helpers']);

/** Characters one unit makes, for methods whose unit is more than a character. */
const UNIT: Readonly<Record<string, number>> = {
  'lorem.words': 8,
  'lorem.slug': 8,
  'lorem.sentence': 8,
  'word.words': 8,
  'random.words': 8,
  'lorem.sentences': 60,
  'lorem.lines': 60,
  'lorem.paragraph': 60,
  'lorem.paragraphs': 400,
  'date.betweens': 25,
  'system.fileName': 5,
  // A pattern calls other methods: `{{lorem.paragraphs(100)}}` is 100 paragraphs.
  'helpers.fake': 400,
};

/** Methods outside SIZED_NAMESPACES whose numbers are sizes (the seed's names among them). */
const SIZED_METHODS = new Set([
  'internet.password',
  'finance.accountNumber',
  'finance.pin',
  'finance.maskedNumber',
  'finance.account',
  'finance.mask',
  'git.commitSha',
  'system.fileName',
  'airline.flightNumber',
  'date.betweens',
  'random.words',
  'random.alphaNumeric',
]);

const NUMBER_IN_TEXT = /\d+/g;

/** The sum of the sizes in `v`: numbers, numeric strings, numbers in patterns, options' fields. */
function sizes(v: unknown, patterns: boolean, depth: number): number {
  if (typeof v === 'number') return Number.isNaN(v) ? 0 : Math.abs(v);
  if (typeof v === 'string') {
    const t = v.trim();
    if (t !== '' && Number.isFinite(Number(t))) return Math.abs(Number(t));
    if (!patterns) return 0;
    let n = 0;
    for (const m of v.matchAll(NUMBER_IN_TEXT)) n += Number(m[0]);
    return n;
  }
  // An array is data to pick from (`helpers.arrayElement`): its cost is its length, already paid.
  if (v === null || typeof v !== 'object' || Array.isArray(v) || depth > 3) return 0;
  let n = 0;
  for (const field of Object.values(v)) n += sizes(field, patterns, depth + 1);
  return n;
}

/** The characters a call of faker method `name` (`namespace.method`) with `args` may make; 0: not sized. */
export function fakerCost(name: string, args: readonly unknown[]): number {
  const ns = name.slice(0, name.indexOf('.'));
  if (!SIZED_NAMESPACES.has(ns) && !SIZED_METHODS.has(name)) return 0;
  const patterns = ns === 'helpers';
  let units = 0;
  let text = 0;
  for (const a of args) {
    units += sizes(a, patterns, 0);
    if (patterns && typeof a === 'string') text += a.length;
  }
  return units * (UNIT[name] ?? 1) + text;
}
