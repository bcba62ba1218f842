/**
 * gRPC rules (SPEC §13): the endpoint's rules whose action is `grpc`, compiled once per change beside
 * its HTTP rules and matched against a call as a request `POST /pkg.Service/Method` whose headers are
 * the call's metadata and whose body is the request message as JSON. A gRPC call looks only at these
 * rules, and an HTTP request never at them: a catch-all HTTP rule does not answer a call.
 *
 * A matched rule becomes a plan (grpc/respond.ts): the status, trailers and details fixed at save
 * time, and each message rendered as it is sent (the body is a template, §6) and encoded to the
 * method's output type, so an answer that does not fit ends the call INTERNAL naming the field.
 */
import type { JsonValue } from '@bufbuild/protobuf';
import type { MockDeps } from './deps.js';
import { RecordMemo, type Exchange } from '../endpoint/index.js';
import { compileTemplate, loadFakeData, templateLimits } from '../template/index.js';
import {
  CallError,
  grpcRuntime,
  GrpcStatus,
  type CallType,
  type EncodedAnswer,
  type EndpointDescriptors,
  type GrpcPlan,
} from '../grpc/index.js';
import { timeSlicer } from '../jobs/index.js';
import { compileRulesInSlices, type CompiledRules } from './matcher.js';
import { ruleFromRecord, type GrpcAction, type Rule } from './rule-model.js';
import { conditionState } from './rule-state.js';
import { templateInput } from './rules-step.js';
import type { Endpoint } from './endpoint-settings.js';
import { sampleDelay } from './latency.js';

/** Makes the plan of a matched rule for one call. */
type PlanMaker = (x: Exchange, d: EndpointDescriptors, path: string, callType: CallType) => GrpcPlan;

interface GrpcRules {
  matcher: CompiledRules;
  plans: Map<string, PlanMaker>;
}

const compiled = new RecordMemo<GrpcRules>();

type Runtime = Awaited<ReturnType<typeof grpcRuntime>>;

/** How many messages a server stream sends: a count drawn from `streamCount` (filled in at save). */
function drawCount(a: GrpcAction): number {
  const { min, max } = a.streamCount ?? { min: a.responses.length, max: a.responses.length };
  return min + Math.floor(Math.random() * (max - min + 1));
}

function compilePlan(
  ctx: Pick<MockDeps, 'config' | 'now'>,
  rule: Rule,
  locale: string,
  encodeStatus: Runtime['encodeStatus'],
): PlanMaker {
  const a = rule.action as GrpcAction;
  const limits = templateLimits(ctx.config);
  const bodies = a.responses.map((r) => compileTemplate(r.body, limits));
  return (x, d, path, callType) => {
    const status = a.status ?? GrpcStatus.OK;
    const message = (i: number): EncodedAnswer => {
      const at = a.singleResponseRepeated === true ? 0 : i % bodies.length;
      const r = bodies[at]!.render(templateInput(x, {}, locale, ctx.now(), undefined));
      if (!r.ok)
        throw new CallError(
          GrpcStatus.INTERNAL,
          `Cannot produce response ${at + 1} of rule ${rule.id}: ${r.error}`,
        );
      let json: unknown;
      try {
        json = JSON.parse(r.text);
      } catch (err) {
        throw new CallError(
          GrpcStatus.INTERNAL,
          `Response ${at + 1} of rule ${rule.id} did not render to JSON: ${(err as Error).message}`,
        );
      }
      return d.encodeAnswer(path, json as JsonValue);
    };
    return {
      status,
      statusMessage: a.statusMessage,
      delayMs: sampleDelay(a.delay, Math.random),
      intervalMs: a.interval ?? 0,
      count: callType === 'server_streaming' ? drawCount(a) : 1,
      metadata: Object.keys(a.responses[0]!.metadata).length > 0 ? a.responses[0]!.metadata : undefined,
      trailers: a.trailers,
      details:
        a.details && a.details.length > 0 && status !== GrpcStatus.OK
          ? encodeStatus(status, a.statusMessage ?? '', a.details, d.jsonRegistry)
          : undefined,
      message,
    };
  };
}

async function compileEndpoint(
  ctx: Pick<MockDeps, 'config' | 'now' | 'store'>,
  ep: Endpoint,
): Promise<GrpcRules> {
  const rules = (await ctx.store.listRules(ep.record.name))
    .map(ruleFromRecord)
    .filter((r) => r.action.type === 'grpc');
  if (rules.length > 0) await loadFakeData();
  const runtime = await grpcRuntime();
  const slice = timeSlicer();
  const matcher = await compileRulesInSlices(rules, slice);
  const plans = new Map<string, PlanMaker>();
  for (const r of rules) {
    plans.set(r.id, compilePlan(ctx, r, ep.settings.locale, runtime.encodeStatus));
    await slice();
  }
  return { matcher, plans };
}

/** The matched rule of a call: its id and the plan it makes. */
export interface GrpcRuleMatch {
  ruleId: string;
  plan: GrpcPlan;
}

/** Matches calls against the endpoint's gRPC rules (compiled on first use after each change). */
export function grpcRules(ctx: Pick<MockDeps, 'config' | 'now' | 'store'>) {
  return async (
    x: Exchange & { endpoint: Endpoint },
    d: EndpointDescriptors,
    callType: CallType,
  ): Promise<GrpcRuleMatch | undefined> => {
    if (!x.endpoint.settings.rules.enabled) return undefined;
    const rules =
      compiled.ready(x.endpoint.record) ??
      (await compiled.get(x.endpoint.record, () => compileEndpoint(ctx, x.endpoint)));
    if (rules.matcher.size === 0) return undefined;
    const values = await conditionState(ctx.store, x.endpoint.record.name, rules.matcher);
    const m = rules.matcher.match(x.request, values);
    const make = m && rules.plans.get(m.rule.id);
    if (!m || !make) return undefined;
    return { ruleId: m.rule.id, plan: make(x, d, x.request.pathname, callType) };
  };
}
