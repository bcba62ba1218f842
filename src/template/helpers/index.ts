/** The one registry of template helpers (SPEC §6): name → helper, one file each (comparisons and text helpers share one). */
import type { Helper } from '../state.js';
import { array } from './array.js';
import { body } from './body.js';
import { and, eq, gt, gte, lt, lte, ne, not, or } from './compare.js';
import { cookie } from './cookie.js';
import { dataStore } from './data-store.js';
import { faker } from './faker.js';
import { header } from './header.js';
import { json } from './json.js';
import { len } from './len.js';
import { list } from './list.js';
import { method } from './method.js';
import { now } from './now.js';
import { object } from './object.js';
import { path } from './path.js';
import { pathParam } from './path-param.js';
import { queryParam } from './query-param.js';
import { repeat } from './repeat.js';
import { stepCounter } from './step-counter.js';
import { caseHelper, defaultHelper, switchHelper } from './switch.js';
import { concat, contains, lowercase, uppercase } from './text.js';

export { makeEach } from './each.js';

export const HELPERS: Readonly<Record<string, Helper>> = {
  body,
  queryParam,
  header,
  pathParam,
  cookie,
  method,
  path,
  faker,
  now,
  repeat,
  switch: switchHelper,
  case: caseHelper,
  default: defaultHelper,
  eq,
  ne,
  gt,
  gte,
  lt,
  lte,
  and,
  or,
  not,
  len,
  object,
  array,
  json,
  lowercase,
  uppercase,
  concat,
  contains,
  'step-counter': stepCounter,
  'data-store': dataStore,
  list,
};
