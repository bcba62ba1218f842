/**
 * JSON request bodies of the API and the TOTP API: Fastify's own parser (with its `__proto__` and
 * `constructor` poisoning checks), after a linear scan that refuses nesting deeper than
 * `DOCUMENT_MAX_DEPTH`. Without it a body of 100,000 `[` got "Maximum call stack size exceeded" as its
 * error message, from a recursive walk. Endpoint bodies do not come here: the endpoint lifecycle
 * reads them itself.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/** Deeper than any document of the API (a rule is about six levels). */
export const DOCUMENT_MAX_DEPTH = 64;

/** How deep `text` nests objects and arrays, stopping as soon as it passes `limit`. */
export function jsonDepthOver(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/** Replaces the root instance's JSON parser; call before the routes are registered. */
export function installJsonBodyParser(fastify: FastifyInstance): void {
  const parse = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (jsonDepthOver(text, DOCUMENT_MAX_DEPTH)) {
      done(
        new AppError(
          'validation_error',
          `The JSON body nests objects and arrays more than ${DOCUMENT_MAX_DEPTH} levels deep.`,
          { details: [{ path: '/', message: `nested more than ${DOCUMENT_MAX_DEPTH} levels` }] },
        ),
        undefined,
      );
      return;
    }
    void parse(request, text, done);
  });
}
