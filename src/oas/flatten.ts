/**
 * Schema composition expanded once, when a document is compiled (at upload, in the validation worker,
 * and again when the spec is compiled for serving), never while a request waits: `$ref`s followed,
 * `allOf` parts merged (properties and required lists joined, the first value of any other keyword
 * kept), `oneOf`/`anyOf` replaced by their first choice that is not just `null`, merged with the
 * schema's own keywords. The result, a Shape, has none of these keywords; its `properties`,
 * `additionalProperties`, `items` and `prefixItems` hold Shapes, shared where the document shares a
 * schema (a recursive schema is a cycle of Shapes, which generation bounds by depth and values).
 *
 * Bounded by a budget of work units (OAS_SCHEMA_BUDGET), charged before the work: one unit a keyword
 * and a property of each schema made into a Shape, and for each part a composition merges, the units
 * that part would cost if it were expanded in place, even when its expansion is shared. So `allOf:
 * [A1, A1]` twenty levels deep (2^20 copies of the leaf, 6 s a request when expanded at request time)
 * runs out of budget after a few dozen merges and the document is refused, naming the schema where it
 * ran out; merged work that is done is never more than the units charged.
 */
import { deref, isObject, type JsonObject } from './refs.js';

/** A schema with its composition expanded: see the module comment. */
export type Shape = JsonObject;

/** What a schema position holds once expanded: a Shape, `false` (nothing fits) or undefined (no schema). */
export type Expanded = Shape | false | undefined;

/** The document's schema composition costs more than the budget; `path` names where it ran out. */
export class SchemaBudgetError extends Error {
  constructor(
    readonly path: string,
    readonly budget: number,
  ) {
    super(
      `The schemas' composition (allOf, oneOf, anyOf, $ref) expands past OAS_SCHEMA_BUDGET (${budget} units) at ${path || '/'}; simplify that schema or raise the setting.`,
    );
    this.name = 'SchemaBudgetError';
  }
}

const shapes = new WeakSet<object>();

/** True for a value made by a SchemaExpander (generation walks those as they are). */
export function isShape(v: unknown): v is Shape {
  return typeof v === 'object' && v !== null && shapes.has(v);
}

/** Parts of one allOf merged at most, as generation always did. */
const MAX_ALLOF_PARTS = 49;

interface Composed {
  /** The merged keywords (children still raw schemas). */
  merged: JsonObject;
  /** Units an in-place expansion of this schema's composition costs. */
  weight: number;
}

/** Sets an own property; `__proto__` too (as data, never the prototype), without slowing the rest. */
function setOwn(o: JsonObject, k: string, v: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/**
 * Schemas merged as allOf merges them: properties joined (a later part's property replaces an earlier
 * one of the same name), required lists joined, any other keyword kept from the first that has it.
 */
function mergeAll(subs: JsonObject[]): JsonObject {
  const out: JsonObject = {};
  const properties: JsonObject = {};
  const required = new Set<string>();
  let declared = false;
  for (const sub of subs)
    for (const [k, v] of Object.entries(sub)) {
      if (k === 'allOf') continue;
      if (k === 'properties' && isObject(v)) {
        declared = true;
        for (const [pk, pv] of Object.entries(v)) setOwn(properties, pk, pv);
      } else if (k === 'required' && Array.isArray(v)) {
        for (const r of v as unknown[]) if (typeof r === 'string') required.add(r);
      } else if (!Object.hasOwn(out, k)) setOwn(out, k, v);
    }
  // `properties: {}` still says "an object".
  if (declared) out['properties'] = properties;
  if (required.size > 0) out['required'] = [...required];
  return out;
}

function pointer(path: string, key: string | number): string {
  return `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Where a `$ref` leads, as a JSON pointer, for messages. */
function refPath(raw: unknown, path: string): string {
  if (isObject(raw) && typeof raw['$ref'] === 'string' && raw['$ref'].startsWith('#')) {
    try {
      return decodeURIComponent(raw['$ref'].slice(1));
    } catch {
      return path;
    }
  }
  return path;
}

/** Keywords of `s` and entries of its `properties` and `required`: the units to copy it. */
function sizeOf(s: JsonObject): number {
  const props = isObject(s['properties']) ? Object.keys(s['properties']).length : 0;
  const required = Array.isArray(s['required']) ? s['required'].length : 0;
  return Object.keys(s).length + props + required;
}

/**
 * Expands schemas of one document within one budget, shared by every schema it is asked for (a
 * schema met twice is expanded once). Throws SchemaBudgetError when the budget runs out.
 */
export class SchemaExpander {
  /** Units charged so far. */
  spent = 0;
  private readonly composed = new Map<JsonObject, Composed>();
  private readonly composing = new Set<JsonObject>();
  private readonly made = new Map<JsonObject, Shape>();
  private readonly pending: [JsonObject, Shape, string][] = [];
  private static readonly ANY: Shape = (() => {
    const any: Shape = Object.freeze({});
    shapes.add(any);
    return any;
  })();

  constructor(
    private readonly root: unknown,
    readonly budget: number,
  ) {}

  private charge(units: number, path: string): void {
    this.spent += units;
    if (this.spent > this.budget) throw new SchemaBudgetError(path, this.budget);
  }

  /** The expansion of the schema `raw` found at `path` (a JSON pointer, for messages), whole. */
  expand(raw: unknown, path = ''): Expanded {
    const out = this.shapeOf(raw, path);
    this.guarded(path, () => {
      while (this.pending.length > 0) this.fillNext();
    });
    return out;
  }

  /**
   * The Shape the schema `raw` will have once `drain` has run (for a caller that expands many
   * schemas and pauses between them); undefined when there is no schema.
   */
  shapeOf(raw: unknown, path = ''): Expanded {
    return raw === undefined ? undefined : this.link(raw, path);
  }

  /** Fills every Shape handed out so far, awaiting `pause` between schemas (jobs/slices.ts). */
  async drain(pause: () => Promise<void>): Promise<void> {
    for (let next = this.pending.at(-1); next !== undefined; next = this.pending.at(-1)) {
      this.guarded(next[2], () => this.fillNext());
      await pause();
    }
  }

  private fillNext(): void {
    const [s, shape, at] = this.pending.pop()!;
    this.fill(s, shape, at);
  }

  private guarded(path: string, work: () => void): void {
    try {
      work();
    } catch (err) {
      this.pending.length = 0;
      // Nothing here recurses; should a stack still overflow, that is past the budget, not a crash.
      if (err instanceof RangeError) throw new SchemaBudgetError(path, this.budget);
      throw err;
    }
  }

  /** The Shape of a schema: made once, filled later (so nesting never deepens the stack). */
  private link(raw: unknown, path: string): Expanded {
    const s = deref(this.root, raw);
    // `true`, and a $ref that leads nowhere or to itself, allow anything.
    if (s === true || s === undefined) return SchemaExpander.ANY;
    if (!isObject(s)) return false;
    let shape = this.made.get(s);
    if (shape) return shape;
    shape = {};
    shapes.add(shape);
    this.made.set(s, shape);
    this.pending.push([s, shape, refPath(raw, path)]);
    return shape;
  }

  private fill(s: JsonObject, shape: Shape, path: string): void {
    const m = this.resolveChoices(this.compose(s, path).merged, path);
    this.charge(1 + sizeOf(m), path);
    for (const [k, v] of Object.entries(m)) {
      if (k === 'properties' && isObject(v)) {
        const props: JsonObject = {};
        for (const [pk, pv] of Object.entries(v))
          setOwn(props, pk, this.link(pv, pointer(pointer(path, 'properties'), pk)));
        setOwn(shape, k, props);
      } else if ((k === 'items' || k === 'additionalProperties') && (isObject(v) || v === true)) {
        setOwn(shape, k, this.link(v, pointer(path, k)));
      } else if (k === 'prefixItems' && Array.isArray(v)) {
        setOwn(
          shape,
          k,
          v.map((item, i) => this.link(item, pointer(pointer(path, k), i))),
        );
      } else setOwn(shape, k, v);
    }
  }

  /**
   * allOf merged: the schema's own keywords first, then each part's (parts' own allOf merged first).
   * Memoized per schema; a part that is being merged already (a cycle) is left out. Walked with a
   * stack of its own, so allOf nested thousands deep cannot overflow the thread's.
   */
  private compose(top: JsonObject, topPath: string): Composed {
    const done = this.composed.get(top);
    if (done) return done;
    interface Frame {
      s: JsonObject;
      path: string;
      parts: unknown[];
      next: number;
      subs: JsonObject[];
      weight: number;
    }
    const open = (s: JsonObject, path: string): Frame => {
      const weight = 1 + sizeOf(s);
      this.charge(weight, path);
      this.composing.add(s);
      const parts = Array.isArray(s['allOf']) ? (s['allOf'] as unknown[]).slice(0, MAX_ALLOF_PARTS) : [];
      return { s, path, parts, next: 0, subs: [s], weight };
    };
    const stack: Frame[] = [open(top, topPath)];
    try {
      while (stack.length > 0) {
        const f = stack[stack.length - 1]!;
        if (f.next < f.parts.length) {
          const i = f.next++;
          const raw = f.parts[i];
          const p = deref(this.root, raw);
          if (!isObject(p) || this.composing.has(p)) continue;
          const part = this.composed.get(p);
          if (!part) {
            // Composed first, then this part is taken again and found composed.
            f.next = i;
            stack.push(open(p, refPath(raw, pointer(pointer(f.path, 'allOf'), i))));
            continue;
          }
          // Charged as if expanded in place, before its keywords are copied.
          this.charge(part.weight, f.path);
          f.weight += part.weight;
          f.subs.push(part.merged);
          continue;
        }
        stack.pop();
        this.composing.delete(f.s);
        this.composed.set(f.s, { merged: mergeAll(f.subs), weight: f.weight });
      }
    } finally {
      for (const f of stack) this.composing.delete(f.s);
    }
    return this.composed.get(top)!;
  }

  /**
   * oneOf, then anyOf: the first choice that is not just `null`, merged after the schema's other
   * keywords; again while the result has a choice. A choice met twice ends it (a cycle).
   */
  private resolveChoices(merged: JsonObject, path: string): JsonObject {
    let m = merged;
    const seen = new Set<unknown>();
    for (;;) {
      const k = (['oneOf', 'anyOf'] as const).find((key) => Array.isArray(m[key]) && m[key].length > 0);
      if (k === undefined) return m;
      const choices = m[k] as unknown[];
      this.charge(choices.length, path);
      const index = Math.max(
        0,
        choices.findIndex((c) => {
          const d = deref(this.root, c);
          return !(isObject(d) && d['type'] === 'null');
        }),
      );
      const { [k]: _choices, ...rest } = m;
      const d = deref(this.root, choices[index]);
      if (!isObject(d) || seen.has(d)) {
        m = rest;
        continue;
      }
      seen.add(d);
      const part = this.compose(d, refPath(choices[index], pointer(pointer(path, k), index)));
      this.charge(part.weight, path);
      m = mergeAll([rest, part.merged]);
    }
  }
}

/**
 * Expands every schema of `doc` that composes (has `allOf`, `oneOf` or `anyOf`), wherever it is: in
 * a response, a request body, a parameter or a component nobody uses, within the expander's budget
 * (a schema it expanded already costs nothing again). The upload
 * runs it before the parser, whose own dereferencing and checks grow with composition wherever it
 * sits. The document is walked once, without recursion.
 */
export function expandEveryComposition(doc: unknown, expander: SchemaExpander): void {
  const stack: [unknown, string][] = [[doc, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], pointer(path, i)]);
    } else if (isObject(v)) {
      if (['allOf', 'oneOf', 'anyOf'].some((k) => Array.isArray(v[k]))) expander.expand(v, path);
      for (const [k, child] of Object.entries(v)) stack.push([child, pointer(path, k)]);
    }
  }
}
