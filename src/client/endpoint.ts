/**
 * One endpoint seen from a test: its mock URL, every management route under
 * `/api/v2/endpoints/:ep/…` (settings, rules, blobs, OpenAPI document, history, recording, state,
 * events), and what tests need on top: waiting for a request, counting and expecting requests, and
 * putting the endpoint back to empty.
 */
import type { Transport } from './http.js';
import { openEvents, type EventStream } from './events.js';
import { ContractViolationError, failedRequests } from './violations.js';
import { collect, describe, entryTime, matches } from './matching.js';
import type {
  Blob as ApiBlob,
  Endpoint,
  HarDocument,
  HarImportResult,
  HistoryEntry,
  HistoryExportQuery,
  HistoryFilter,
  HistoryListQuery,
  HistoryPage,
  Job,
  JobAccepted,
  RequestMatcher,
  Rule,
  RuleInput,
  RulePatch,
  Settings,
  SettingsPatch,
  Spec,
  StateItem,
  StatePage,
  StateType,
} from './types.js';

export interface WaitOptions {
  /** Give up after this many ms (default 5000). */
  timeout?: number;
  signal?: AbortSignal;
}

export class EndpointClient {
  private readonly api: string;

  constructor(
    private readonly t: Transport,
    readonly name: string,
  ) {
    this.api = `/api/v2/endpoints/${encodeURIComponent(name)}`;
  }

  /**
   * The endpoint's URL in the path form (`<base>/e/<name>`, no DNS needed) followed by `path`:
   * `url()` is the base URL to give the code under test, `url('/users/7')` one address.
   */
  url(path = ''): string {
    const tail = path === '' || path.startsWith('/') ? path : `/${path}`;
    return `${this.t.baseUrl}/e/${encodeURIComponent(this.name)}${tail}`;
  }

  /** Sends a request to the endpoint itself (not the API): what the code under test would send. */
  fetch(path = '/', init?: RequestInit): Promise<Response> {
    return fetch(this.url(path), init);
  }

  // Endpoint and settings

  get(): Promise<Endpoint> {
    return this.t.json('GET', this.api);
  }
  delete(): Promise<{ name: string; deleted: true }> {
    return this.t.json('DELETE', this.api);
  }
  settings(): Promise<Settings> {
    return this.t.json('GET', `${this.api}/settings`);
  }
  updateSettings(patch: SettingsPatch): Promise<Settings> {
    return this.t.json('PATCH', `${this.api}/settings`, { body: patch });
  }

  // Rules

  async rules(): Promise<Rule[]> {
    return (await this.t.json<{ data: Rule[] }>('GET', `${this.api}/rules`)).data;
  }
  addRule(rule: RuleInput): Promise<Rule> {
    return this.t.json('POST', `${this.api}/rules`, { body: rule });
  }
  replaceRules(rules: RuleInput[]): Promise<{ replaced: number }> {
    return this.t.json('PUT', `${this.api}/rules`, { body: { rules } });
  }
  deleteRules(): Promise<{ deleted: true; count: number }> {
    return this.t.json('DELETE', `${this.api}/rules`);
  }
  async reorderRules(order: string[]): Promise<{ reordered: number }> {
    return (
      await this.t.json<{ data: { reordered: number } }>('POST', `${this.api}/rules/reorder`, {
        body: { order },
      })
    ).data;
  }
  rule(ruleId: string): Promise<Rule> {
    return this.t.json('GET', `${this.api}/rules/${encodeURIComponent(ruleId)}`);
  }
  replaceRule(ruleId: string, rule: RuleInput): Promise<Rule> {
    return this.t.json('PUT', `${this.api}/rules/${encodeURIComponent(ruleId)}`, { body: rule });
  }
  updateRule(ruleId: string, patch: RulePatch): Promise<Rule> {
    return this.t.json('PATCH', `${this.api}/rules/${encodeURIComponent(ruleId)}`, { body: patch });
  }
  deleteRule(ruleId: string): Promise<{ id: string; deleted: true }> {
    return this.t.json('DELETE', `${this.api}/rules/${encodeURIComponent(ruleId)}`);
  }

  // Blobs (response bodies served by `blobPath`)

  uploadBlob(
    content: globalThis.Blob | Uint8Array | string,
    fileName: string,
  ): Promise<{ blobPath: string }> {
    const form = new FormData();
    const blob = content instanceof globalThis.Blob ? content : new globalThis.Blob([content]);
    form.set('file', blob, fileName);
    return this.t.json('POST', `${this.api}/blobs`, { body: form });
  }
  async blobs(): Promise<ApiBlob[]> {
    return (await this.t.json<{ data: ApiBlob[] }>('GET', `${this.api}/blobs`)).data;
  }
  deleteBlob(blobPath: string): Promise<{ blobPath: string; deleted: true }> {
    return this.t.json('DELETE', `${this.api}/blobs/${encodeURIComponent(blobPath)}`);
  }

  // OpenAPI document

  /** Uploads a document (JSON or YAML text, or an object sent as JSON); answers the job. */
  uploadSpec(document: string | object, opts: { intelligenceMock?: boolean } = {}): Promise<JobAccepted> {
    const text = typeof document === 'string' ? document : JSON.stringify(document);
    return this.t.json('POST', `${this.api}/specs`, {
      body: text,
      headers: { 'content-type': typeof document === 'string' ? 'text/plain' : 'application/json' },
      query: { intelligenceMock: opts.intelligenceMock },
    });
  }
  /**
   * Uploads gRPC descriptors (SPEC §13): `.proto` text, or a compiled descriptor set's bytes
   * (`protoc --include_imports --descriptor_set_out`, `buf build`); answers the job (type `grpc`).
   */
  uploadProto(descriptors: string | Uint8Array): Promise<JobAccepted> {
    return this.t.json('POST', `${this.api}/specs`, {
      body: descriptors,
      headers: {
        'content-type': typeof descriptors === 'string' ? 'text/x-protobuf' : 'application/x-protobuf',
      },
      query: { type: 'grpc' },
    });
  }
  async spec(): Promise<Spec> {
    return (await this.t.json<{ data: Spec }>('GET', `${this.api}/specs`)).data;
  }
  async deleteSpec(): Promise<{ deleted: true }> {
    return (await this.t.json<{ data: { deleted: true } }>('DELETE', `${this.api}/specs`)).data;
  }
  job(jobId: string): Promise<Job> {
    return this.t.json('GET', `${this.api}/jobs/${encodeURIComponent(jobId)}`);
  }
  /** Polls a job until it is COMPLETED or FAILED (then throws), for at most `timeout` ms. */
  async waitForJob(jobId: string, { timeout = 10_000 }: { timeout?: number } = {}): Promise<Job> {
    const deadline = Date.now() + timeout;
    for (;;) {
      const job = await this.job(jobId);
      if (job.status === 'COMPLETED') return job;
      if (job.status === 'FAILED') throw new Error(`Job ${jobId} failed: ${job.message}`);
      if (Date.now() > deadline) throw new Error(`Job ${jobId} still ${job.status} after ${timeout} ms.`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  // History

  requests(query: HistoryListQuery = {}): Promise<HistoryPage> {
    return this.t.json('GET', `${this.api}/requests`, { query });
  }
  request(id: string): Promise<HistoryEntry> {
    return this.t.json('GET', `${this.api}/requests/${encodeURIComponent(id)}`);
  }
  deleteRequests(filter: HistoryFilter = {}): Promise<{ deleted: true; count: number }> {
    return this.t.json('DELETE', `${this.api}/requests`, { query: filter });
  }
  deleteRequest(id: string): Promise<{ id: string; deleted: true }> {
    return this.t.json('DELETE', `${this.api}/requests/${encodeURIComponent(id)}`);
  }
  /** A file of a recorded multipart request (or, with `CalloutRequest`, one its rule's callout sent). */
  async requestFile(
    id: string,
    fieldName: string,
    component: 'Request' | 'CalloutRequest' = 'Request',
  ): Promise<Uint8Array> {
    const res = await this.t.raw('GET', `${this.api}/requests/${encodeURIComponent(id)}/multipart/download`, {
      query: { fieldName, component },
    });
    return new Uint8Array(await res.arrayBuffer());
  }
  /**
   * The history the filters select as a HAR 1.2 document (newest first, at most `limit` entries,
   * HISTORY_EXPORT_MAX by default): for a browser's network panel, a HAR viewer or `routeFromHAR`.
   */
  exportHar(query: HistoryExportQuery = {}): Promise<HarDocument> {
    return this.t.json('GET', `${this.api}/requests`, { query: { ...query, format: 'har' } });
  }
  /** The same entries, verbose, read one NDJSON line at a time as the server streams them. */
  async *exportNdjson(query: HistoryExportQuery = {}): AsyncGenerator<HistoryEntry> {
    const res = await this.t.raw('GET', `${this.api}/requests`, { query: { ...query, format: 'ndjson' } });
    if (!res.body) return;
    const decoder = new TextDecoder();
    let rest = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      rest += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = rest.indexOf('\n')) !== -1) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        if (line !== '') yield JSON.parse(line) as HistoryEntry;
      }
    }
    rest += decoder.decode();
    if (rest.trim() !== '') yield JSON.parse(rest) as HistoryEntry;
  }
  /**
   * Turns each entry of a HAR document into a mock rule at the bottom of the list (`preview`: only
   * says what would be created and skipped). `headers` names request headers to match on.
   */
  importHar(har: unknown, options: { preview?: boolean; headers?: string[] } = {}): Promise<HarImportResult> {
    const query: Record<string, string | boolean> = {};
    if (options.preview !== undefined) query['preview'] = options.preview;
    if (options.headers && options.headers.length > 0) query['headers'] = options.headers.join(',');
    return this.t.json('POST', `${this.api}/import/har`, { query, body: har });
  }
  /** Turns a recorded exchange into a mock rule at the bottom of the list. */
  recordRule(id: string): Promise<Rule> {
    return this.t.json('POST', `${this.api}/requests/${encodeURIComponent(id)}/rule`);
  }

  // State

  state(
    query: { limit?: number; offset?: number; type?: StateType; keyPrefix?: string } = {},
  ): Promise<StatePage> {
    return this.t.json('GET', `${this.api}/state`, { query });
  }
  putState(
    items: { type: StateType; key: string; value: unknown }[],
  ): Promise<{ created: number; updated: number }> {
    return this.t.json('PUT', `${this.api}/state`, { body: { items } });
  }
  /** Deletes the listed items, or every item when none are listed. */
  deleteState(items?: { type: StateType; key: string }[]): Promise<{ deleted: true; count: number }> {
    return this.t.json('DELETE', `${this.api}/state`, { body: items ? { items } : { all: true } });
  }
  stateItem(type: StateType, key: string): Promise<StateItem> {
    return this.t.json('GET', `${this.api}/state/${type}/${encodeURIComponent(key)}`);
  }
  deleteStateItem(type: StateType, key: string): Promise<{ key: string; deleted: true }> {
    return this.t.json('DELETE', `${this.api}/state/${type}/${encodeURIComponent(key)}`);
  }

  // What tests need

  /** The live event stream (request.created, rule.*, settings.updated, tunnel.*). */
  events(signal?: AbortSignal): Promise<EventStream> {
    return openEvents(this.t, this.name, signal);
  }

  /**
   * Resolves with the newest entry of the history matching `m`, or else the next one recorded, as
   * the live event stream reports it; rejects after `timeout` ms (default 5000). Pass `since` to
   * ignore older entries, or call `reset()` before the test.
   */
  async waitForRequest(m: RequestMatcher = {}, opts: WaitOptions = {}): Promise<HistoryEntry> {
    const timeout = opts.timeout ?? 5000;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(), timeout);
    try {
      // Subscribed first, then the history read: an entry written in between is in one or the other.
      const stream = await this.events(controller.signal);
      try {
        const seen = await this.matchingRequests(m);
        if (seen[0]) return seen[0];
        for await (const ev of stream) {
          if (ev.event !== 'request.created') continue;
          const entry = ev.data as HistoryEntry;
          if (matches(m, entry)) return entry;
        }
      } finally {
        stream.close();
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
    if (opts.signal?.aborted) throw new Error(`Stopped waiting for ${describe(m)} on "${this.name}".`);
    throw new Error(`No ${describe(m)} reached "${this.name}" within ${timeout} ms.`);
  }

  /** The history entries matching `m`, newest first. */
  matchingRequests(m: RequestMatcher = {}): Promise<HistoryEntry[]> {
    return collect((q) => this.requests(q), m);
  }

  /** How many history entries match `m`. */
  async requestCount(m: RequestMatcher = {}): Promise<number> {
    return (await this.matchingRequests(m)).length;
  }

  /**
   * Throws unless the history holds entries matching `m`: exactly `times` of them when given, else
   * at least one. Answers the matching entries, oldest first.
   */
  async expectRequest(m: RequestMatcher = {}, opts: { times?: number } = {}): Promise<HistoryEntry[]> {
    const found = (await this.matchingRequests(m)).sort((a, b) => entryTime(a) - entryTime(b));
    const ok = opts.times === undefined ? found.length > 0 : found.length === opts.times;
    if (!ok) {
      const want = opts.times === undefined ? 'at least 1' : String(opts.times);
      throw new Error(`Expected ${want} × ${describe(m)} on "${this.name}", found ${found.length}.`);
    }
    return found;
  }

  /**
   * Throws a ContractViolationError unless every request matching `m` (all by default) kept the
   * endpoint's OpenAPI document, and so did its answer (SPEC §7): lists the history with
   * `validation=failed` and names each failed request (method, path, status) with its violations.
   * Requests no document described, or recorded with validation `off`, are not checked.
   */
  async expectNoViolations(m: RequestMatcher = {}): Promise<void> {
    const failed = await failedRequests((q) => this.requests(q), m);
    if (failed.length > 0) throw new ContractViolationError(this.name, failed);
  }

  /** Puts the endpoint back to empty: no rules, no history, no state (settings are kept). */
  async reset(): Promise<void> {
    await this.deleteRules();
    await this.deleteRequests();
    await this.deleteState();
  }
}
