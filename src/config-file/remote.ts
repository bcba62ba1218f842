/**
 * `mockingbird export` and `mockingbird import`: the same file format, through a running server's
 * management API (so they work against any server an API key reaches). Import checks the file whole
 * first, as a start does, then applies each endpoint with the API's routes: settings replaced (a PATCH
 * of every setting), files uploaded as blobs, rules replaced with one `PUT …/rules`, missing state
 * items seeded, the OpenAPI document uploaded (or removed when the file names none).
 */
import { stringify } from 'yaml';
import { loadConfig } from '../config.js';
import type { ErrorDetail } from '../errors.js';
import { defaultSettings, mergeSettings, type SettingsPatch } from '../mock/index.js';
import type { JsonObject } from '../store/index.js';
import { planConfig, type PlannedEndpoint } from './plan.js';
import { located, readSource, type Source } from './source.js';

export interface RemoteOptions {
  server: string;
  apiKey: string;
  /** Export: only this endpoint. */
  endpoint?: string;
  /** Where notes for the user go (blobs and documents an export cannot carry). */
  warn?: (line: string) => void;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

function client(o: RemoteOptions) {
  const base = o.server.replace(/\/+$/, '') + '/api/v2';
  return async function call<T>(method: string, path: string, body?: unknown, type?: string): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${o.apiKey}` };
    let payload: string | FormData | undefined;
    if (body instanceof FormData || typeof body === 'string') payload = body;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (typeof payload === 'string') headers['content-type'] = type ?? 'application/json';
    const res = await fetch(base + path, {
      method,
      headers,
      ...(payload !== undefined ? { body: payload } : {}),
    });
    const text = await res.text();
    const json = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) {
      const e = (json as { error?: { message?: string; details?: ErrorDetail[] } } | undefined)?.error;
      throw new ApiError(res.status, e?.message ?? `${method} ${path}: HTTP ${res.status}`, e?.details ?? []);
    }
    return json as T;
  };
}

type Call = ReturnType<typeof client>;

/** An endpoint's settings as the API answers them: every part, the plan's name among them. */
type SettingsAnswer = JsonObject & { plan: string };

/** Settings that differ from the defaults, as a patch (the plan left to each server). */
function settingsDiff(settings: SettingsAnswer): SettingsPatch {
  const defaults = defaultSettings(settings.plan) as unknown as JsonObject;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(settings)) {
    if (k === 'plan') continue;
    const d = defaults[k];
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && typeof d === 'object' && d !== null) {
      const sub: JsonObject = {};
      for (const [sk, sv] of Object.entries(v))
        if (JSON.stringify(sv) !== JSON.stringify((d as JsonObject)[sk])) sub[sk] = sv;
      if (Object.keys(sub).length > 0) out[k] = sub;
    } else if (JSON.stringify(v) !== JSON.stringify(d)) out[k] = v;
  }
  return out;
}

/** A rule as the file writes it: no id, no field left at its default. */
function tidyRule(rule: JsonObject): JsonObject {
  const { id: _id, ...r } = rule;
  if (r['enabled'] === true) delete r['enabled'];
  if (r['description'] === '') delete r['description'];
  const tidy = (a: JsonObject) => {
    if (Array.isArray(a['headers']) && a['headers'].length === 0) delete a['headers'];
    if (a['templated'] === false) delete a['templated'];
    if (a['delay'] === 0) delete a['delay'];
  };
  const action = r['action'] as JsonObject;
  tidy(action);
  if (Array.isArray(action['responses'])) for (const x of action['responses']) tidy(x as JsonObject);
  return r;
}

/** The server's endpoints (all but `echo`, or the one asked for) in the file format, as YAML. */
export async function exportConfig(o: RemoteOptions): Promise<string> {
  const call = client(o);
  const warn = o.warn ?? (() => undefined);
  type Ep = { name: string; builtIn: boolean };
  const names =
    o.endpoint !== undefined
      ? [(await call<Ep>('GET', `/endpoints/${encodeURIComponent(o.endpoint)}`)).name]
      : (await call<{ data: Ep[] }>('GET', '/endpoints')).data.filter((e) => !e.builtIn).map((e) => e.name);
  const endpoints: Record<string, JsonObject> = {};
  for (const name of names) {
    const at = `/endpoints/${encodeURIComponent(name)}`;
    const out: JsonObject = {};
    const settings = settingsDiff(await call<SettingsAnswer>('GET', `${at}/settings`));
    if (Object.keys(settings).length > 0) out['settings'] = settings;
    const rules = (await call<{ data: JsonObject[] }>('GET', `${at}/rules`)).data.map(tidyRule);
    for (const r of rules) {
      const blob = (r['action'] as JsonObject)['blobPath'];
      if (typeof blob === 'string')
        warn(
          `${name}: a rule answers with the blob "${blob}", kept by name; put "blobFile: <path>" in its place to carry the file`,
        );
    }
    if (rules.length > 0) out['rules'] = rules;
    const state: JsonObject[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await call<{ data: JsonObject[]; pagination: { hasMore: boolean } }>(
        'GET',
        `${at}/state?limit=100&offset=${offset}`,
      );
      state.push(...page.data.map((i) => ({ type: i['type']!, key: i['key']!, value: i['value']! })));
      if (!page.pagination.hasMore) break;
    }
    if (state.length > 0) out['state'] = state;
    try {
      const spec = await call<{ data: { type: string; title?: string } }>('GET', `${at}/specs`);
      warn(
        spec.data.type === 'grpc'
          ? `${name}: has gRPC descriptors, not exported; add "grpc: <file.proto>" to keep them`
          : `${name}: has the OpenAPI document "${spec.data.title}", not exported; add "openapi: <file>" to keep it`,
      );
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
    endpoints[name] = out;
  }
  const header = `# Mockingbird configuration exported from ${o.server} on ${new Date().toISOString()}\n`;
  return header + stringify({ version: 1, endpoints }, { lineWidth: 0 });
}

async function importEndpoint(call: Call, src: Source, p: PlannedEndpoint): Promise<void> {
  const at = `/endpoints/${p.name}`;
  const url = `/endpoints/${encodeURIComponent(p.name)}`;
  const asFile = async (to: string, from: string, run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const details = err.details.length > 0 ? err.details : [{ path: '/', message: err.message }];
      throw located(
        src,
        details.map((d) => ({
          path: to + (d.path.startsWith(from) ? d.path.slice(from.length) : d.path === '/' ? '' : d.path),
          message: d.message,
        })),
      );
    }
  };
  await asFile(at, '', async () => {
    try {
      await call('GET', url);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      await call('POST', '/endpoints', { name: p.name });
    }
  });
  await asFile(`${at}/settings`, '', async () => {
    const current = await call<SettingsAnswer>('GET', `${url}/settings`);
    const full = mergeSettings(defaultSettings(current.plan), p.settings);
    await call('PATCH', `${url}/settings`, full);
  });
  const names = new Map<string, string>();
  for (const blob of p.blobs)
    await asFile(at, '', async () => {
      const form = new FormData();
      form.append('file', new Blob([blob.data], { type: blob.contentType }), blob.name);
      names.set(blob.name, (await call<{ blobPath: string }>('POST', `${url}/blobs`, form)).blobPath);
    });
  const rules = p.rules.map((r) => {
    const a = (r as { action?: { blobPath?: string } }).action;
    const renamed = a?.blobPath !== undefined ? names.get(a.blobPath) : undefined;
    return renamed ? { ...(r as object), action: { ...a, blobPath: renamed } } : r;
  });
  await asFile(at, '', () => call('PUT', `${url}/rules`, { rules }));
  const missing: PlannedEndpoint['state'] = [];
  for (const item of p.state) {
    try {
      await call('GET', `${url}/state/${item.type}/${encodeURIComponent(item.key)}`);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
      missing.push(item);
    }
  }
  if (missing.length > 0)
    await asFile(`${at}/state`, '/items', () => call('PUT', `${url}/state`, { items: missing }));
  if (p.openapi) {
    const { text, intelligenceMock } = p.openapi;
    await asFile(`${at}/openapi`, '', async () => {
      const type = text.trimStart().startsWith('{') ? 'application/json' : 'application/yaml';
      const job = await call<{ jobId: string }>(
        'POST',
        `${url}/specs?intelligenceMock=${intelligenceMock}`,
        text,
        type,
      );
      for (let i = 0; i < 600; i++) {
        const j = await call<{ status: string; message: string }>('GET', `${url}/jobs/${job.jobId}`);
        if (j.status === 'COMPLETED') return;
        if (j.status === 'FAILED') throw new ApiError(400, j.message);
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new ApiError(504, 'the document was not compiled in time');
    });
  } else {
    try {
      await call('DELETE', `${url}/specs`);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
  }
}

/** Applies a file to a running server through its API; ConfigFileError names the file's line and field. */
export async function importConfig(file: string, o: RemoteOptions): Promise<string[]> {
  const src = readSource(file);
  const plan = await planConfig(src, loadConfig({}, {}));
  const call = client(o);
  for (const p of plan) await importEndpoint(call, src, p);
  return plan.map((p) => p.name);
}
