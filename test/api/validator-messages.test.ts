/**
 * The body validator's messages, walked over every API route's schemas (issue 36): for each body
 * and query schema, values of the wrong shape are put at every place the schema describes, and every
 * message the validator gives must name a place and say what is expected in words a person can act
 * on: never TypeBox's "Expected union value", never a choice between two things of one name
 * ("Expected object or object").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify, { type RouteOptions } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { explain } from '../../src/schema/index.js';
import { apiRoutes } from '../../src/api/index.js';
import { startApp } from '../helpers/app.js';

/** Values of a wrong shape for anything: each JSON type once, and an object of an unknown field. */
const WRONG: unknown[] = [null, true, -1.5, 'x', [], {}, { unknownField: 1 }];

/** Every value `schema` describes with one place replaced by a wrong value, to a bounded depth. */
function variants(schema: TSchema, depth = 0): unknown[] {
  const out: unknown[] = [...WRONG];
  if (depth > 4) return out;
  const s = schema as {
    type?: unknown;
    properties?: Record<string, TSchema>;
    items?: TSchema;
    anyOf?: TSchema[];
  };
  if (s.anyOf) for (const m of s.anyOf) out.push(...variants(m, depth + 1));
  if (s.type === 'object' && s.properties)
    for (const [k, sub] of Object.entries(s.properties))
      for (const v of variants(sub, depth + 1)) out.push({ [k]: v });
  if (s.type === 'array' && s.items) for (const v of variants(s.items, depth + 1)) out.push([v]);
  return out;
}

test('every message of every API body and query schema names a place and what is expected', async () => {
  const app = await startApp();
  try {
    const schemas: { where: string; schema: TSchema }[] = [];
    const f = Fastify();
    f.addHook('onRoute', (r: RouteOptions) => {
      const s = r.schema as { body?: TSchema; querystring?: TSchema } | undefined;
      const where = `${String(r.method)} ${r.url}`;
      if (s?.body) schemas.push({ where: `${where} body`, schema: s.body });
      if (s?.querystring) schemas.push({ where: `${where} query`, schema: s.querystring });
    });
    await f.register(async (scope) => apiRoutes(scope, app.ctx), { prefix: '/api/v2' });
    await f.ready();
    assert.ok(schemas.length > 20, `${schemas.length} schemas found`);
    let messages = 0;
    for (const { where, schema } of schemas) {
      for (const value of variants(schema)) {
        for (const d of explain(schema, value)) {
          messages++;
          const said = `${where}, ${JSON.stringify(value)}: ${d.path} ${d.message}`;
          assert.match(d.path, /^\//, said);
          assert.doesNotMatch(d.message, /union value/i, said);
          assert.doesNotMatch(d.message, /\b(\w+) or \1\b/, said);
          assert.ok(d.message.length > 6, said);
        }
      }
    }
    assert.ok(messages > 500, `${messages} messages walked`);
    await f.close();
  } finally {
    await app.stop();
  }
});
