/**
 * The compiled spec of an endpoint, for the pipeline's OpenAPI step: read and compiled on first use
 * after each change, then kept beside the cached endpoint record (as the rules are), so a request
 * never parses the document again. The upload job warms it before it reports COMPLETED.
 */
import type { OasDeps } from './deps.js';
import type { EndpointRecord } from '../store/index.js';
import { RecordMemo } from '../endpoint/index.js';
import { fakerOf, loadFakeData } from '../template/index.js';
import type { CapturedRequest } from '../http/index.js';
import { compileSpec, type CompiledSpec } from './compile.js';
import { SchemaBudgetError } from './flatten.js';
import { respond, type OasAnswer } from './respond.js';

const compiled = new RecordMemo<CompiledSpec | null>();

type SpecContext = Pick<OasDeps, 'store' | 'config' | 'log'>;

async function load(ctx: SpecContext, ep: EndpointRecord): Promise<CompiledSpec | null> {
  const spec = await ctx.store.getSpec(ep.name);
  // gRPC descriptors (SPEC §13) are served by the gRPC plane: for HTTP requests, as if no spec.
  if (!spec || spec.type !== 'openapi') return null;
  await loadFakeData();
  try {
    return await compileSpec(spec.document, spec.intelligenceMock, undefined, ctx.config.oasSchemaBudget);
  } catch (err) {
    // Stored under a larger OAS_SCHEMA_BUDGET than today's: not served, rather than expanded past it.
    if (!(err instanceof SchemaBudgetError)) throw err;
    ctx.log.error(
      { endpoint: ep.name, err: err.message },
      'OpenAPI spec not served: schemas past the budget',
    );
    return null;
  }
}

/** The endpoint's compiled spec, or null when it has none. */
export function compiledSpecOf(ctx: SpecContext, ep: EndpointRecord): Promise<CompiledSpec | null> {
  return compiled.get(ep, () => load(ctx, ep));
}

/**
 * The endpoint's compiled spec when it has been read already (null: it has none), else undefined:
 * read without waiting a turn, so a request to an endpoint without a document pays nothing.
 */
export function readySpecOf(ep: EndpointRecord): CompiledSpec | null | undefined {
  return compiled.ready(ep);
}

/**
 * The spec's answer to `request` in the endpoint's `locale`, or undefined when the endpoint has no
 * spec or no operation of it fits the method and path.
 */
export async function specAnswer(
  ctx: SpecContext,
  ep: EndpointRecord,
  request: CapturedRequest,
  locale: string,
): Promise<OasAnswer | undefined> {
  const spec = await compiledSpecOf(ctx, ep);
  if (!spec) return undefined;
  const m = spec.match(request.method, request.pathname, request.query);
  const faker = fakerOf(locale);
  if (!m || !faker) return undefined;
  return respond(spec, m.op, request, faker);
}
