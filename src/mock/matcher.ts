/**
 * Rule matching (SPEC §4, §5 step 3): rules top to bottom, the first enabled one whose method and
 * conditions all hold wins. Rules are compiled once per rules change. So that an endpoint with a
 * thousand rules answers about as fast as one with a single rule, rules are indexed by method and
 * by the first segment of their literal path prefix (from `equals`, `starts_with` and `template`
 * path conditions): a request looks only at the rules that could match its method and first path
 * segment, in their original order.
 */
import type { CapturedRequest } from '../http/index.js';
import { compileCondition, RequestView, type Predicate } from './conditions.js';
import type { Condition, Rule } from './rule-model.js';
import type { StateValues } from './state-condition.js';
import type { StateRef } from '../store/index.js';
import type { Slicer } from '../jobs/index.js';

export interface RuleMatch {
  rule: Rule;
  /** From template `:name` segments and regex named groups. */
  pathParams: Record<string, string>;
}

export interface CompiledRules {
  /** The first enabled rule that matches, or undefined; `state` holds what `stateRefs` name. */
  match(c: CapturedRequest, state?: StateValues): RuleMatch | undefined;
  /** The state items the enabled rules' `state` conditions name (none: nothing to read). */
  readonly stateRefs: readonly StateRef[];
  /** Enabled rules. */
  readonly size: number;
  /** Rules a request to `method` and `pathname` is checked against (for tests of the index). */
  candidates(method: string, pathname: string): readonly Rule[];
}

interface Compiled {
  rule: Rule;
  order: number;
  predicates: Predicate[];
}

/** The literal text every matching path starts with, from the rule's path conditions ('' if none). */
function literalPrefix(conditions: readonly Condition[]): string {
  let best = '';
  for (const c of conditions) {
    if (c.type !== 'path') continue;
    let p = '';
    if (c.operator === 'equals' || c.operator === 'starts_with') p = c.value;
    else if (c.operator === 'template') {
      const param = c.value.indexOf(':');
      p = param === -1 ? c.value : c.value.slice(0, param);
    }
    if (p.length > best.length) best = p;
  }
  return best;
}

/**
 * The first path segment every matching path has, or undefined when the rule could match several:
 * `/users/:id` → `users`; `/users` (equals) → `users`; `/us` (starts_with) → undefined.
 */
function firstSegment(conditions: readonly Condition[]): string | undefined {
  const prefix = literalPrefix(conditions);
  if (!prefix.startsWith('/')) return undefined;
  const end = prefix.indexOf('/', 1);
  if (end !== -1) return prefix.slice(1, end);
  // No second slash: the segment is complete only when the path is fixed to end there.
  const fixed = conditions.some(
    (c) =>
      c.type === 'path' &&
      (c.operator === 'equals' || (c.operator === 'template' && !c.value.includes(':'))) &&
      c.value === prefix,
  );
  return fixed ? prefix.slice(1) : undefined;
}

function pathSegment(pathname: string): string {
  const end = pathname.indexOf('/', 1);
  return end === -1 ? pathname.slice(1) : pathname.slice(1, end);
}

/** Rules of one method (its own and `*`), by first path segment; each list in rule order. */
interface MethodIndex {
  bySegment: Map<string, Compiled[]>;
  /** Rules whose first segment is not fixed: checked for every path. */
  anyPath: Compiled[];
}

function buildIndex(rules: Compiled[], segments: (string | undefined)[]): MethodIndex {
  const anyPath: Compiled[] = [];
  const own = new Map<string, Compiled[]>();
  rules.forEach((r) => {
    const seg = segments[r.order];
    if (seg === undefined) anyPath.push(r);
    else {
      let list = own.get(seg);
      if (!list) own.set(seg, (list = []));
      list.push(r);
    }
  });
  // Each segment's list also holds the rules that match any path, in rule order: no merge per request.
  const bySegment = new Map<string, Compiled[]>();
  for (const [seg, list] of own)
    bySegment.set(
      seg,
      [...list, ...anyPath].sort((a, b) => a.order - b.order),
    );
  return { bySegment, anyPath };
}

export function compileRules(rules: readonly Rule[]): CompiledRules {
  const compiled: Compiled[] = [];
  for (const rule of rules) {
    if (!rule.enabled) continue;
    compiled.push({ rule, order: compiled.length, predicates: rule.conditions.map(compileCondition) });
  }
  return indexed(compiled);
}

/**
 * As compileRules, awaiting `slice` between rules: 500 rules of five long regular expressions take
 * seconds to compile, which must not be one block of the event loop on the request path.
 */
export async function compileRulesInSlices(rules: readonly Rule[], slice: Slicer): Promise<CompiledRules> {
  const compiled: Compiled[] = [];
  for (const rule of rules) {
    if (!rule.enabled) continue;
    compiled.push({ rule, order: compiled.length, predicates: rule.conditions.map(compileCondition) });
    await slice();
  }
  return indexed(compiled);
}

function indexed(compiled: Compiled[]): CompiledRules {
  const segments = compiled.map((c) => firstSegment(c.rule.conditions));
  const methods = new Set(compiled.map((c) => c.rule.method).filter((m) => m !== '*'));
  const byMethod = new Map<string, MethodIndex>();
  for (const m of methods)
    byMethod.set(
      m,
      buildIndex(
        compiled.filter((c) => c.rule.method === m || c.rule.method === '*'),
        segments,
      ),
    );
  const anyMethod = buildIndex(
    compiled.filter((c) => c.rule.method === '*'),
    segments,
  );

  const candidatesOf = (method: string, pathname: string): Compiled[] => {
    const index = byMethod.get(method) ?? anyMethod;
    return index.bySegment.get(pathSegment(pathname)) ?? index.anyPath;
  };

  const refs = new Map<string, StateRef>();
  for (const c of compiled)
    for (const cond of c.rule.conditions)
      if (cond.type === 'state')
        refs.set(`${cond.stateType}\0${cond.key}`, { type: cond.stateType, key: cond.key });

  return {
    size: compiled.length,
    stateRefs: [...refs.values()],
    candidates: (method, pathname) => candidatesOf(method, pathname).map((c) => c.rule),
    match(req, state) {
      const list = candidatesOf(req.method, req.pathname);
      if (list.length === 0) return undefined;
      const view = new RequestView(req, state);
      for (const c of list) {
        const params: Record<string, string> = {};
        if (c.predicates.every((p) => p(view, params))) return { rule: c.rule, pathParams: params };
      }
      return undefined;
    },
  };
}
