/**
 * The rules step (SPEC §5 step 3): the endpoint's rules, compiled once per change (matcher, actions,
 * templates) and kept beside the cached endpoint record, run top to bottom; the first enabled rule
 * that matches answers, recorded as `mock-rule` (`crud`, `callout` for those actions) with its id.
 * `rules.enabled: false` skips them all.
 * Endpoint state (conditions that read it, templates that change it) is handled in rule-state.ts.
 */
import type { MockDeps } from './deps.js';
import { RecordMemo, type Exchange } from '../endpoint/index.js';
import type { BlobRecord } from '../store/index.js';
import {
  compileTemplate,
  loadFakeData,
  templateLimits,
  type StateAccess,
  type StateUse,
  type TemplateInput,
} from '../template/index.js';
import { MemoryStateLock, stateLimits } from '../state/index.js';
import type { StateValues } from './state-condition.js';
import { conditionState, mergeStateUse, runWithState, sessionOf, type StateRun } from './rule-state.js';
import { compileAction, type CompiledAction, type TemplateCompiler } from './actions.js';
import { calloutCompiler } from './callout.js';
import { compileCrud } from './crud.js';
import type { Endpoint, MockStep } from './endpoint-settings.js';
import { compileRulesInSlices, type CompiledRules } from './matcher.js';
import { timeSlicer } from '../jobs/index.js';
import { blobsOf, isTemplated, ruleFromRecord } from './rule-model.js';

/** What compiling an endpoint's rules draws on: the callouts' and the CRUD answers' services too. */
type RulesDeps = Pick<
  MockDeps,
  'callouts' | 'config' | 'crudLists' | 'history' | 'log' | 'now' | 'outbound' | 'store'
>;

interface EndpointRules {
  matcher: CompiledRules;
  actions: Map<string, CompiledAction>;
  /** What each rule's templates use of the endpoint's state (rules without state helpers are absent). */
  stateUse: Map<string, StateUse>;
}

const compiled = new RecordMemo<EndpointRules>();

type StepResult = ReturnType<MockStep>;

/** The request data a template may read, through its helpers only. */
export function templateInput(
  x: Exchange,
  pathParams: Readonly<Record<string, string>>,
  locale: string,
  now: number,
  state: StateAccess | undefined,
): TemplateInput {
  const r = x.request;
  const input: TemplateInput = {
    method: r.method,
    path: r.path,
    pathname: r.pathname,
    headers: r.headers,
    query: r.query,
    // The seed: the body is read only when it is JSON or form-urlencoded.
    body: r.body.kind === 'json' || r.body.kind === 'form' ? r.body.value : undefined,
    pathParams,
    locale,
    now,
  };
  if (state) input.state = state;
  return input;
}

async function compileEndpoint(ctx: RulesDeps, endpoint: Endpoint): Promise<EndpointRules> {
  const ep = endpoint.record;
  const rules = (await ctx.store.listRules(ep.name)).map(ruleFromRecord);
  if (rules.some(isTemplated)) await loadFakeData();
  const blobs = new Map<string, BlobRecord | undefined>();
  for (const name of new Set(rules.flatMap(blobsOf))) blobs.set(name, await ctx.store.getBlob(ep.name, name));
  const { locale } = endpoint.settings;
  let uses: StateUse[] = [];
  const templates: TemplateCompiler = (source) => {
    const t = compileTemplate(source, templateLimits(ctx.config));
    if (!t.state) return (x, params) => t.render(templateInput(x, params, locale, ctx.now(), undefined));
    uses.push(t.state);
    return (x, params) => {
      const session = sessionOf(x);
      const r = t.render(templateInput(x, params, locale, ctx.now(), session));
      if (!r.ok && session) session.failed = true;
      return r;
    };
  };
  // In slices: regular expressions and templates of hundreds of rules compile for seconds, and the
  // request that found the rules changed must not hold every other request for that long.
  const slice = timeSlicer();
  const matcher = await compileRulesInSlices(rules, slice);
  const actions = new Map<string, CompiledAction>();
  const callouts = calloutCompiler(ctx, ctx.callouts);
  const stateUse = new Map<string, StateUse>();
  for (const r of rules) {
    uses = [];
    actions.set(
      r.id,
      // crud: the rule's path is a REST collection (crud.ts, issue 13 part 3).
      r.action.type === 'crud'
        ? compileCrud(ctx, r)
        : compileAction(r, templates, Math.random, (n) => blobs.get(n), callouts),
    );
    const use = mergeStateUse(uses);
    if (use) stateUse.set(r.id, use);
    await slice();
  }
  return { matcher, actions, stateUse };
}

/** The endpoint's compiled rules (compiled on first use after each change). */
function rulesOf(ctx: RulesDeps, ep: Endpoint): Promise<EndpointRules> {
  return compiled.get(ep.record, () => compileEndpoint(ctx, ep));
}

export function rulesStep(ctx: RulesDeps): MockStep {
  const state: StateRun = {
    store: ctx.store,
    lock: new MemoryStateLock(),
    limits: stateLimits(ctx.config),
    now: ctx.now,
  };
  // Once the endpoint's rules are compiled, a rule whose conditions read no state and whose action
  // answers at once answers without waiting a turn of the event loop.
  const answer = (rules: EndpointRules, x: Exchange): StepResult => {
    if (rules.matcher.size === 0) return undefined;
    if (rules.matcher.stateRefs.length === 0) return run(rules, x, undefined);
    return conditionState(ctx.store, x.endpoint.record.name, rules.matcher).then((values) =>
      run(rules, x, values),
    );
  };
  const run = (
    { matcher, actions, stateUse }: EndpointRules,
    x: Exchange,
    values?: StateValues,
  ): StepResult => {
    const m = matcher.match(x.request, values);
    if (!m) return undefined;
    const action = actions.get(m.rule.id);
    if (!action) return undefined;
    const use = stateUse.get(m.rule.id);
    if (!use) return action(x, m.pathParams);
    return runWithState(state, x, use, () => action(x, m.pathParams));
  };
  return (x) => {
    if (!x.endpoint.settings.rules.enabled) return undefined;
    const ready = compiled.ready(x.endpoint.record);
    return ready ? answer(ready, x) : rulesOf(ctx, x.endpoint).then((rules) => answer(rules, x));
  };
}
