/**
 * `{{faker 'namespace.attribute' arg…}}`: fake data from @faker-js/faker in the endpoint's locale.
 * The seed's (old) names are mapped (faker-names.ts); current names (`person.firstName`) are called on
 * the faker instance, found by walking its own modules and their class methods only, so a template
 * can never reach `constructor`, a prototype or anything but a faker method. Arguments: plain values,
 * JSON-ish objects (`'{min:5, max:9}'`), or hash arguments (`min=5 max=9`).
 */
import { SEED_NAMES } from '../faker-names.js';
import { fakerCost } from './faker-cost.js';
import { argsOf, stateOf, toText } from '../state.js';

const NAME = /^([a-z][A-Za-z0-9]*)\.([a-z][A-Za-z0-9]*)$/;

/** `{min:5, max:9}` or `{"min":5}` as an object; other text as it is (numbers as numbers). */
export function parseArgument(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (t.startsWith('{') && t.endsWith('}')) {
    const json = t.replace(/([{,]\s*)([A-Za-z_$][\w$]*)\s*:/g, '$1"$2":').replace(/'/g, '"');
    try {
      const o: unknown = JSON.parse(json);
      if (o !== null && typeof o === 'object') return Object.assign(Object.create(null), o) as object;
    } catch {
      return v;
    }
  }
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  return v;
}

function currentMethod(f: object, ns: string, name: string): Method | undefined {
  if (name === 'constructor' || !Object.hasOwn(f, ns)) return undefined;
  const mod = (f as Record<string, unknown>)[ns];
  if (mod === null || typeof mod !== 'object') return undefined;
  for (
    let p = Object.getPrototypeOf(mod) as object | null;
    p && p !== Object.prototype;
    p = Object.getPrototypeOf(p) as object | null
  ) {
    if (Object.hasOwn(p, name)) {
      const fn = (p as Record<string, unknown>)[name];
      return typeof fn === 'function' ? (fn as Method).bind(mod) : undefined;
    }
  }
  return undefined;
}

type Method = (...a: unknown[]) => unknown;

/**
 * Each faker instance's methods by name, once found (`null`: the name is not one of its methods):
 * walking the prototypes and binding the method took about half of a `{{faker 'person.firstName'}}`
 * call. Bounded, since a template may build names from the request: past MAX_METHODS names an
 * instance's table starts again.
 */
const methods = new WeakMap<object, Map<string, Method | null>>();
const MAX_METHODS = 1000;

function methodOf(f: object, name: string, ns: string, attr: string): Method | undefined {
  let byName = methods.get(f);
  if (!byName) methods.set(f, (byName = new Map<string, Method | null>()));
  let fn = byName.get(name);
  if (fn === undefined) {
    fn = currentMethod(f, ns, attr) ?? null;
    if (byName.size >= MAX_METHODS) byName.clear();
    byName.set(name, fn);
  }
  return fn ?? undefined;
}

export function faker(...args: unknown[]): string {
  const { params, options } = argsOf(args);
  const state = stateOf(options);
  const [name, ...rest] = params;
  const m = typeof name === 'string' ? NAME.exec(name) : null;
  if (!m) {
    state.problem(`faker: "${toText(name)}" is not a faker name such as 'person.firstName'`);
    return '';
  }
  const f = state.faker;
  if (!f) {
    state.problem('faker: fake data is not loaded');
    return '';
  }
  const hash = options.hash;
  const a = rest.map(parseArgument);
  if (Object.keys(hash).length > 0) a.push({ ...hash });
  const seed = Object.hasOwn(SEED_NAMES, name as string) ? SEED_NAMES[name as string] : undefined;
  const fn = seed ? undefined : methodOf(f, name as string, m[1]!, m[2]!);
  if (!seed && !fn) {
    state.problem(`faker: unknown attribute "${name as string}"`);
    return '';
  }
  // Charged before the call: a size argument is work done inside faker, where no cap can stop it.
  const cost = fakerCost(name as string, a);
  if (cost > 0) state.chargeFakeData(`faker '${name as string}'`, cost);
  return toText(seed ? seed(f, a, state.limits.imageHost) : fn!(...a));
}
