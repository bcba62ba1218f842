/**
 * The management API's bodies and answers as TypeScript types, derived from the same TypeBox schemas
 * that validate the routes and write the OpenAPI document. Type-only: the typed client
 * (src/client/) imports these with `import type`, so none of the server's modules reach its bundle.
 */
import type { Static } from '@sinclair/typebox';
import type { Rule, RuleInput, RulePatch, Settings, SettingsPatch } from '../mock/index.js';
import type { Endpoint as EndpointSchema } from './endpoints.js';
import type { KeyInfo, NewKey } from './keys-routes.js';
import type { Blob } from './blobs.js';
import type { Job, JobAccepted, Spec } from './specs.js';
import type { Item } from './state.js';
import type { DeleteQuery, ListQuery, RequestList, RequestRecord } from './history-schemas.js';
import type { ErrorBody } from './schemas/common.js';
import type { HarImported } from './har-import.js';
import type { HarEntry } from '../history/index.js';

export type ApiEndpoint = Static<typeof EndpointSchema>;
export type ApiRule = Static<typeof Rule>;
export type ApiRuleInput = Static<typeof RuleInput>;
export type ApiRulePatch = Static<typeof RulePatch>;
export type ApiSettings = Static<typeof Settings>;
export type ApiSettingsPatch = Static<typeof SettingsPatch>;
export type ApiKeyInfo = Static<typeof KeyInfo>;
export type ApiNewKey = Static<typeof NewKey>;
export type ApiBlob = Static<typeof Blob>;
export type ApiSpec = Static<typeof Spec>;
export type ApiJob = Static<typeof Job>;
export type ApiJobAccepted = Static<typeof JobAccepted>;
export type ApiStateItem = Static<typeof Item>;
export type ApiHistoryEntry = Static<typeof RequestRecord>;
export type ApiHistoryPage = Static<typeof RequestList>;
export type ApiHistoryListQuery = Static<typeof ListQuery>;
export type ApiHistoryFilter = Static<typeof DeleteQuery>;
export type ApiErrorBody = Static<typeof ErrorBody>;
export type ApiHarImported = Static<typeof HarImported>;
/** One entry of an exported HAR (`GET …/requests?format=har`). */
export type ApiHarEntry = HarEntry;
