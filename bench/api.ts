/**
 * Mockingbird's management API as the benchmarks call it: one request, and a spec uploaded and
 * waited for (its job COMPLETED), with the key `mockingbirdServe` (servers.ts) starts the server with.
 */
export const BENCH_KEY = 'mb_bench_key_not_secret_0123456789abcdef';

/**
 * `method path` under `/api/v2` on `port`: a string body is sent as it is, anything else as JSON;
 * answers the parsed JSON, or throws naming the status and the start of the answer.
 */
export async function api(
  port: number,
  method: string,
  path: string,
  body?: unknown,
  type = 'application/json',
): Promise<Record<string, unknown>> {
  const r = await fetch(`http://127.0.0.1:${port}/api/v2${path}`, {
    method,
    headers: { authorization: BENCH_KEY, 'content-type': type },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * Uploads `body` (of `type`) as `endpoint`'s spec, OpenAPI or gRPC, and waits for its job, polling
 * every 20 ms for at most `timeoutMs`; throws when the job failed or did not end.
 */
export async function uploadSpec(
  port: number,
  endpoint: string,
  body: unknown,
  type = 'application/json',
  timeoutMs = 300_000,
): Promise<void> {
  const { jobId } = (await api(port, 'POST', `/endpoints/${endpoint}/specs`, body, type)) as {
    jobId: string;
  };
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const job = await api(port, 'GET', `/endpoints/${endpoint}/jobs/${jobId}`);
    if (job['status'] === 'COMPLETED') return;
    if (job['status'] === 'FAILED') throw new Error(`${endpoint}: the upload failed: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${endpoint}: the upload did not complete within ${timeoutMs / 1000} s`);
}
