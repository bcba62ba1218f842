/**
 * The storage contract. One interface, two implementations (SQLite by default, PostgreSQL with
 * DATABASE_URL) sharing one Kysely codebase and one set of migrations. The store knows nothing of
 * rule or settings schemas: it keeps their JSON, and the API validates it.
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export interface ApiKeyRecord {
  id: string;
  /** SHA-256 of the key, hex. */
  hash: string;
  /** Null for an admin key. */
  endpoint: string | null;
  createdAt: number;
}

export interface EndpointRecord {
  name: string;
  createdAt: number;
  settings: JsonObject;
}

/** A rule as stored: its id and its JSON document (everything else of the rule). */
export interface RuleRecord {
  id: string;
  data: JsonObject;
}

export type Behavior =
  'echo' | 'mock-rule' | 'tunnel' | 'proxy' | 'oas' | 'default' | 'crud' | 'callout' | 'rejected';

export interface FileMeta {
  name: string;
  fileName: string;
  contentType: string;
  size: number;
}

export interface HistoryEntry {
  id: string;
  endpoint: string;
  /** Epoch milliseconds. */
  createdAt: number;
  method: string;
  path: string;
  ip: string;
  status: number;
  behavior: Behavior;
  ruleMatched: boolean;
  ruleId: string | null;
  durationMs: number;
  requestHeaders: Record<string, string>;
  requestBody: string;
  requestBodyTruncated: boolean;
  responseHeaders: Record<string, string | string[]>;
  responseBody: string;
  responseBodyTruncated: boolean;
  files: FileMeta[];
  /** Template or pipeline problems noted while answering. */
  problems: string[];
  /** The name of the response a weighted rule action chose. */
  responseName?: string;
}

export interface HistoryFile {
  requestId: string;
  fieldName: string;
  fileName: string;
  contentType: string;
  size: number;
  data: Buffer;
}

export interface NewHistoryEntry {
  entry: HistoryEntry;
  files: HistoryFile[];
}

/** Filters of the history list and delete; all optional, combined with AND. */
export interface HistoryFilter {
  dateFrom?: number;
  dateTo?: number;
  method?: string;
  /** Substring of the path, or a regular expression. */
  path?: { substring: string } | { regex: string };
  status?: number;
  behavior?: string;
  ruleMatched?: boolean;
  requestBody?: string;
  responseBody?: string;
}

export interface Page<T> {
  data: T[];
  cursor: string | null;
  hasMore: boolean;
}

export interface StateItem {
  type: 'counter' | 'string' | 'list';
  key: string;
  value: Json;
  lastModified: number;
}

/** A response body uploaded for mock actions (`blobPath`). */
export interface BlobMeta {
  name: string;
  contentType: string;
  size: number;
  createdAt: number;
}

export interface BlobRecord extends BlobMeta {
  endpoint: string;
  data: Buffer;
}

// ---- CRUD collections (issue 13 part 3) ----

/** One item of a CRUD collection (a rule's `crud` action): its id and its JSON object. */
export interface CrudItem {
  id: string;
  data: JsonObject;
  createdAt: number;
  updatedAt: number;
}

/** The bounds a write to a CRUD collection must stay within (SPEC §12). */
export interface CrudCaps {
  /** Items one collection holds. */
  maxItems: number;
  /** Items all collections of one endpoint hold. */
  maxEndpointItems: number;
  /** Bytes (JSON text of the items) all collections of one endpoint hold. */
  maxEndpointBytes: number;
  /** Bytes of one item's JSON text. */
  maxItemBytes: number;
}

/** Why a CRUD write did not happen. */
export type CrudRefusal = 'conflict' | 'too_large' | 'collection_full' | 'endpoint_full';

// ---- end CRUD collections ----

export interface TotpRecord {
  id: string;
  issuer: string | null;
  algorithm: 'SHA1' | 'SHA256' | 'SHA512';
  digits: number;
  period: number;
  /** The secret, encrypted (AES-256-GCM) and encoded by the TOTP module. */
  secretEnc: string;
  createdAt: number;
  lastUsedAt: number;
}

export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  close(): Promise<void>;

  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;

  createApiKey(rec: ApiKeyRecord): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(): Promise<ApiKeyRecord[]>;
  deleteApiKey(id: string): Promise<boolean>;

  /** Creates the endpoint; false when the name is taken. */
  createEndpoint(rec: EndpointRecord): Promise<boolean>;
  getEndpoint(name: string): Promise<EndpointRecord | undefined>;
  listEndpoints(): Promise<EndpointRecord[]>;
  /** Deletes the endpoint with its rules, history, files, state and keys. */
  deleteEndpoint(name: string): Promise<boolean>;
  updateEndpointSettings(name: string, settings: JsonObject): Promise<boolean>;

  /** Rules in execution order. */
  listRules(endpoint: string): Promise<RuleRecord[]>;
  getRule(endpoint: string, id: string): Promise<RuleRecord | undefined>;
  countRules(endpoint: string): Promise<number>;
  /** Appends at the bottom. */
  appendRule(endpoint: string, rule: RuleRecord): Promise<void>;
  /** Replaces the rule's document, keeping its position; false when unknown. */
  updateRule(endpoint: string, rule: RuleRecord): Promise<boolean>;
  deleteRule(endpoint: string, id: string): Promise<boolean>;
  deleteAllRules(endpoint: string): Promise<number>;
  /** Replaces every rule at once, in the given order. */
  replaceRules(endpoint: string, rules: RuleRecord[]): Promise<number>;
  /** Stores a blob; false when the endpoint already has one of that name. */
  putBlob(blob: BlobRecord): Promise<boolean>;
  getBlob(endpoint: string, name: string): Promise<BlobRecord | undefined>;
  /** The endpoint's blobs, oldest first, without their bytes. */
  listBlobs(endpoint: string): Promise<BlobMeta[]>;
  deleteBlob(endpoint: string, name: string): Promise<boolean>;

  /** Moves the listed ids to the top in that order; returns how many moved. Unknown ids are ignored. */
  reorderRules(endpoint: string, order: string[]): Promise<number>;

  insertHistory(entries: NewHistoryEntry[]): Promise<void>;
  listHistory(
    endpoint: string,
    filter: HistoryFilter,
    limit: number,
    cursor?: string,
  ): Promise<Page<HistoryEntry>>;
  countHistory(endpoint: string, filter: HistoryFilter): Promise<number>;
  getHistory(endpoint: string, id: string): Promise<HistoryEntry | undefined>;
  deleteHistoryEntry(endpoint: string, id: string): Promise<boolean>;
  /**
   * Deletes every matching entry and its files; returns the count. The entries are gone from every
   * read at once; the disk space is reclaimed by `purgeHistory`, run in the background.
   */
  deleteHistory(endpoint: string, filter: HistoryFilter): Promise<number>;
  /** Physically removes up to `limit` deleted entries and their files; returns how many it took. */
  purgeHistory(limit: number): Promise<number>;
  /** Deleted entries not purged yet. */
  historyPurgeBacklog(): Promise<number>;
  getHistoryFile(endpoint: string, requestId: string, fieldName: string): Promise<HistoryFile | undefined>;
  /**
   * Retention: drops entries older than `before` and beyond `maxPerEndpoint`, `chunk` at a time
   * (one transaction each, yielding to requests between them). Returns the count.
   */
  pruneHistory(before: number, maxPerEndpoint: number, chunk?: number): Promise<number>;
  /**
   * Brings one endpoint's history within both caps, dropping its oldest entries; returns what it holds
   * afterwards and how many went (entries hidden by a delete count for neither).
   */
  trimHistory(
    endpoint: string,
    caps: { maxEntries: number; maxBytes: number },
  ): Promise<{ entries: number; bytes: number; deleted: number }>;

  listState(endpoint: string): Promise<StateItem[]>;
  getState(endpoint: string, type: string, key: string): Promise<StateItem | undefined>;
  /** Upserts; returns whether the item was created (false: updated). */
  putState(endpoint: string, item: Omit<StateItem, 'lastModified'>): Promise<boolean>;
  deleteState(endpoint: string, type: string, key: string): Promise<boolean>;
  deleteAllState(endpoint: string): Promise<number>;

  // ---- CRUD collections (issue 13 part 3) ----
  /** A page of a collection, newest first, and how many items it holds. */
  listCrudItems(
    endpoint: string,
    collection: string,
    limit: number,
    offset: number,
  ): Promise<{ items: CrudItem[]; total: number }>;
  getCrudItem(endpoint: string, collection: string, id: string): Promise<CrudItem | undefined>;
  /** Adds an item, unless its id is taken or a cap would be passed. */
  insertCrudItem(
    endpoint: string,
    collection: string,
    item: CrudItem,
    caps: CrudCaps,
  ): Promise<{ ok: true } | { ok: false; why: CrudRefusal }>;
  /**
   * Replaces an item's data with `change(old)` in one transaction (a PATCH's merge cannot lose a
   * concurrent write); undefined when the item is unknown.
   */
  updateCrudItem(
    endpoint: string,
    collection: string,
    id: string,
    change: (old: JsonObject) => JsonObject,
    at: number,
    caps: CrudCaps,
  ): Promise<{ ok: true; item: CrudItem } | { ok: false; why: CrudRefusal } | undefined>;
  /** Removes an item; returns it, or undefined when unknown. */
  deleteCrudItem(endpoint: string, collection: string, id: string): Promise<CrudItem | undefined>;
  /** Removes the endpoint's items created before `before` (every collection), `chunk` at a time. */
  deleteCrudItemsBefore(endpoint: string, before: number, chunk?: number): Promise<number>;
  // ---- end CRUD collections ----

  insertTotp(rec: TotpRecord): Promise<void>;
  getTotp(id: string): Promise<TotpRecord | undefined>;
  touchTotp(id: string, at: number): Promise<void>;
  /** Drops secrets last used before `before`; returns the count. */
  purgeTotp(before: number): Promise<number>;
}
