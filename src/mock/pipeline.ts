/**
 * The request pipeline of a user endpoint (SPEC §5). Rules and the fallback chain plug in here; what
 * answers when nothing else does is the default response, overridable per endpoint.
 */
import type { AppContext } from '../context.js';
import type { CapturedRequest } from '../http/index.js';
import type { Behavior, EndpointRecord } from '../store/index.js';
import type { Answer } from './record.js';

export interface PipelineResult {
  answer: Answer;
  behavior: Behavior;
  ruleId?: string | null;
  problems?: string[];
}

interface DefaultResponseSetting {
  status?: number;
  headers?: Record<string, string> | { key: string; value: string }[];
  body?: string;
}

function headerObject(h: DefaultResponseSetting['headers']): Record<string, string> {
  if (!h) return {};
  if (Array.isArray(h)) return Object.fromEntries(h.map((x) => [x.key.toLowerCase(), x.value]));
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The friendly answer for a path nothing is configured for. */
export function defaultAnswer(ep: EndpointRecord, c: CapturedRequest): Answer {
  const custom = ep.settings['defaultResponse'] as DefaultResponseSetting | null | undefined;
  if (custom && typeof custom === 'object') {
    const headers = headerObject(custom.headers);
    headers['content-type'] ??= 'text/plain; charset=utf-8';
    return { status: custom.status ?? 200, headers, body: custom.body ?? '' };
  }
  return {
    status: 200,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body:
      `Mockingbird endpoint "${ep.name}" has nothing configured for ${c.method} ${c.pathname} yet. ` +
      `Add a rule with POST /api/v2/endpoints/${ep.name}/rules or in the dashboard.\n`,
  };
}

export async function answerEndpoint(
  _ctx: AppContext,
  ep: EndpointRecord,
  c: CapturedRequest,
): Promise<PipelineResult> {
  return { answer: defaultAnswer(ep, c), behavior: 'default' };
}
