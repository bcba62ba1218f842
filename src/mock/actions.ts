/**
 * Rule actions (SPEC §4): a matched rule's `mock` or `weighted` action, compiled once per rules change
 * into a function that answers an exchange. Templated bodies and header values are rendered by the
 * template engine (only when `templated: true`); a rendered header value carrying CR or LF is refused
 * (left out, and the problem recorded) so that a template cannot inject headers. `delay` waits before
 * the answer is sent (a number, or a draw from its distribution, latency.ts); `fault` answers with
 * that fault instead (faults.ts), `chunked` has the door dribble the body. A `callout` action is compiled by the CalloutCompiler it is given (callout.ts:
 * it needs the outbound client and the background queue), with this module's response renderer for
 * the answer an `async` callout gives at once. `crud` is compiled by crud.ts (the rules step picks it).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Exchange, Outcome } from '../endpoint/index.js';
import { addHeader, headerMap, TEXT_TYPE, type Fault } from '../http/index.js';
import { headerValueProblem } from '../template/index.js';
import type { Action, Rule } from './rule-model.js';
import type { ChunkedSpec, DelaySpec } from './latency-schema.js';
import { mayDelay, sampleDelay, type Random } from './latency.js';
import { withFault } from './faults.js';

/** What a template renders to, for one exchange. */
export type Rendered = { ok: true; text: string; problems: string[] } | { ok: false; error: string };

/** Compiles template text once; the result renders it per exchange. */
export type TemplateCompiler = (
  source: string,
) => (x: Exchange, pathParams: Readonly<Record<string, string>>) => Rendered;

/** Answers a matched exchange; undefined when the action is not run by this version. */
export type CompiledAction = (
  x: Exchange,
  pathParams: Readonly<Record<string, string>>,
) => Promise<Outcome | undefined> | Outcome | undefined;

/** Renders the action's own response (status, headers, body, delay) for one exchange; at once without a delay. */
export type ResponseRenderer = (
  x: Exchange,
  pathParams: Readonly<Record<string, string>>,
) => Outcome | Promise<Outcome>;

/** Compiles a `callout` action (callout.ts), given the renderer of the action's own response. */
export type CalloutCompiler = (
  action: Extract<Action, { type: 'callout' }>,
  ruleId: string,
  compile: TemplateCompiler,
  respond: ResponseRenderer,
) => CompiledAction;

/** A response of a `mock` action or of a `weighted` one. */
interface ResponseSpec {
  status?: number;
  headers?: { key: string; value: string; templated?: boolean }[];
  body?: string;
  templated?: boolean;
  delay?: DelaySpec;
  fault?: Fault;
  chunked?: ChunkedSpec;
}

/** A blob's bytes and type, for a mock action that answers with one. */
export interface BlobBody {
  data: Buffer;
  contentType: string;
}

type Part = (x: Exchange, p: Readonly<Record<string, string>>) => Rendered;

const fixed =
  (text: string): Part =>
  () => ({ ok: true, text, problems: [] });

/** A body that is JSON (or a template that reads like it) is sent as JSON unless the rule says otherwise. */
function defaultType(body: string): string {
  const t = body.trimStart();
  return t.startsWith('{') || t.startsWith('[') ? 'application/json; charset=utf-8' : TEXT_TYPE;
}

/** Framing headers: Node computes them for the body it sends; a stored one would contradict it. */
const FRAMING = new Set(['content-length', 'transfer-encoding']);

function compileResponse(
  r: ResponseSpec,
  compile: TemplateCompiler,
  ruleId: string,
  random: Random,
  name?: string,
  blob?: BlobBody,
) {
  const body = r.body ?? '';
  const bodyPart: Part = r.templated === true ? compile(body) : fixed(body);
  const framing = [
    ...new Set((r.headers ?? []).map((h) => h.key.toLowerCase()).filter((k) => FRAMING.has(k))),
  ];
  const headers = (r.headers ?? [])
    .filter((h) => !FRAMING.has(h.key.toLowerCase()))
    .map((h) => ({
      key: h.key.toLowerCase(),
      value: h.templated === true ? compile(h.value) : fixed(h.value),
    }));
  const framingProblems = framing.map(
    (k) => `Header "${k}" was left out: the body's length and framing are set as the answer is sent.`,
  );
  const hasType = headers.some((h) => h.key === 'content-type');
  const type = blob ? blob.contentType : defaultType(body);
  const status = r.status ?? 200;
  const delays = mayDelay(r.delay);
  const { fault } = r;
  const chunked = r.chunked && { chunks: r.chunked.chunks, totalMs: Math.round(r.chunked.totalDuration) };

  // Answers at once unless the rule delays its answer (no promise, no turn of the event loop).
  return (x: Exchange, p: Readonly<Record<string, string>>): Outcome | Promise<Outcome> => {
    const problems: string[] = [...framingProblems];
    const out = headerMap();
    for (const h of headers) {
      const v = h.value(x, p);
      if (!v.ok) return templateFailure(v.error, ruleId);
      problems.push(...v.problems);
      // Rendered and stored values alike (one stored before the check at save would make every answer a 500).
      const unsendable = headerValueProblem(v.text);
      if (unsendable !== undefined) {
        problems.push(
          `Header "${h.key}" was left out: ${unsendable.replace('its value', 'its rendered value')}.`,
        );
        continue;
      }
      addHeader(out, h.key, v.text);
    }
    if (!hasType) out['content-type'] = type;
    const b: Rendered = blob ? { ok: true, text: '', problems: [] } : bodyPart(x, p);
    if (!b.ok) return templateFailure(b.error, ruleId);
    problems.push(...b.problems);
    let outcome: Outcome = {
      behavior: 'mock-rule',
      ruleId,
      answer: { status, headers: out, body: blob ? blob.data : b.text },
    };
    if (chunked) outcome.answer.chunked = chunked;
    if (name !== undefined && name !== '') outcome.responseName = name;
    if (problems.length > 0) outcome.problems = problems;
    if (fault !== undefined) outcome = withFault(outcome, fault);
    const delay = delays ? sampleDelay(r.delay, random) : 0;
    return delay > 0 ? sleep(delay).then(() => outcome) : outcome;
  };
}

/** SPEC §6: when no response can be produced, 561 text/plain naming the error. */
function templateFailure(error: string, ruleId: string): Outcome {
  return {
    behavior: 'mock-rule',
    ruleId,
    answer: {
      status: 561,
      headers: { 'content-type': TEXT_TYPE },
      body: `Cannot produce the response: ${error}\n`,
    },
    problems: [error],
  };
}

/** Picks an index by weight; `random` is in [0, 1). Weights are numbers summing to 100. */
export function pickWeighted(weights: readonly number[], random: number): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let at = random * total;
  for (let i = 0; i < weights.length; i++) {
    at -= weights[i]!;
    if (at < 0) return i;
  }
  // Rounding left `at` at 0: the last response with a weight.
  for (let i = weights.length - 1; i >= 0; i--) if (weights[i]! > 0) return i;
  return weights.length - 1;
}

/** Compiles a rule's action. */
export function compileAction(
  rule: Pick<Rule, 'id' | 'action'>,
  compile: TemplateCompiler,
  random: () => number = Math.random,
  blobOf: (name: string) => BlobBody | undefined = () => undefined,
  callouts?: CalloutCompiler,
): CompiledAction {
  const a: Action = rule.action;
  switch (a.type) {
    case 'mock':
      if (a.blobPath !== undefined) {
        const blob = blobOf(a.blobPath);
        // The API refuses to delete a blob a rule names; a missing one is a fault, said so in the answer.
        if (!blob) return () => templateFailure(`the blob "${a.blobPath}" does not exist`, rule.id);
        return compileResponse(a, compile, rule.id, random, undefined, blob);
      }
      return compileResponse(a, compile, rule.id, random);
    case 'weighted': {
      const responses = a.responses.map((r) => compileResponse(r, compile, rule.id, random, r.name));
      const weights = a.responses.map((r) => r.weight);
      return (x, p) => responses[pickWeighted(weights, random())]!(x, p);
    }
    case 'callout':
      return callouts
        ? callouts(a, rule.id, compile, compileResponse(a, compile, rule.id, random))
        : () => undefined;
    case 'grpc':
      // Answered by the gRPC plane only: its rule also has a grpc_method condition (grpc-rule-checks.ts),
      // which no HTTP request meets; were one to get here, the exchange goes on down the pipeline.
      return () => undefined;
    default:
      return () => undefined;
  }
}
