/**
 * The rules step (SPEC §5 step 3): the endpoint's rules, compiled once per change (matcher, actions,
 * templates) and kept beside the cached endpoint record, run top to bottom; the first enabled rule
 * that matches answers, recorded as `mock-rule` with its id. `rules.enabled: false` skips them all.
 */
import type { AppContext } from '../context.js';
import type { Exchange, Step } from '../endpoint/index.js';
import type { BlobRecord, EndpointRecord } from '../store/index.js';
import { compileTemplate, loadFakeData, type TemplateInput } from '../template/index.js';
import { compileAction, type CompiledAction, type TemplateCompiler } from './actions.js';
import { compileCrud } from './crud.js';
import { settingsOf } from './endpoint-settings.js';
import { compileRulesInSlices, type CompiledRules } from './matcher.js';
import { timeSlicer } from '../jobs/index.js';
import { blobsOf, isTemplated, ruleFromRecord } from './rule-model.js';

interface EndpointRules {
  matcher: CompiledRules;
  actions: Map<string, CompiledAction>;
}

const compiled = new WeakMap<EndpointRecord, Promise<EndpointRules>>();

/** The request data a template may read, through its helpers only. */
function templateInput(
  x: Exchange,
  pathParams: Readonly<Record<string, string>>,
  locale: string,
  now: number,
): TemplateInput {
  const r = x.request;
  return {
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
}

async function compileEndpoint(ctx: AppContext, ep: EndpointRecord): Promise<EndpointRules> {
  const rules = (await ctx.store.listRules(ep.name)).map(ruleFromRecord);
  if (rules.some(isTemplated)) await loadFakeData();
  const blobs = new Map<string, BlobRecord | undefined>();
  for (const name of new Set(rules.flatMap(blobsOf))) blobs.set(name, await ctx.store.getBlob(ep.name, name));
  const { locale } = settingsOf(ctx.config, ep);
  const templates: TemplateCompiler = (source) => {
    const t = compileTemplate(source, { imageHost: ctx.config.imageHost });
    return (x, params) => t.render(templateInput(x, params, locale, ctx.now()));
  };
  // In slices: regular expressions and templates of hundreds of rules compile for seconds, and the
  // request that found the rules changed must not hold every other request for that long.
  const slice = timeSlicer();
  const matcher = await compileRulesInSlices(rules, slice);
  const actions = new Map<string, CompiledAction>();
  for (const r of rules) {
    actions.set(
      r.id,
      // crud: the rule's path is a REST collection (crud.ts, issue 13 part 3).
      r.action.type === 'crud'
        ? compileCrud(ctx, r)
        : compileAction(r, templates, Math.random, (n) => blobs.get(n)),
    );
    await slice();
  }
  return { matcher, actions };
}

/** The endpoint's compiled rules (compiled on first use after each change). */
function rulesOf(ctx: AppContext, ep: EndpointRecord): Promise<EndpointRules> {
  let c = compiled.get(ep);
  if (!c) {
    c = compileEndpoint(ctx, ep);
    compiled.set(ep, c);
    c.catch(() => compiled.delete(ep)); // a failed read is retried by the next request
  }
  return c;
}

export function rulesStep(ctx: AppContext): Step {
  return async (x) => {
    if (!settingsOf(ctx.config, x.endpoint).rules.enabled) return undefined;
    const { matcher, actions } = await rulesOf(ctx, x.endpoint);
    if (matcher.size === 0) return undefined;
    const m = matcher.match(x.request);
    if (!m) return undefined;
    return actions.get(m.rule.id)?.(x, m.pathParams);
  };
}
