/**
 * Applying a planned file to this server, through the commands the management API's routes use
 * (src/admin/: so a file and the API check and change an endpoint alike, and each change is announced
 * the same way). The file is the source of truth for the endpoints it names: each one's
 * settings are replaced (the plan kept unless the file names one), its rules replaced in one
 * transaction, its OpenAPI document replaced or removed; state items are seeded only where the item
 * does not exist yet, so that a reload keeps what requests have counted. Other endpoints are left alone.
 */
import type { ConfigFileDeps } from './deps.js';
import {
  changeSettings,
  createEndpoint,
  deleteSpec,
  putState,
  replaceRules,
  storeBlob,
  uploadGrpcSpec,
  uploadSpec,
} from '../admin/index.js';
import { AppError, type ErrorDetail } from '../errors.js';
import type { EndpointRecord } from '../store/index.js';
import type { PlannedEndpoint } from './plan.js';
import { located, type Problem, type Source } from './source.js';

/** How long a start waits for an OpenAPI document to be stored and compiled. */
const SPEC_WAIT_MS = 60_000;

function problemsOf(err: unknown, from: string, to: string): Problem[] {
  const details = (err as { details?: ErrorDetail[] }).details;
  const message = err instanceof Error ? err.message : String(err);
  if (!details || details.length === 0) return [{ path: to, message }];
  return details.map((d) => ({
    path: d.path.startsWith(from) ? to + d.path.slice(from.length) : to + (d.path === '/' ? '' : d.path),
    message: d.message,
  }));
}

/** Runs one step; an API error becomes the file's problem at `to`. */
async function step<T>(src: Source, from: string, to: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    throw located(src, problemsOf(err, from, to));
  }
}

async function endpointFor(ctx: ConfigFileDeps, name: string): Promise<EndpointRecord> {
  const found = await ctx.store.getEndpoint(name);
  if (found) return found;
  return (await createEndpoint(ctx, name)) ?? (await ctx.store.getEndpoint(name))!;
}

async function waitForJob(ctx: ConfigFileDeps, endpoint: string, id: string): Promise<string | undefined> {
  const until = Date.now() + SPEC_WAIT_MS;
  while (Date.now() < until) {
    const job = await ctx.store.getSpecJob(endpoint, id);
    if (job?.status === 'COMPLETED') return undefined;
    if (job?.status === 'FAILED') return job.message;
    await new Promise((r) => setTimeout(r, 20));
  }
  return 'the document was not compiled in time';
}

async function applyEndpoint(ctx: ConfigFileDeps, src: Source, p: PlannedEndpoint): Promise<void> {
  const at = `/endpoints/${p.name}`;
  let ep = await step(src, '', at, () => endpointFor(ctx, p.name));
  await step(src, '', `${at}/settings`, () =>
    changeSettings(ctx, ep, p.settings, { requireAdmin: () => undefined, replace: true }),
  );
  ep = (await ctx.store.getEndpoint(p.name)) ?? ep; // the plan may have changed
  for (const blob of p.blobs)
    if (!(await ctx.store.getBlob(p.name, blob.name)))
      await step(src, '', `${at}/blobs`, () =>
        storeBlob(ctx, { endpoint: p.name, size: blob.data.length, createdAt: ctx.now(), ...blob }),
      );
  await step(src, '', at, () => replaceRules(ctx, ep, p.rules));
  if (p.state.length > 0) {
    const { items } = await ctx.store.readState(p.name, p.state);
    const held = new Set(items.map((i) => `${i.type}\0${i.key}`));
    const missing = p.state.filter((i) => !held.has(`${i.type}\0${i.key}`));
    if (missing.length > 0) await step(src, '/items', `${at}/state`, () => putState(ctx, ep, missing));
  }
  const stored = await ctx.store.getSpec(p.name);
  if (p.openapi) {
    const { spec, intelligenceMock } = p.openapi;
    if (stored?.document === spec.document && stored.intelligenceMock === intelligenceMock) return;
    const job = await step(src, '', `${at}/openapi`, () => uploadSpec(ctx, ep, spec, intelligenceMock));
    const failed = await waitForJob(ctx, p.name, job.id);
    if (failed) throw located(src, [{ path: `${at}/openapi`, message: failed }]);
  } else if (p.grpc) {
    const { data, filename, descriptorSet } = p.grpc;
    if (stored?.type === 'grpc' && stored.document === descriptorSet) return;
    const job = await step(src, '', `${at}/grpc`, () => uploadGrpcSpec(ctx, ep, { data, filename }));
    const failed = await waitForJob(ctx, p.name, job.id);
    if (failed) throw located(src, [{ path: `${at}/grpc`, message: failed }]);
  } else if (stored?.type === 'openapi') {
    // A file without `openapi` removes an OpenAPI document, not gRPC descriptors uploaded by the API.
    await deleteSpec(ctx, ep);
  }
}

/** Applies every planned endpoint in file order; the first refusal stops with the file's line and field. */
export async function applyPlan(ctx: ConfigFileDeps, src: Source, plan: PlannedEndpoint[]): Promise<void> {
  for (const p of plan) await applyEndpoint(ctx, src, p);
}
