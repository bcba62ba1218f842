/**
 * Plans (SPEC §10): what an endpoint may do. Two are built in (`free`, `unlimited`); an operator adds
 * or redefines plans in a JSON or YAML file (PLANS_FILE). The file is read and validated once per
 * configuration, at start: a bad file stops the start with one ConfigError line.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { ConfigError, type Config } from './config.js';
import { readRegularFile } from './regular-file.js';
import type { EndpointRecord } from './store/index.js';
import { isBuiltIn, storedSettings } from './endpoint/index.js';
import { explain } from './schema/index.js';

/** A limit: a whole number, or null for none. */
const Limit = (min: number) => Type.Union([Type.Integer({ minimum: min }), Type.Null()]);

/** A plan as an operator writes it: every field optional (see `resolvePlans` for what is assumed). */
const PlanInput = Type.Object(
  {
    templating: Type.Optional(Type.Boolean()),
    requestsPerDay: Type.Optional(Limit(0)),
    maxRules: Type.Optional(Limit(0)),
    historyRetentionDays: Type.Optional(Limit(1)),
    tunnel: Type.Optional(Type.Boolean()),
    proxy: Type.Optional(Type.Boolean()),
    openapi: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** What each field must be, for the one-line error of a bad plans file. */
const FIELD_RULES: Record<string, string> = {
  templating: 'must be true or false',
  requestsPerDay: 'must be a whole number >= 0, or null for no quota',
  maxRules: 'must be a whole number >= 0, or null for no limit',
  historyRetentionDays: 'must be a whole number >= 1, or null for the server setting',
  tunnel: 'must be true or false',
  proxy: 'must be true or false',
  openapi: 'must be true or false',
};

const PLAN_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

export const Plan = Type.Object(
  {
    name: Type.String(),
    templating: Type.Boolean(),
    requestsPerDay: Type.Union([Type.Integer(), Type.Null()], { description: 'null: no quota' }),
    maxRules: Type.Union([Type.Integer(), Type.Null()], {
      description: 'null: the API-wide limit (2,000 rules an endpoint)',
    }),
    historyRetentionDays: Type.Union([Type.Integer(), Type.Null()], {
      description: 'null: the server setting HISTORY_RETENTION_DAYS',
    }),
    tunnel: Type.Boolean(),
    proxy: Type.Boolean(),
    openapi: Type.Boolean(),
  },
  { title: 'Plan' },
);
export type Plan = Static<typeof Plan>;

const UNLIMITED: Omit<Plan, 'name'> = {
  templating: true,
  requestsPerDay: null,
  maxRules: null,
  historyRetentionDays: null,
  tunnel: true,
  proxy: true,
  openapi: true,
};

/** The built-in plans. */
export const BUILT_IN_PLANS: Readonly<Record<string, Plan>> = {
  free: {
    name: 'free',
    templating: false,
    requestsPerDay: 50,
    maxRules: 3,
    historyRetentionDays: 1,
    tunnel: false,
    proxy: false,
    openapi: false,
  },
  unlimited: { name: 'unlimited', ...UNLIMITED },
};

/** The plan of the built-in `echo` endpoint, which no plan limits. */
export const ECHO_PLAN = 'unlimited';

/** Reads and validates a plans file (JSON or YAML: an object of plan name to plan). Throws ConfigError. */
export function readPlansFile(file: string, limit: number): Record<string, Plan> {
  const where = `PLANS_FILE ${file}`;
  let doc: unknown;
  try {
    const text = readRegularFile(file, limit).toString('utf8');
    doc = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ConfigError(`${where} cannot be read: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new ConfigError(`${where} must map plan names to plans, e.g. {"team": {"requestsPerDay": 1000}}`);
  return resolvePlans(doc as Record<string, unknown>, where);
}

/**
 * Completes operator plans: a field left out of a built-in plan's redefinition keeps the built-in
 * value; a field left out of a new plan means "no limit" (the `unlimited` values).
 */
export function resolvePlans(doc: Record<string, unknown>, where = 'plans'): Record<string, Plan> {
  const out: Record<string, Plan> = { ...BUILT_IN_PLANS };
  for (const [name, raw] of Object.entries(doc)) {
    if (!PLAN_NAME.test(name))
      throw new ConfigError(`${where}: plan name "${name}" must be 1 to 40 of a-z, 0-9, "-" and "_"`);
    if (!Value.Check(PlanInput, raw)) {
      const d = explain(PlanInput, raw)[0];
      const field = d?.path.slice(1) ?? '';
      const got = d?.received === undefined ? '' : ` (got ${d.received})`;
      const why =
        FIELD_RULES[field] ?? `is not a plan field (fields: ${Object.keys(FIELD_RULES).join(', ')})`;
      throw new ConfigError(
        field === ''
          ? `${where}: plan "${name}" must be an object`
          : `${where}: plan "${name}": ${field} ${why}${got}`,
      );
    }
    out[name] = { ...UNLIMITED, ...BUILT_IN_PLANS[name], ...(raw as Partial<Plan>), name };
  }
  return out;
}

const cache = new WeakMap<Config, Record<string, Plan>>();

/**
 * The plans of a configuration (built-in and PLANS_FILE), read once. Also checks DEFAULT_PLAN.
 * Throws ConfigError for a bad file or an unknown default plan.
 */
export function plansFor(config: Config): Record<string, Plan> {
  let plans = cache.get(config);
  if (plans) return plans;
  plans = config.plansFile ? readPlansFile(config.plansFile, config.configFileLimit) : { ...BUILT_IN_PLANS };
  if (!Object.hasOwn(plans, config.defaultPlan))
    throw new ConfigError(
      `DEFAULT_PLAN names an unknown plan "${config.defaultPlan}" (known: ${Object.keys(plans).join(', ')})`,
    );
  cache.set(config, plans);
  return plans;
}

/** The name of an endpoint's plan: its setting, else the default plan (`echo`: always unlimited). */
export function planNameOf(config: Config, ep: EndpointRecord): string {
  if (isBuiltIn(ep)) return ECHO_PLAN;
  return storedSettings(ep.settings).plan ?? config.defaultPlan;
}

/**
 * An endpoint's plan. A plan that disappeared from PLANS_FILE since it was assigned falls back to
 * the default plan, so that an endpoint is never left without limits by an edit of the file.
 */
export function planOf(config: Config, ep: EndpointRecord): Plan {
  const plans = plansFor(config);
  const named = planNameOf(config, ep);
  return (Object.hasOwn(plans, named) ? plans[named] : plans[config.defaultPlan]) as Plan;
}

/**
 * How many days of an endpoint's history are kept: its plan's `historyRetentionDays` when that is
 * shorter than the server's HISTORY_RETENTION_DAYS, else the server's (a plan never keeps more).
 */
export function historyRetentionDaysOf(config: Config, ep: EndpointRecord): number {
  const days = planOf(config, ep).historyRetentionDays;
  return days !== null && days < config.historyRetentionDays ? days : config.historyRetentionDays;
}
