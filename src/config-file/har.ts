/**
 * `har:` of an endpoint in a configuration file: a HAR 1.2 document, read relative to the file (at most
 * HAR_IMPORT_LIMIT bytes and HAR_MAX_ENTRIES entries, the API's bounds), whose entries become mock rules
 * after the file's own rules, made as the API's import makes them (src/mock/har-import.ts). The file's
 * rules count as existing ones: an entry naming the same method, path and query as one of them, or as
 * an earlier entry, is skipped. Applying replaces the endpoint's rules whole, so loading the same file
 * again (a restart, `--watch`, `import`) creates no duplicates.
 */
import { Type, type Static } from '@sinclair/typebox';
import { dirname, resolve } from 'node:path';
import { readRegularFile } from '../regular-file.js';
import { HAR_MAX_ENTRIES, harRules, type HarImportPlan, type RuleData } from '../mock/index.js';

export const HarRef = Type.Union([
  Type.String({ minLength: 1, description: 'path of a HAR file, relative to this file' }),
  Type.Object(
    {
      file: Type.String({ minLength: 1 }),
      headers: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
          maxItems: 4,
          description: 'request header names that become `header` `equals` conditions (the API’s `headers`)',
        }),
      ),
    },
    { additionalProperties: false },
  ),
]);
export type HarRef = Static<typeof HarRef>;

/**
 * The rules a configuration's `har` makes, after `fileRules`; throws an Error saying why the file
 * cannot be used (unreadable, too large, not JSON, no `log.entries` array, too many entries).
 */
export function planHar(
  configFile: string,
  ref: HarRef,
  limit: number,
  fileRules: readonly RuleData[],
): HarImportPlan {
  const { file, headers = [] } = typeof ref === 'string' ? { file: ref } : ref;
  const text = readRegularFile(resolve(dirname(configFile), file), limit).toString('utf8');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const entries = (doc as { log?: { entries?: unknown } } | null)?.log?.entries;
  if (!Array.isArray(entries)) throw new Error('not a HAR document: log.entries must be an array');
  if (entries.length > HAR_MAX_ENTRIES)
    throw new Error(`${entries.length} entries; a HAR holds at most ${HAR_MAX_ENTRIES} (split it)`);
  return harRules(entries, fileRules, { headers });
}
