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
  /**
   * The version of its configuration when it was read (`getEndpoint`): every change of the endpoint
   * moves it (`changeEndpoint`). Absent on records not read from the store.
   */
  configVersion?: number;
}

/** What `Store.changeEndpoint` wrote. */
export interface EndpointChangeWrite<T> {
  /** What the write answered. */
  result: T;
  /**
   * The endpoint's config_version after the change (for a deletion: the version its deletion took);
   * undefined when nothing changed or the endpoint does not exist.
   */
  version: number | undefined;
  /** The custom domains' version after the change, when the change may have moved a claim. */
  domainsVersion?: number;
}

export interface EndpointChangeOptions<T> {
  /** The write changed nothing (an unknown id, a refusal it answers with): the versions stay. */
  unchanged?: (result: T) => boolean;
  /**
   * The change may claim or release a custom domain: such changes run one at a time across every
   * instance (their check-and-write is serialised), and the domains' version moves.
   */
  domains?: boolean;
}

/** A rule as stored: its id and its JSON document (everything else of the rule). */
export interface RuleRecord {
  id: string;
  data: JsonObject;
}

export type Behavior =
  'echo' | 'mock-rule' | 'tunnel' | 'proxy' | 'oas' | 'default' | 'crud' | 'callout' | 'rejected' | 'grpc';

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
  /** The request's HTTP version (`1.1`, `1.0`); the answer used the same. */
  httpVersion: string;
  /** The request was `multipart/form-data` (with or without files). */
  isMultipart: boolean;
  responseHeaders: Record<string, string | string[]>;
  responseBody: string;
  responseBodyTruncated: boolean;
  files: FileMeta[];
  /** Template or pipeline problems noted while answering. */
  problems: string[];
  /** The name of the response a weighted rule action chose. */
  responseName?: string;
  /** What a rule's callout sent and got (behavior `callout`). */
  callout?: CalloutRecord;
  /**
   * A gRPC call's method and how it ended (behavior `grpc`, SPEC §13). Its messages are the request
   * and response bodies: each direction's kept messages as one JSON array, `…BodyTruncated` when cut.
   */
  grpc?: GrpcRecord;
  /**
   * How the request broke the endpoint's OpenAPI document (SPEC §7, contract checking): set only when
   * a document describes the request and validation is not `off`; an empty list means it kept it.
   */
  validation?: ContractViolation[];
  /** How the answer broke the operation's response for its status (same rules as `validation`). */
  responseValidation?: ContractViolation[];
}

/** One way a request or an answer breaks the endpoint's OpenAPI document (SPEC §7). */
export interface ContractViolation {
  /** Where: `path`, `query`, `header`, `cookie`, `security`, `content-type`, `body`, `status`. */
  in: string;
  /** Which part: a parameter's name, or a JSON pointer into the body (`/items/0/name`). */
  path: string;
  message: string;
}

/** A gRPC call as its history entry summarises it. */
export interface GrpcRecord {
  /** `user.UserService`. */
  service: string;
  /** `GetUser`. */
  method: string;
  /** `unary`, `server_streaming`, `client_streaming` or `bidirectional_streaming`. */
  callType: string;
  /** The gRPC status code it ended with (0-16). */
  status: number;
  statusMessage: string;
}

/**
 * A rule callout (SPEC §4) as the history keeps it with its request's entry. An async callout is
 * recorded `pending` with the answer, and its entry updated once it has its own answer.
 */
export interface CalloutRecord {
  behavior: 'sync' | 'async';
  /**
   * `pending`: waiting for its delay or in flight; `done`: the target answered (any status);
   * `failed`: no answer (refused, unreachable, timed out, a loop); `cancelled`: never sent (queue
   * full, or the server shut down first). `error` says why for the last two.
   */
  state: 'pending' | 'done' | 'failed' | 'cancelled';
  request: {
    method: string;
    url: string;
    headers: Record<string, string | string[]>;
    body: string;
    bodyTruncated: boolean;
    /** Files the callout sent (a forwarded multipart request's: the request's own, stored once). */
    files: FileMeta[];
  };
  /** The target's answer; a sync callout's body is the entry's response body, not stored twice. */
  response?: {
    status: number;
    headers: Record<string, string | string[]>;
    body?: string;
    bodyTruncated?: boolean;
  };
  error?: string;
  /** Epoch ms when it was sent, and ms until its answer had ended. */
  sentAt?: number;
  durationMs?: number;
  connectionId?: string;
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
  /** Its weight (history-size.ts), once the history writer has measured it. */
  weight?: number;
}

/** What a trim left in an endpoint's history, and how many entries it dropped. */
export interface HistoryTrim {
  entries: number;
  bytes: number;
  deleted: number;
  /**
   * How many times this store had removed history (deletes, retention, endpoint deletion; not trims)
   * when `entries` and `bytes` were true. Absent where removals the store cannot see are possible
   * (a database other instances share): then an estimate is never trusted.
   */
  removals?: number;
  /** The store took the estimate it was given and did not count. */
  estimated?: boolean;
}

/** What an endpoint is believed to hold: a trim's figures plus the entries written since. */
export interface HistoryEstimate {
  entries: number;
  bytes: number;
  /** The trim's `removals`. */
  removals: number;
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
  /** The request was (`true`) or was not `multipart/form-data`. */
  isMultipart?: boolean;
  /** The request did (`true`) or did not upload files. */
  hasAttachments?: boolean;
  /**
   * Contract checking (SPEC §7): `failed`, either list of violations is not empty; `passed`, checked
   * (a list present) and both empty. Entries nothing checked match neither.
   */
  validation?: 'failed' | 'passed';
}

export interface Page<T> {
  data: T[];
  cursor: string | null;
  hasMore: boolean;
}

export type StateType = 'counter' | 'string' | 'list';

export interface StateItem {
  type: StateType;
  key: string;
  value: Json;
  lastModified: number;
}

/** One state item by name. */
export interface StateRef {
  type: StateType;
  key: string;
}

/**
 * One change of an endpoint's state, each applied by a single SQL statement so that requests on any
 * number of instances may apply them at once: a counter is added to where it lies (`value = value +
 * by`), a list is appended to or cut where it lies, never read and written back.
 */
export type StateOp =
  /** Adds `by` to a counter (created at 0). */
  | { op: 'add'; key: string; by: number }
  /** Writes an item whole (created if absent). */
  | { op: 'set'; type: StateType; key: string; value: Json }
  | { op: 'delete'; type: StateType; key: string }
  /** Appends to a list (created empty), unless it holds `maxLength` values or would pass `maxChars`. */
  | { op: 'push'; key: string; value: Json; maxLength: number; maxChars: number }
  /** Removes a list's last value (nothing when it is empty or absent). */
  | { op: 'pop'; key: string };

/** One endpoint's state as the holder of its lock reads and changes it (Store.withStateLock). */
export interface LockedState {
  read(refs: readonly StateRef[] | 'all'): Promise<{ items: StateItem[]; count: number }>;
  apply(ops: readonly StateOp[], now: number): Promise<void>;
  putMany(
    items: readonly Omit<StateItem, 'lastModified'>[],
    now: number,
  ): Promise<{ created: number; updated: number }>;
}

/** A page of the state API's list (SPEC §4). */
export interface StateQuery {
  type?: StateType;
  keyPrefix?: string;
  limit: number;
  offset: number;
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

/** Bytes of blobs one endpoint, and all endpoints together, may hold. */
export interface BlobQuota {
  endpoint: number;
  total: number;
}

/** A put refused by a quota: which, what is held now, and the quota. */
export interface BlobRefusal {
  why: 'endpoint_quota' | 'total_quota';
  used: number;
  quota: number;
}

/** What kind of document an endpoint's spec is: an OpenAPI document (SPEC §7) or gRPC descriptors (§13). */
export type SpecType = 'openapi' | 'grpc';

/**
 * An endpoint's uploaded document, as the upload job stored it: at most one per endpoint, an OpenAPI
 * document (SPEC §7) or gRPC descriptors (§13); uploading one kind replaces the other.
 */
export interface SpecInfo {
  endpoint: string;
  type: SpecType;
  /** The job that stored it. */
  jobId: string;
  /** OpenAPI only (false for gRPC). */
  intelligenceMock: boolean;
  /** OpenAPI: `info.title`. gRPC: the first service's name, or the package. */
  title: string;
  /** OpenAPI: `info.version` of the document. gRPC: ''. */
  version: string;
  /** OpenAPI: `openapi` or `swagger` of the document (`3.1.0`, `2.0`). gRPC: the syntax (`proto3`). */
  specVersion: string;
  /**
   * OpenAPI: what the document offers, as `[{ method, path, operationId?, summary? }]`. gRPC: the
   * methods, as `[{ service, method, name, callType, inputType, outputType }]` (MethodInfo).
   */
  operations: Json[];
  /** gRPC: the .proto files the descriptors came from. OpenAPI: []. */
  files: string[];
  /** Bytes of the stored document (gRPC: of the descriptor set, not of its base64). */
  size: number;
  createdAt: number;
}

export interface SpecRecord extends SpecInfo {
  /**
   * OpenAPI: the document as JSON text (YAML uploads are stored converted). gRPC: the serialized
   * FileDescriptorSet in base64.
   */
  document: string;
}

export type SpecJobStatus = 'QUEUED' | 'PROCESSING' | 'COMPLETED' | 'FAILED';

/** An API-visible job (SPEC §7 `GET …/jobs/:jobId`): the processing of one spec upload. */
export interface SpecJobRecord {
  id: string;
  endpoint: string;
  /** `oas` for an OpenAPI upload, `grpc` for gRPC descriptors (the hosted service's names). */
  type: 'oas' | 'grpc';
  status: SpecJobStatus;
  message: string;
  /** 0 to 100. */
  progress: number;
  result: Json | null;
  createdAt: number;
  completedAt: number | null;
  failedAt: number | null;
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

/** An endpoint's own certificate authority for TLS client certificates (mtls-table.ts). */
export interface MtlsCaRecord {
  endpoint: string;
  /** The CA certificate, PEM. */
  certPem: string;
  /** The CA's private key (PKCS#8), sealed by the mTLS module (AES-256-GCM); never stored in clear. */
  keyEnc: string;
  createdAt: number;
}

/** A client certificate issued by an endpoint's CA. Its private key is never stored. */
export interface MtlsCertRecord {
  id: string;
  endpoint: string;
  name: string;
  /** Serial number, hex. */
  serial: string;
  /** SHA-256 of the certificate's DER bytes, upper-case hex with colons (as node:crypto shows it). */
  fingerprint: string;
  certPem: string;
  expiresAt: number;
  createdAt: number;
}

export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  close(): Promise<void>;

  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  /**
   * Stores `value` under `key` unless the key holds one already; resolves with the value stored either
   * way. Instances starting at once on one database agree on the first value written.
   */
  claimMeta(key: string, value: string): Promise<string>;
  /**
   * Sets `key` to `next` (undefined: deletes it) only if it holds `expected` (undefined: is absent);
   * answers whether it did.
   */
  swapMeta(key: string, expected: string | undefined, next: string | undefined): Promise<boolean>;

  /**
   * Runs `write` on a store bound to one transaction that also moves the endpoint's config_version
   * (to the next value of a counter shared by all endpoints, so versions only grow, also across a
   * deletion and a new endpoint of the same name). The endpoint's row is locked first: one
   * endpoint's changes run one at a time. `write` must use the store it is given, never this one.
   */
  changeEndpoint<T>(
    endpoint: string,
    write: (tx: Store) => Promise<T>,
    opts?: EndpointChangeOptions<T>,
  ): Promise<EndpointChangeWrite<T>>;
  /** The endpoint's config_version (one primary-key read); undefined when it does not exist. */
  getConfigVersion(endpoint: string): Promise<number | undefined>;
  /** Every endpoint's config_version. */
  listConfigVersions(): Promise<{ endpoint: string; version: number }[]>;
  /** The custom domains' version: moved by every change that may claim or release a domain. */
  getDomainsVersion(): Promise<number>;

  createApiKey(rec: ApiKeyRecord): Promise<void>;
  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(): Promise<ApiKeyRecord[]>;
  deleteApiKey(id: string): Promise<boolean>;

  /** Creates the endpoint; false when the name is taken. */
  createEndpoint(rec: EndpointRecord): Promise<boolean>;
  getEndpoint(name: string): Promise<EndpointRecord | undefined>;
  listEndpoints(): Promise<EndpointRecord[]>;
  /** Deletes the endpoint with its rules, history, files, state, keys and mTLS CA and certificates. */
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
  /**
   * Stores a blob; false when the endpoint already has one of that name; with `quota`, a refusal when
   * the blob would take the endpoint's or all endpoints' blobs past it (checked with the write).
   */
  putBlob(blob: BlobRecord, quota?: BlobQuota): Promise<boolean | BlobRefusal>;
  getBlob(endpoint: string, name: string): Promise<BlobRecord | undefined>;
  /** The endpoint's blobs, oldest first, without their bytes. */
  listBlobs(endpoint: string): Promise<BlobMeta[]>;
  deleteBlob(endpoint: string, name: string): Promise<boolean>;

  /** Stores the endpoint's spec, replacing the one it had. */
  putSpec(spec: SpecRecord): Promise<void>;
  /** The endpoint's spec with its document. */
  getSpec(endpoint: string): Promise<SpecRecord | undefined>;
  /** The endpoint's spec without its document. */
  getSpecInfo(endpoint: string): Promise<SpecInfo | undefined>;
  deleteSpec(endpoint: string): Promise<boolean>;
  /** Records a new job; the endpoint keeps its `keep` newest jobs, older ones go. */
  createSpecJob(job: SpecJobRecord, keep?: number): Promise<void>;
  /** Changes a job's state; false when unknown. */
  updateSpecJob(
    id: string,
    patch: Partial<
      Pick<SpecJobRecord, 'status' | 'message' | 'progress' | 'result' | 'completedAt' | 'failedAt'>
    >,
  ): Promise<boolean>;
  getSpecJob(endpoint: string, id: string): Promise<SpecJobRecord | undefined>;

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
  /** Every endpoint's entry count, in one query; an endpoint without entries is absent. */
  countHistoryByEndpoint(): Promise<Map<string, number>>;
  getHistory(endpoint: string, id: string): Promise<HistoryEntry | undefined>;
  deleteHistoryEntry(endpoint: string, id: string): Promise<boolean>;
  /**
   * Deletes every matching entry and its files; returns the count. The entries are gone from every
   * read at once; the disk space is reclaimed by `purgeHistory`, run in the background.
   */
  deleteHistory(endpoint: string, filter: HistoryFilter): Promise<number>;
  /**
   * Physically removes up to `limit` deleted entries and their files; returns how many it took. Once
   * it has found none, it may answer 0 without looking until this store deletes more, for up to a
   * minute (`now`, epoch ms, is when it is asked: the tests move it).
   */
  purgeHistory(limit: number, now?: number): Promise<number>;
  /** Deleted entries not purged yet. */
  historyPurgeBacklog(): Promise<number>;
  getHistoryFile(endpoint: string, requestId: string, fieldName: string): Promise<HistoryFile | undefined>;
  /**
   * Replaces the callout kept with an entry (an async callout's outcome, arriving after the entry was
   * written); false when the entry is not (or no longer) there.
   */
  setHistoryCallout(endpoint: string, id: string, callout: CalloutRecord): Promise<boolean>;
  /**
   * Retention: drops entries older than `before` and beyond `maxPerEndpoint`, `chunk` at a time
   * (one transaction each, yielding to requests between them). Returns the count.
   */
  pruneHistory(before: number, maxPerEndpoint: number, chunk?: number): Promise<number>;
  /**
   * Brings one endpoint's history within both caps, dropping its oldest entries; returns what it holds
   * afterwards and how many went (entries hidden by a delete count for neither). `estimate`, what an
   * earlier trim returned plus the entries written since, spares the count when the store can tell
   * that nothing was removed in between (HistoryTrim.removals); otherwise the store counts.
   */
  trimHistory(
    endpoint: string,
    caps: { maxEntries: number; maxBytes: number },
    estimate?: HistoryEstimate,
  ): Promise<HistoryTrim>;

  listState(endpoint: string): Promise<StateItem[]>;
  getState(endpoint: string, type: string, key: string): Promise<StateItem | undefined>;
  /** Upserts; returns whether the item was created (false: updated). */
  putState(endpoint: string, item: Omit<StateItem, 'lastModified'>): Promise<boolean>;
  deleteState(endpoint: string, type: string, key: string): Promise<boolean>;
  deleteAllState(endpoint: string): Promise<number>;
  /** Items of a page of the state API (type, then key order) and how many match in all. */
  pageState(endpoint: string, q: StateQuery): Promise<{ items: StateItem[]; total: number }>;
  /**
   * The named items (or all of them) and how many items the endpoint holds: what a request reads
   * before its state conditions are checked or its templates rendered.
   */
  readState(
    endpoint: string,
    refs: readonly StateRef[] | 'all',
  ): Promise<{ items: StateItem[]; count: number }>;
  /** Applies changes in order, all or none. */
  applyState(endpoint: string, ops: readonly StateOp[], now: number): Promise<void>;
  /**
   * Runs `fn` with the endpoint's state held against every other holder on any instance, from its
   * first read to its last change (PostgreSQL shared by several instances: one transaction under the
   * endpoint's advisory lock, rolled back when `fn` throws). On SQLite, or PostgreSQL serving one
   * instance (no REDIS_URL), nothing is held: the caller's in-process lock excludes, and `fn` reads
   * and changes the state as the methods above do.
   */
  withStateLock<T>(endpoint: string, fn: (state: LockedState) => Promise<T>): Promise<T>;
  /** Upserts items in one transaction (a key given twice counts once, the last value wins). */
  putStateItems(
    endpoint: string,
    items: readonly Omit<StateItem, 'lastModified'>[],
    now: number,
  ): Promise<{ created: number; updated: number }>;
  /** Deletes the named items; returns how many existed. */
  deleteStateItems(endpoint: string, refs: readonly StateRef[]): Promise<number>;
  countState(endpoint: string): Promise<number>;

  // ---- CRUD collections (issue 13 part 3) ----
  /** A page of a collection, newest first, and how many items it holds. */
  listCrudItems(
    endpoint: string,
    collection: string,
    limit: number,
    offset: number,
  ): Promise<{ items: CrudItem[]; total: number }>;
  /**
   * A page of a collection as the list answers it: the items' JSON texts, newest first, at most
   * `limit` and as many as fit a JSON array of `maxBytes` (at least one); `bytes` is that array's size.
   */
  listCrudPage(
    endpoint: string,
    collection: string,
    limit: number,
    offset: number,
    maxBytes: number,
  ): Promise<{ texts: string[]; bytes: number; total: number }>;
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

  /**
   * Whether this instance may run the leader-only background jobs now (SPEC §8). PostgreSQL: while it
   * holds the jobs' advisory lock on a connection of its own, which it tries to take when it does not
   * (another instance holding it: false), and which PostgreSQL frees when that connection ends.
   * SQLite, one instance: always true. Never throws: a database out of reach is false.
   */
  leads(): Promise<boolean>;

  insertTotp(rec: TotpRecord): Promise<void>;
  getTotp(id: string): Promise<TotpRecord | undefined>;
  touchTotp(id: string, at: number): Promise<void>;
  /** Drops secrets last used before `before`; returns the count. */
  purgeTotp(before: number): Promise<number>;

  // ---- mTLS (mtls-table.ts) ----
  getMtlsCa(endpoint: string): Promise<MtlsCaRecord | undefined>;
  /** Stores the endpoint's CA unless it has one already; answers the one stored (the first wins). */
  putMtlsCaIfAbsent(ca: MtlsCaRecord): Promise<MtlsCaRecord>;
  /** The endpoint's client certificates, oldest first. */
  listMtlsCerts(endpoint: string): Promise<MtlsCertRecord[]>;
  /** Stores a certificate; false (nothing stored) when the endpoint already holds `max`. */
  insertMtlsCert(cert: MtlsCertRecord, max: number): Promise<boolean>;
  /** Deletes (revokes) one certificate; false when unknown. */
  deleteMtlsCert(endpoint: string, id: string): Promise<boolean>;
  // ---- end mTLS ----
}
