/** Uploading OpenAPI documents in tests: as a body or multipart, then polling the job to its end. */
import assert from 'node:assert/strict';
import { adminAuth, type TestApp } from '../helpers/app.js';
import { until } from '../helpers/until.js';
import { call, type Res } from '../helpers/api-helpers.js';

function res(r: { statusCode: number; body: string; headers: Record<string, unknown> }): Res {
  let body: unknown;
  try {
    body = JSON.parse(r.body);
  } catch {
    body = undefined;
  }
  return { status: r.statusCode, body, headers: r.headers, text: r.body };
}

/** POSTs `doc` (an object is sent as JSON, text as YAML) as the body of …/specs. */
export async function postSpec(
  app: TestApp,
  ep: string,
  doc: unknown,
  opts: { query?: string; contentType?: string; key?: string } = {},
): Promise<Res> {
  const text = typeof doc === 'string' ? doc : JSON.stringify(doc);
  const r = await app.inject({
    method: 'POST',
    url: `/api/v2/endpoints/${ep}/specs${opts.query ?? ''}`,
    headers: {
      authorization: opts.key ?? adminAuth.authorization,
      'content-type': opts.contentType ?? (typeof doc === 'string' ? 'application/yaml' : 'application/json'),
    },
    payload: text,
  });
  return res(r);
}

/** POSTs `doc` as multipart/form-data: the file in `file`, and the given text fields. */
export async function postSpecMultipart(
  app: TestApp,
  ep: string,
  doc: string | Buffer,
  fields: Record<string, string> = {},
  fileName = 'openapi.yaml',
): Promise<Res> {
  const b = 'mbspecboundary';
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(
    Buffer.from(
      `--${b}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    Buffer.isBuffer(doc) ? doc : Buffer.from(doc),
    Buffer.from(`\r\n--${b}--\r\n`),
  );
  const r = await app.inject({
    method: 'POST',
    url: `/api/v2/endpoints/${ep}/specs`,
    headers: { ...adminAuth, 'content-type': `multipart/form-data; boundary=${b}` },
    payload: Buffer.concat(parts),
  });
  return res(r);
}

/** Polls the job until it is COMPLETED or FAILED; returns its last state. */
export async function waitForJob(app: TestApp, ep: string, jobId: string): Promise<Res> {
  let last: Res | undefined;
  await until(
    async () => {
      last = await call(app, 'GET', `/endpoints/${ep}/jobs/${jobId}`);
      assert.equal(last.status, 200, last.text);
      return last.body.status === 'COMPLETED' || last.body.status === 'FAILED';
    },
    10_000,
    'the job did not end in time',
  );
  return last!;
}

/** Uploads `doc` and waits for its job to complete; returns the job. */
export async function uploadSpec(
  app: TestApp,
  ep: string,
  doc: unknown,
  opts: Parameters<typeof postSpec>[3] = {},
): Promise<Res> {
  const r = await postSpec(app, ep, doc, opts);
  assert.equal(r.status, 202, r.text);
  const job = await waitForJob(app, ep, r.body.jobId as string);
  assert.equal(job.body.status, 'COMPLETED', job.text);
  return job;
}

/** A request to the endpoint's mock traffic. */
export async function hit(
  app: TestApp,
  ep: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Res> {
  const r = await app.inject({ method: method as 'GET', url: `/e/${ep}${path}`, headers });
  return res(r);
}
