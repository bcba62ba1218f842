/**
 * The validation worker thread: reads one uploaded document (JSON or YAML, or a zip of files bundled
 * into one: bundle.ts), refuses `$ref`s that
 * point outside it, and validates it with @readme/openapi-parser against the Swagger 2.0, OpenAPI 3.0
 * or 3.1 schema. Problems that do not prevent mocking (the parser's own rules, a dangling reference,
 * an unused component, an invalid example, no operations: lint.ts) are warnings, not refusals. It runs here, not on the thread that answers requests,
 * because validating a large document is hundreds of milliseconds of synchronous work (SPEC §12); the
 * main thread bounds its time and memory and ends it after one document (validate.ts).
 */
import { parentPort } from 'node:worker_threads';
import { validate } from '@readme/openapi-parser';
import { readDocument, summarize, type DocumentSummary } from './document.js';
import { BundleError, bundleZip } from './bundle.js';
import { externalRefs } from './refs.js';
import { schemaUnitsOf } from './compile.js';
import { SchemaBudgetError } from './flatten.js';
import {
  capWarnings,
  invalidExamples,
  repairDanglingRefs,
  unusedComponents,
  type SpecWarning,
} from './lint.js';

export interface CheckRequest {
  /** The document as text (JSON or YAML), or a zip of files that refer to each other (bundle.ts). */
  text: string | Uint8Array;
  /** OAS_SPEC_LIMIT: the most a zip's files may be uncompressed, together. */
  maxBytes: number;
  /** OAS_SCHEMA_BUDGET: units the responses' schemas may cost to expand. */
  schemaBudget: number;
}

export type CheckReply =
  | ({ ok: true; document: string; warnings: SpecWarning[] } & DocumentSummary)
  | { ok: false; message: string; findings: { path: string; message: string; received?: string }[] };

/** Findings reported at most; the message says how many more there were. */
const MAX_FINDINGS = 20;

/**
 * The parser's own rules, none of which prevents mocking: what they find is a warning, not a refusal
 * (a path parameter not declared, a declared one not in the path, a duplicated operationId …).
 */
const RULES = {
  'array-without-items': 'warning',
  'duplicate-non-request-body-parameters': 'warning',
  'duplicate-operation-id': 'warning',
  'invalid-security-scheme-properties': 'warning',
  'non-optional-path-parameters': 'warning',
  'path-parameters-not-in-parameters': 'warning',
  'path-parameters-not-in-path': 'warning',
} as const;

/** The first line of a parser finding (the rest is a code frame of the document). */
function headline(message: string): string {
  const lines = message.split('\n').map((l) => l.trim());
  const here = lines.find((l) => /\^ .+ here!?$/.test(l));
  const first = lines[0] ?? message;
  return here ? `${first} (${here.replace(/^.*\^\s*/, '')})` : first;
}

async function check({ text, maxBytes, schemaBudget }: CheckRequest): Promise<CheckReply> {
  let doc;
  try {
    doc = typeof text === 'string' ? readDocument(text) : bundleZip(text, maxBytes);
  } catch (err) {
    if (err instanceof BundleError)
      return {
        ok: false,
        message: `The zip cannot be bundled into one document: ${err.message}`,
        findings: [
          {
            path: err.path,
            message: err.message,
            ...(err.received === undefined ? {} : { received: err.received }),
          },
        ],
      };
    const message = (err as Error).message;
    return { ok: false, message, findings: [{ path: '/', message }] };
  }
  const external = externalRefs(doc);
  if (external.length > 0)
    return {
      ok: false,
      message:
        'The document refers to other files or URLs; only references inside the document (#/…) are resolved. Bundle the document into one file first.',
      findings: external.map((e) => ({
        path: e.path,
        message: 'External reference: not resolved',
        received: JSON.stringify(e.ref),
      })),
    };
  // A reference that leads nowhere is removed (and warned of) before anything reads the document.
  const warnings = repairDanglingRefs(doc);
  // The schemas are expanded first, within the budget: the parser's own dereferencing and checks
  // grow with the composition too (20 levels of allOf: [A, A] took it 8 s). A document past the
  // budget is refused at once, with the schema where it ran out.
  try {
    await schemaUnitsOf(doc, schemaBudget);
  } catch (err) {
    if (!(err instanceof SchemaBudgetError)) throw err;
    return {
      ok: false,
      message: err.message,
      findings: [{ path: err.path || '/', message: `Schema composition past ${err.budget} units` }],
    };
  }
  // The stored form is JSON; the parser gets its own copy, as dereferencing rewrites the object.
  const json = JSON.stringify(doc);
  const result = await validate(JSON.parse(json) as Parameters<typeof validate>[0], {
    resolve: { external: false, file: false },
    dereference: { circular: true },
    validate: {
      errors: { colorize: false },
      rules: { openapi: RULES, swagger: { ...RULES, 'unknown-required-schema-property': 'warning' } },
    },
  });
  if (!result.valid) {
    // A reference removed for pointing at nothing may be why: it is listed first.
    const findings = [
      ...warnings.map((w) => ({ path: w.path, message: w.message })),
      ...result.errors.map((e) => ({ path: '/', message: headline(e.message) })),
    ];
    const more = result.additionalErrors + Math.max(0, findings.length - MAX_FINDINGS);
    return {
      ok: false,
      message:
        `The document is not a valid ${result.specification ?? 'OpenAPI'} document` +
        (more > 0 ? ` (${more} more findings not listed).` : '.'),
      findings: findings.slice(0, MAX_FINDINGS),
    };
  }
  for (const w of result.warnings) warnings.push({ path: '/', message: headline(w.message) });
  warnings.push(...unusedComponents(doc), ...invalidExamples(doc));
  const summary = summarize(doc);
  if (summary.operations.length === 0)
    warnings.push({ path: '/paths', message: 'The document describes no operations: nothing is mocked.' });
  return { ok: true, document: json, ...summary, warnings: capWarnings(warnings) };
}

const port = parentPort;
if (!port) throw new Error('validate-worker runs as a worker thread');
port.once('message', (m: CheckRequest) => {
  check(m).then(
    (reply) => port.postMessage(reply),
    (err: unknown) => {
      const message = `The document could not be validated: ${err instanceof Error ? err.message : String(err)}`;
      port.postMessage({ ok: false, message, findings: [{ path: '/', message }] } satisfies CheckReply);
    },
  );
});
