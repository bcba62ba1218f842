/** Kysely table types: the shape of the rows as both SQL dialects hold them. */
import type { Generated } from 'kysely';

export interface Database {
  meta: { key: string; value: string };
  api_keys: { id: string; hash: string; endpoint: string | null; created_at: number };
  endpoints: {
    name: string;
    created_at: number;
    settings: string;
    /** Moved by every change of the endpoint (config-version.ts). */
    config_version: Generated<number>;
  };
  rules: { id: string; endpoint: string; position: number; data: string };
  requests: {
    id: string;
    endpoint: string;
    created_at: number;
    method: string;
    path: string;
    ip: string;
    status: number;
    behavior: string;
    rule_matched: number;
    rule_id: string | null;
    duration_ms: number;
    request_headers: string;
    request_body: string;
    request_body_truncated: number;
    response_headers: string;
    response_body: string;
    response_body_truncated: number;
    files: string;
    problems: string;
    /** The chosen response of a weighted rule action. */
    response_name: string | null;
    /** What the entry weighs in bytes (history-size.ts); 0 for entries older than the column. */
    size: number;
    /** A rule callout's request and response, JSON (CalloutRecord); null for other entries. */
    callout: string | null;
    /** `1.1`, `1.0`; null for entries older than the column (read as `1.1`). */
    http_version: string | null;
    /** 1 when the request was multipart/form-data. */
    is_multipart: number;
    /** A gRPC call's summary, JSON (GrpcRecord); null for other entries and for rows older than the column. */
    grpc: string | null;
    /** The request's contract violations, JSON (ContractViolation[]); null when not checked (migration 0013). */
    validation: string | null;
    /** The answer's contract violations, JSON; null when not checked. */
    response_validation: string | null;
  };
  request_files: {
    seq: Generated<number>;
    request_id: string;
    endpoint: string;
    field_name: string;
    file_name: string;
    content_type: string;
    size: number;
    data: Buffer;
  };
  /** Entries deleted but not purged yet (history-table.ts). */
  history_hidden: { endpoint: string; created_at: number; id: string };
  state: { endpoint: string; type: string; key: string; value: string; updated_at: number };
  blobs: {
    endpoint: string;
    name: string;
    content_type: string;
    size: number;
    data: Buffer;
    created_at: number;
  };
  /** An endpoint's OpenAPI document (spec-table.ts). */
  oas_specs: {
    endpoint: string;
    /** `openapi` or `grpc` (migration 0011). */
    type: string;
    job_id: string;
    intelligence_mock: number;
    title: string;
    version: string;
    spec_version: string;
    operations: string;
    document: string;
    /** JSON array of the .proto file names of a gRPC spec; `[]` for OpenAPI. */
    files: string;
    size: number;
    created_at: number;
  };
  oas_jobs: {
    id: string;
    endpoint: string;
    type: string;
    status: string;
    message: string;
    progress: number;
    result: string | null;
    created_at: number;
    completed_at: number | null;
    failed_at: number | null;
  };
  /** Items of CRUD collections (crud-table.ts); `seq` orders them newest first. */
  crud_items: {
    seq: Generated<number>;
    endpoint: string;
    collection: string;
    id: string;
    created_at: number;
    updated_at: number;
    size: number;
    data: string;
  };
  /** An endpoint's mTLS CA (mtls-table.ts). */
  mtls_cas: { endpoint: string; cert_pem: string; key_enc: string; created_at: number };
  /** Client certificates issued by an endpoint's CA; a deleted (revoked) one has no row. */
  mtls_certs: {
    id: string;
    endpoint: string;
    name: string;
    serial: string;
    fingerprint: string;
    cert_pem: string;
    expires_at: number;
    created_at: number;
  };
  totp_secrets: {
    id: string;
    issuer: string | null;
    algorithm: string;
    digits: number;
    period: number;
    secret_enc: string;
    created_at: number;
    last_used_at: number;
  };
}
