/**
 * Contract checking in the mock pipeline (SPEC §7): past the guards, a request that an operation of
 * the endpoint's OpenAPI document describes is checked against it, and whatever then answers (a rule,
 * the tunnel, the proxy, the document) has its answer checked against the operation's response. The
 * outcome carries both lists (`validation`, `responseValidation`; empty when kept) unless the
 * endpoint's `openapi.validation` is `off`. With `enforce`, a request that breaks the contract is
 * answered at once in the one error shape, recorded as `rejected`, and the chain never runs: 401
 * `contract_unauthorized` when only its credential is missing, 415 `unsupported_media_type` when its
 * Content-Type is not taken, else 422 `contract_violation`; the violations are the `details`.
 *
 * Cost: an endpoint without a document passes without a promise once its spec has been read (it is
 * kept per endpoint record, oas/serve.ts); the validators are compiled per operation on first use.
 */
import type { MockDeps } from './deps.js';
import type { Outcome } from '../endpoint/index.js';
import { JSON_TYPE, headerMap, type Answer } from '../http/index.js';
import {
  checkRequest,
  checkResponse,
  compiledSpecOf,
  readySpecOf,
  type CompiledSpec,
  type OperationMatch,
} from '../oas/index.js';
import { errorBody, type ErrorCode } from '../errors.js';
import type { ContractViolation } from '../store/index.js';
import type { MockExchange, MockStep } from './endpoint-settings.js';

type ContractDeps = Pick<MockDeps, 'config' | 'log' | 'store' | 'metrics'>;

/** The refusal of a request that breaks the contract, with the code the violations call for. */
export function contractRefusal(violations: ContractViolation[]): Answer {
  const code: ErrorCode = violations.every((v) => v.in === 'security')
    ? 'contract_unauthorized'
    : violations.some((v) => v.in === 'content-type')
      ? 'unsupported_media_type'
      : 'contract_violation';
  const status = code === 'contract_unauthorized' ? 401 : code === 'unsupported_media_type' ? 415 : 422;
  const headers = headerMap();
  headers['content-type'] = JSON_TYPE;
  return { status, headers, body: JSON.stringify(errorBody(code, undefined, violations)) };
}

function withProblems(o: Outcome, problems: string[]): Outcome['problems'] {
  return problems.length === 0 ? o.problems : [...(o.problems ?? []), ...problems];
}

/**
 * `inner` (the steps past the guards) with contract checking around it: see the module comment.
 */
export function withContract(ctx: ContractDeps, inner: MockStep): MockStep {
  return (x) => {
    const mode = x.endpoint.settings.openapi.validation;
    if (mode === 'off' || !x.endpoint.plan.openapi) return inner(x);
    const spec = readySpecOf(x.endpoint.record);
    if (spec === null) return inner(x);
    if (spec !== undefined) return checked(x, spec, mode === 'enforce');
    return compiledSpecOf(ctx, x.endpoint.record).then(
      (s) => (s ? checked(x, s, mode === 'enforce') : inner(x)),
      (err: unknown) => {
        // The document could not be read: the request is answered as if it had none.
        ctx.log.warn(
          { endpoint: x.endpoint.record.name, err },
          'OpenAPI document not read for contract checking',
        );
        return inner(x);
      },
    );
  };

  function checked(
    x: MockExchange,
    spec: CompiledSpec,
    enforce: boolean,
  ): Outcome | undefined | Promise<Outcome | undefined> {
    const m = spec.match(x.request.method, x.request.pathname);
    if (!m) return inner(x);
    const req = checkRequest(spec, m, x.request);
    if (req.violations.length > 0)
      ctx.metrics.contractViolations.inc({ direction: 'request' }, req.violations.length);
    if (enforce && req.violations.length > 0) {
      const o: Outcome = {
        behavior: 'rejected',
        answer: contractRefusal(req.violations),
        validation: req.violations,
      };
      if (req.problems.length > 0) o.problems = req.problems;
      return o;
    }
    const out = inner(x);
    return out instanceof Promise
      ? out.then((o) => o && answered(spec, m, o, req.violations, req.problems))
      : out && answered(spec, m, out, req.violations, req.problems);
  }

  function answered(
    spec: CompiledSpec,
    m: OperationMatch,
    o: Outcome,
    validation: ContractViolation[],
    problems: string[],
  ): Outcome {
    // An answer replaced by a fault never reaches the client: there is nothing of it to check.
    if (o.answer.fault !== undefined) {
      const r: Outcome = { ...o, validation };
      const p = withProblems(o, problems);
      if (p) r.problems = p;
      return r;
    }
    const res = checkResponse(spec, m.op, o.answer);
    if (res.violations.length > 0)
      ctx.metrics.contractViolations.inc({ direction: 'response' }, res.violations.length);
    // Set only when present (a spread of `{}` in the literal costs V8 a runtime call on every request).
    const r: Outcome = { ...o, validation, responseValidation: res.violations };
    const p = withProblems(o, res.problems.length === 0 ? problems : [...problems, ...res.problems]);
    if (p) r.problems = p;
    return r;
  }
}
