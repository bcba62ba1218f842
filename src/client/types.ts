/**
 * The client's public types. The API's bodies and answers come from the server's TypeBox schemas
 * (src/api/types.ts) through a type-only import: nothing of the server is loaded at run time.
 */
import type {
  ApiBlob,
  ApiEndpoint,
  ApiErrorBody,
  ApiHarEntry,
  ApiHarImported,
  ApiHistoryEntry,
  ApiHistoryFilter,
  ApiHistoryListQuery,
  ApiJob,
  ApiJobAccepted,
  ApiKeyInfo,
  ApiNewKey,
  ApiRule,
  ApiRuleInput,
  ApiRulePatch,
  ApiSettings,
  ApiSettingsPatch,
  ApiSpec,
  ApiStateItem,
} from '../api/index.js';

export type Endpoint = ApiEndpoint;
export type Rule = ApiRule;
export type RuleInput = ApiRuleInput;
export type RulePatch = ApiRulePatch;
export type Settings = ApiSettings;
export type SettingsPatch = ApiSettingsPatch;
export type KeyInfo = ApiKeyInfo;
export type NewKey = ApiNewKey;
export type Blob = ApiBlob;
export type Spec = ApiSpec;
export type Job = ApiJob;
export type JobAccepted = ApiJobAccepted;
export type StateItem = ApiStateItem;
export type ErrorBody = ApiErrorBody;
/** What `importHar` answers: rules created (or, in preview, that would be) and entries skipped with why. */
export type HarImportResult = ApiHarImported;
/** A HAR 1.2 document as `exportHar` answers it. */
export interface HarDocument {
  log: {
    version: string;
    creator: { name: string; version: string };
    pages: unknown[];
    entries: ApiHarEntry[];
    /** Present when the export stopped at its limit while more entries matched (names the cursor). */
    comment?: string;
  };
}
/** The filters of a history export: the list's, plus `limit` (at most HISTORY_EXPORT_MAX) and `cursor`. */
export type HistoryExportQuery = Omit<HistoryListQuery, 'format' | 'mode' | 'id'>;
/** The history filters shared by the list and the bulk delete (all combined with AND). */
export type HistoryFilter = ApiHistoryFilter;
export type HistoryListQuery = ApiHistoryListQuery;

/**
 * One history entry. Besides the schema's fields, newer servers add the hosted service's names
 * (`date`, `timeTaken`, `isMultipart`) and may leave `rule.ruleId` out when no rule matched: those
 * are optional here, so that code written against either reads them safely.
 */
export type HistoryEntry = Omit<ApiHistoryEntry, 'rule'> & {
  rule: { matched: boolean; ruleId?: string | null };
  date?: string;
  timeTaken?: number;
  isMultipart?: boolean;
};

/** A page of history; `cursor` is absent or null on the last page. */
export interface HistoryPage {
  data: HistoryEntry[];
  pagination: { cursor?: string | null; hasMore: boolean; limit: number };
}

/** A state page (type, then key order). */
export interface StatePage {
  data: StateItem[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

/** A state type: `counter`, `string` or `list`. */
export type StateType = 'counter' | 'string' | 'list';

/** One event of an endpoint's live stream: its name and its parsed JSON data. */
export interface EndpointEvent {
  event: string;
  data: unknown;
}

/** A TOTP code: the id of the secret, the code of the current step, and when that step ends. */
export interface TotpCode {
  id: string;
  otp: string;
  expiresAt: string;
}

/** A secret to register (or `uri`, an `otpauth://totp/…` or `otpauth-migration://…` URI). */
export interface TotpSecret {
  secret?: string;
  uri?: string;
  issuer?: string;
  algorithm?: 'SHA1' | 'SHA256' | 'SHA512';
  digits?: number;
  period?: number;
}

/**
 * What a history entry must be to match, all fields combined with AND; or a function of the entry.
 * `path` as a string matches the path exactly, with or without its query string; as a RegExp it is
 * tested against the path with its query string.
 */
export type RequestMatcher =
  | {
      method?: string;
      path?: string | RegExp;
      status?: number;
      behavior?: string;
      ruleMatched?: boolean;
      ruleId?: string;
      /** Only entries recorded at or after this instant. */
      since?: Date | string;
      where?: (entry: HistoryEntry) => boolean;
    }
  | ((entry: HistoryEntry) => boolean);
