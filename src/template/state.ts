/**
 * What one render carries: the request data helpers may read, the problems noted, and the budgets
 * that bound a render (loop iterations, output size). Helpers reach it through `options.data.mb`;
 * the template itself is rendered with an empty context and never sees it.
 */
import type { Faker } from '@faker-js/faker';
import type { SourceLimits } from './source-limits.js';

export interface TemplateInput {
  method: string;
  /** Path with query string. */
  path: string;
  pathname: string;
  /** Lower-case names. */
  headers: Readonly<Record<string, string>>;
  query: Readonly<Record<string, string | string[]>>;
  /** Parsed JSON or form-urlencoded body; undefined for any other body. */
  body: unknown;
  pathParams: Readonly<Record<string, string>>;
  /** Faker locale of the endpoint (`en`, `de_AT` …). */
  locale: string;
  /** Epoch milliseconds. */
  now: number;
  /** The endpoint's state, for the state helpers; absent when the render may not touch it. */
  state?: StateAccess;
}

/**
 * The endpoint's state as one render sees it (src/state/session.ts): values read from a snapshot
 * taken before the render, changes made to the snapshot and noted, to be stored after the render.
 * A method throws with a sentence when a bound refuses the change (the helper renders empty).
 */
export interface StateAccess {
  /** The item's value, undefined when it does not exist. */
  read(type: 'counter' | 'string' | 'list', key: string): unknown;
  /** Adds `by` to a counter (0 when absent); returns the new value. */
  add(key: string, by: number): number;
  /** Sets a counter; returns the value. */
  resetCounter(key: string, value: number): number;
  setData(key: string, value: unknown): void;
  deleteData(key: string): void;
  push(key: string, value: unknown): void;
  /** Removes and returns the list's last value; undefined when it is empty. */
  pop(key: string): unknown;
  clearList(key: string): void;
}

export interface TemplateLimits extends SourceLimits {
  /** Loop iterations (`repeat`, `each`) in one render, all loops together. */
  maxIterations: number;
  /** Characters one render may produce. */
  maxOutput: number;
  /** Characters of fake data one render may ask faker for through size arguments (faker-cost.ts). */
  maxFakeData: number;
  /** Loop iterations times the template's mustaches (the statements one iteration may run), one render. */
  maxLoopWork: number;
  /** Where image links point (`<host>/640/480/<category>`). */
  imageHost: string;
}

/** Stops a render that went over a limit: the answer is then 561. */
export class RenderLimitError extends Error {}

export class RenderState {
  readonly problems: string[] = [];
  private iterations = 0;
  private loopWork = 0;
  private fakeData = 0;

  constructor(
    readonly input: TemplateInput,
    readonly limits: TemplateLimits,
    readonly faker: Faker | undefined,
    /** What one loop iteration may cost: the template's mustaches (each runs at most once). */
    private readonly iterationCost = 1,
  ) {}

  problem(message: string): void {
    if (this.problems.length < 20) this.problems.push(message);
  }

  /** Counts one loop iteration; throws, before it runs, once the render has used its budgets. */
  iterate(): void {
    if (++this.iterations > this.limits.maxIterations)
      throw new RenderLimitError(`the template ran more than ${this.limits.maxIterations} loop iterations`);
    // Checked before the iteration runs: 10,000 iterations of 490 empty mustaches took 0.6 s.
    if ((this.loopWork += this.iterationCost) > this.limits.maxLoopWork)
      throw new RenderLimitError(
        `the template's loops ran more than ${this.limits.maxLoopWork} iterations times its ` +
          `${this.iterationCost} mustaches (TEMPLATE_MAX_LOOP_WORK)`,
      );
  }

  /**
   * Charges `chars` of fake data `what` is about to make; throws, before the work is done, once the
   * render would ask for more than its budget (TEMPLATE_MAX_FAKE_DATA, never more than the output cap).
   */
  chargeFakeData(what: string, chars: number): void {
    const budget = Math.min(this.limits.maxFakeData, this.limits.maxOutput);
    this.fakeData += chars;
    if (!(this.fakeData <= budget))
      throw new RenderLimitError(
        `${what} asks for about ${chars > 1e15 ? 'unbounded' : Math.round(chars)} characters of fake data; ` +
          `a render may make at most ${budget} (TEMPLATE_MAX_FAKE_DATA)`,
      );
  }

  /** Checks text built by a loop against the output budget. */
  checkOutput(length: number): void {
    if (length > this.limits.maxOutput)
      throw new RenderLimitError(`the template produced more than ${this.limits.maxOutput} characters`);
  }
}

/** The options Handlebars passes to a helper, as far as ours use them. */
export interface HelperOptions {
  data: { mb: RenderState } & Record<string, unknown>;
  hash: Record<string, unknown>;
  fn?: (context: unknown, options?: { data?: unknown; blockParams?: unknown[] }) => string;
  inverse?: (context: unknown, options?: { data?: unknown }) => string;
  name: string;
}

export type Helper = (...args: unknown[]) => unknown;

/** Splits a helper's arguments from its options object (always last). */
export function argsOf(args: unknown[]): { params: unknown[]; options: HelperOptions } {
  return { params: args.slice(0, -1), options: args[args.length - 1] as HelperOptions };
}

export function stateOf(options: HelperOptions): RenderState {
  return options.data.mb;
}

/** A value as text for the response: objects and arrays as JSON, nothing as ''. */
export function toText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v) ?? '';
}

/**
 * A request value as a helper returns it: text and numbers as they are; an object or an array as a
 * copy that prints as JSON (`{{body 'user'}}` → `{"name":"Ada"}`) but stays a value for subexpressions
 * (`{{len (body 'tags')}}`, `{{#each (body 'items')}}`).
 */
export function asValue(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  const copy: object = Array.isArray(v) ? [...(v as unknown[])] : { ...v };
  const json = JSON.stringify(v);
  Object.defineProperty(copy, 'toString', { value: () => json, enumerable: false });
  Object.defineProperty(copy, 'toHTML', {
    value: () => json.replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`),
    enumerable: false,
  });
  return copy;
}

/**
 * The seed's `{{helper 'path' 'default'}}` over one root (the body, the query): the value at the dotted
 * path, or the default (`''` when left out) when nothing is there.
 */
export function lookupAt(name: string, root: (s: RenderState) => unknown, args: unknown[]): unknown {
  const { params, options } = argsOf(args);
  const [path, fallback = ''] = params;
  if (typeof path !== 'string' || path === '') {
    stateOf(options).problem(`${name}: the first argument is a dotted path, e.g. {{${name} 'user.name'}}`);
    return toText(fallback);
  }
  const v = valueAtPath(root(stateOf(options)), path);
  return v === undefined ? toText(fallback) : asValue(v);
}

/** A value at a dotted path (`a.b.0.c`), own properties only; undefined when absent. */
export function valueAtPath(root: unknown, path: string): unknown {
  let v = root;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}
