/**
 * The dashboard's session (Mockingbird's own routes, not the hosted API's): the dashboard trades the key
 * the user typed for a cookie that no script can read, so that a page of the dashboard's origin (a
 * mock answer of the path form, before it was sandboxed; an injected script) cannot take the key.
 *
 *   POST /session   with the key in `Authorization` → 200 `{ endpoint }` and
 *                   `Set-Cookie: mb_session=<key>; Path=/api; HttpOnly; SameSite=Strict` (`Secure` over HTTPS)
 *   DELETE /session → 200 `{ deleted: true }`, the cookie cleared (no key needed: logging out always works)
 *
 * The cookie holds the key itself: revoking the key ends every session of it, on every instance, with
 * no session table. It has no Max-Age (gone with the browser) and is sent to `/api` only, never to an
 * endpoint's path form (`/e/…`), so a proxy or tunnel never passes it on. auth.ts says when the API
 * takes it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AppError } from '../errors.js';
import { Nullable } from '../schema/index.js';
import { presentedKey, SESSION_COOKIE } from './auth.js';
import { NoQuery } from './schemas/common.js';

/** The session routes' path under /api/v2 (DELETE is answered without a key). */
export const SESSION_PATH = '/session';

const TAGS = ['Dashboard session'];

function cookie(request: FastifyRequest, value: string, clear: boolean): string {
  const parts = [`${SESSION_COOKIE}=${value}`, 'Path=/api', 'HttpOnly', 'SameSite=Strict'];
  if (request.protocol === 'https') parts.push('Secure');
  if (clear) parts.push('Max-Age=0');
  return parts.join('; ');
}

export async function sessionApi(app: FastifyInstance): Promise<void> {
  app.post(
    SESSION_PATH,
    {
      schema: {
        tags: TAGS,
        summary:
          "Start the dashboard's session: the key, sent in Authorization, comes back as an HttpOnly cookie",
        querystring: NoQuery,
        response: {
          200: Type.Object({ endpoint: Nullable(Type.String({ description: 'null: an admin key' })) }),
        },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      // Authenticated by the API's hook; the cookie carries the key that was sent in the header.
      const key = request.headers.authorization === undefined ? undefined : presentedKey(request, false);
      if (key === undefined)
        throw new AppError(
          'validation_error',
          'POST /session takes the API key in the Authorization header.',
        );
      void reply.header('set-cookie', cookie(request, key, false)).header('cache-control', 'no-store');
      return { endpoint: request.principal?.endpoint ?? null };
    },
  );

  app.delete(
    SESSION_PATH,
    {
      schema: {
        tags: TAGS,
        summary: "End the dashboard's session: the cookie is cleared (no key needed)",
        querystring: NoQuery,
        response: { 200: Type.Object({ deleted: Type.Literal(true) }) },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      void reply.header('set-cookie', cookie(request, '', true));
      return { deleted: true as const };
    },
  );
}
