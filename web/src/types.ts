/** Shapes of the API's answers, as far as the dashboard reads them. */
export interface Endpoint {
  name: string;
  createdAt: string;
  plan: string;
  builtIn: boolean;
  host: string;
  path: string;
  requestCount?: number;
}

export interface FileMeta {
  name: string;
  fileName: string;
  contentType: string;
  size: number;
}

/** A history entry: new names (`date`, `timeTaken`) and the older ones (`createdAt`, `durationMs`). */
export interface Entry {
  id: string;
  date?: string;
  createdAt?: string;
  method: string;
  path: string;
  ip: string;
  status: number;
  behavior: string;
  rule: { matched: boolean; ruleId?: string | null };
  timeTaken?: number;
  durationMs?: number;
  isMultipart?: boolean;
  files?: FileMeta[];
  problems?: string[];
  responseName?: string;
  /** Contract checking (docs/contract-testing.md): absent when nothing was checked, `[]` when kept. */
  validation?: Violation[];
  responseValidation?: Violation[];
  requestBodyTruncated?: boolean;
  responseBodyTruncated?: boolean;
  request?: { headers: Record<string, string>; body: string | null; httpVersion?: string };
  response?: { headers: Record<string, string | string[]>; body: string; httpVersion?: string };
}

/** One way a request or its answer broke the endpoint's OpenAPI document. */
export interface Violation {
  in: string;
  path: string;
  message: string;
}

/** How many violations an entry holds, request and answer together (0 when unchecked). */
export const violationCount = (e: Entry): number =>
  (e.validation?.length ?? 0) + (e.responseValidation?.length ?? 0);

export const entryDate = (e: Entry): string => e.date ?? e.createdAt ?? '';
export const entryMs = (e: Entry): number => e.timeTaken ?? Math.round(e.durationMs ?? 0);

export interface Page<T> {
  data: T[];
  pagination: { cursor?: string | null; hasMore: boolean; limit: number };
}

export interface Condition {
  type: string;
  operator: string;
  value?: string;
  key?: string;
  stateType?: string;
}

export interface HeaderItem {
  key: string;
  value: string;
  templated?: boolean;
}

export interface Rule {
  id: string;
  enabled: boolean;
  method: string;
  description?: string;
  conditions: Condition[];
  action: { type: string; [k: string]: unknown };
}
