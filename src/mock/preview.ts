/**
 * Template preview (the dashboard's rule editor): renders a template against a recorded request, or a
 * blank `GET /`, as a rule would, without answering anything. The rule's conditions, when given,
 * say whether the request would match and supply the path parameters (`:id`, regex groups). State
 * helpers see no state and change none: a preview never touches the endpoint's data.
 */
import type { CapturedRequest } from '../http/index.js';
import type { Exchange } from '../endpoint/index.js';
import type { EndpointRecord } from '../store/index.js';
import type { MockDeps } from './deps.js';
import { compileTemplate, loadFakeData, sourceLimits, templateLimits } from '../template/index.js';
import { compileRules } from './matcher.js';
import { parseRule, type Rule } from './rule-model.js';
import { endpointResolver } from './endpoint-settings.js';
import { templateInput } from './rules-step.js';

export interface PreviewInput {
  template: string;
  request: CapturedRequest;
  /**
   * The rule being edited, as the API takes it (validated here: 400 with paths under `/rule`): whether
   * the request matches its method and conditions, and the path parameters they give.
   */
  rule?: unknown;
}

export interface PreviewResult {
  /** The rendered text; absent when the template could not be rendered (`error` says why). */
  output?: string;
  error?: string;
  problems: string[];
  /** Whether the rule's method and conditions hold for the request; absent without conditions. */
  matched?: boolean;
  pathParams: Record<string, string>;
}

export async function previewTemplate(
  ctx: Pick<MockDeps, 'config' | 'now'>,
  ep: EndpointRecord,
  input: PreviewInput,
): Promise<PreviewResult> {
  let pathParams: Record<string, string> = {};
  let matched: boolean | undefined;
  if (input.rule !== undefined) {
    const rule: Rule = {
      ...parseRule(input.rule, '/rule', sourceLimits(ctx.config)),
      id: 'preview',
      enabled: true,
    };
    const m = compileRules([rule]).match(input.request);
    matched = m !== undefined;
    if (m) pathParams = m.pathParams;
  }
  await loadFakeData();
  const template = compileTemplate(input.template, templateLimits(ctx.config));
  // A preview is no request: the endpoint is resolved here, from the record the API read.
  const endpoint = endpointResolver(ctx.config)(ep);
  const { locale } = endpoint.settings;
  const x: Exchange = { request: input.request, endpoint };
  const r = template.render(templateInput(x, pathParams, locale, ctx.now(), undefined));
  const base = { pathParams, ...(matched !== undefined ? { matched } : {}) };
  if (!r.ok) return { ...base, error: r.error, problems: [...template.problems] };
  return { ...base, output: r.text, problems: r.problems };
}
