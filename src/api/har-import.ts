/**
 * HAR in, relative to /api/v2:
 *   POST /endpoints/:ep/import/har[?preview=true][&headers=accept,x-env]
 * The body is the HAR document itself (JSON, at most HAR_IMPORT_LIMIT bytes, at most HAR_MAX_ENTRIES
 * entries), so that `curl --data-binary @capture.har` posts a browser's file as it is. Each entry
 * becomes a mock rule at the bottom of the list (src/mock/har-import.ts decides what a rule holds and
 * what is skipped); `preview=true` answers the same without storing anything. The rules are appended
 * by one command (src/admin/rules.ts `appendRules`): all or none, within the endpoint's plan and
 * MAX_ENDPOINT_RULES, announced to the dashboards once.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ApiDeps } from './deps.js';
import { appendRules } from '../admin/index.js';
import { HAR_MAX_ENTRIES, harRules, Rule, ruleFromRecord, RuleInput, type RuleData } from '../mock/index.js';
import { ErrorBody, EndpointParams } from './schemas/common.js';

export { HAR_MAX_ENTRIES };

const HarQuery = Type.Object(
  {
    preview: Type.Optional(
      Type.Boolean({ description: '`true`: answer what would be created and skipped, store nothing.' }),
    ),
    headers: Type.Optional(
      Type.String({
        pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+(,[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$",
        maxLength: 1000,
        description:
          'Request header names, comma-separated, that become `header` `equals` conditions of each rule ' +
          '(when the entry has them). None by default.',
        examples: ['accept,x-tenant'],
      }),
    ),
  },
  { additionalProperties: false },
);
type HarQuery = Static<typeof HarQuery>;

/** The parts of a HAR 1.2 document the import reads; everything else in it is allowed and ignored. */
const HarBody = Type.Object(
  {
    log: Type.Object({
      entries: Type.Array(Type.Unknown(), {
        maxItems: HAR_MAX_ENTRIES,
        description: `At most ${HAR_MAX_ENTRIES} entries.`,
      }),
    }),
  },
  { title: 'HAR', description: 'A HAR 1.2 document (`log.entries` is what is read).' },
);
type HarBody = Static<typeof HarBody>;

/** The import's answer (also the preview's). */
export const HarImported = Type.Object({
  created: Type.Integer({ description: 'Rules appended (0 in preview).' }),
  skipped: Type.Array(
    Type.Object({
      index: Type.Integer({ description: 'Index of the entry in `log.entries`.' }),
      reason: Type.String(),
    }),
  ),
  rules: Type.Array(Type.Union([Rule, RuleInput]), {
    description: 'The rules appended, with their ids; in preview, the rules that would be (no ids).',
  }),
});

/** The HAR import route, relative to /endpoints/:ep (endpoint-scope.ts). */
export async function harImportApi(
  app: FastifyInstance,
  ctx: Pick<ApiDeps, 'config' | 'events' | 'fence' | 'store'>,
): Promise<void> {
  app.post<{ Params: { ep: string }; Querystring: HarQuery; Body: HarBody }>(
    '/import/har',
    {
      config: { endpoint: { writable: true } },
      bodyLimit: ctx.config.harImportLimit,
      schema: {
        tags: ['Rules'],
        summary: 'Turn each entry of a HAR document into a mock rule at the bottom',
        description:
          'Each entry answers its method, path (`equals`) and query parameters (`query_param` `equals`), plus ' +
          'the request headers named in `headers`, with the recorded status, headers (less hop-by-hop, ' +
          'framing and `Date` ones) and body (base64 bodies decoded; a body that is not UTF-8 is skipped). ' +
          'Entries that duplicate an earlier entry or an existing rule (same method, path and query) are ' +
          'skipped, each with its reason. At most HAR_IMPORT_LIMIT bytes; the rules are all appended or none ' +
          '(plan and rule limits).',
        params: EndpointParams,
        querystring: HarQuery,
        body: HarBody,
        response: {
          200: HarImported,
          201: HarImported,
          400: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
          413: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const ep = request.endpoint;
      const existing = (await ctx.store.listRules(ep.name)).map((r) => ruleFromRecord(r) as RuleData);
      const headers = request.query.headers?.split(',') ?? [];
      const plan = harRules(request.body.log.entries, existing, { headers });
      if (request.query.preview === true)
        return reply.code(200).send({ created: 0, skipped: plan.skipped, rules: plan.rules });
      const rules = await appendRules(ctx, ep, plan.rules);
      return reply.code(201).send({ created: rules.length, skipped: plan.skipped, rules });
    },
  );
}
