/**
 * Validating an uploaded document off the event loop: each document gets a fresh worker thread
 * (validate-worker.ts) with bounded memory and time (worker-thread.ts' `boundedWorker`). At most
 * `OAS_VALIDATIONS_AT_ONCE` run together and `OAS_VALIDATIONS_WAITING` wait; more uploads at the same
 * moment are refused with 429 rather than queued without bound (each holds up to OAS_SPEC_LIMIT bytes).
 */
import { OAS_SCHEMA_BUDGET_DEFAULT, OAS_SPEC_LIMIT_DEFAULT } from '../config.js';
import { AppError } from '../errors.js';
import { boundedWorker } from '../worker-thread.js';
import type { DocumentSummary } from './document.js';
import type { SpecWarning } from './lint.js';
import type { CheckReply, CheckRequest } from './validate-worker.js';

/** Validations running at the same time. */
export const OAS_VALIDATIONS_AT_ONCE = 2;
/** Uploads waiting for a validation slot; past it, 429. */
export const OAS_VALIDATIONS_WAITING = 8;
/** Longest a validation may run before the document is refused. */
export const OAS_VALIDATION_TIMEOUT_MS = 30_000;
/** Heap of one validation worker, in MB: a document that needs more is refused. */
export const OAS_VALIDATION_HEAP_MB = 512;

/**
 * A document that passed: its JSON text, what the API shows of it, and the problems found that do not
 * prevent mocking it.
 */
export type ValidSpec = DocumentSummary & { document: string; warnings: SpecWarning[] };

function refused(message: string): AppError {
  return new AppError('validation_error', message, { details: [{ path: '/', message }] });
}

const check = boundedWorker<CheckRequest, CheckReply>({
  from: import.meta.url,
  name: 'validate-worker',
  heapMb: OAS_VALIDATION_HEAP_MB,
  atOnce: OAS_VALIDATIONS_AT_ONCE,
  waiting: OAS_VALIDATIONS_WAITING,
  refusals: {
    tooSlow: (s) =>
      refused(`The document could not be validated within ${s} s; it is too large or too complex.`),
    tooBig: () =>
      refused(
        'The document needs more memory to validate than a document may use; it is too large or too complex.',
      ),
    busy: () =>
      new AppError('rate_limited', 'Too many documents are being validated at the moment; retry shortly.', {
        headers: { 'retry-after': '5' },
      }),
  },
});

/**
 * Reads and validates `text` (JSON or YAML; Swagger 2.0, OpenAPI 3.0 or 3.1; or a zip of files that
 * refer to each other, bundled into one within `maxBytes` uncompressed: bundle.ts), and expands its
 * responses' schemas within `schemaBudget` units (OAS_SCHEMA_BUDGET). Resolves with the document and
 * its summary and warnings; throws AppError `validation_error` with the parser's findings, or the schema where the
 * budget ran out, as details.
 */
export async function validateSpec(
  text: string | Uint8Array,
  opts: { schemaBudget?: number; timeoutMs?: number; maxBytes?: number } = {},
): Promise<ValidSpec> {
  const reply = await check(
    {
      text,
      maxBytes: opts.maxBytes ?? OAS_SPEC_LIMIT_DEFAULT,
      schemaBudget: opts.schemaBudget ?? OAS_SCHEMA_BUDGET_DEFAULT,
    },
    opts.timeoutMs ?? OAS_VALIDATION_TIMEOUT_MS,
  );
  if (!reply.ok) throw new AppError('validation_error', reply.message, { details: reply.findings });
  const { ok: _ok, ...valid } = reply;
  return valid;
}
