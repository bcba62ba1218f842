/** Conformance: OpenAPI uploads answered with a job, as the hosted service does; the spec shown and deleted. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, type TestApp } from '../helpers/app.js';
import { conforms, conformsError, send } from './conformance.js';

let app: TestApp;
const E = '/api/v2/endpoints/pets';
before(async () => {
  app = await startApp();
  conforms('POST /api/v2/endpoints', await send(app, 'POST', '/api/v2/endpoints', { name: 'pets' }));
});
after(async () => {
  await app.stop();
});

const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  paths: {
    '/pets': {
      get: {
        operationId: 'listPets',
        responses: {
          '200': { description: 'ok', content: { 'application/json': { example: [{ id: 1 }] } } },
        },
      },
    },
  },
};

test('upload: 202 with a job; the job ends COMPLETED; GET and DELETE the spec', async () => {
  const job = conforms('POST /api/v2/endpoints/:ep/specs', await send(app, 'POST', `${E}/specs`, SPEC));
  let state = job;
  const end = Date.now() + 10_000;
  while (state.status === 'QUEUED' || state.status === 'PROCESSING') {
    assert.ok(Date.now() < end, 'the job did not finish in 10 s');
    await new Promise((r) => setTimeout(r, 25));
    state = conforms(
      'GET /api/v2/endpoints/:ep/jobs/:jobId',
      await send(app, 'GET', `${E}/jobs/${job.jobId}`),
    );
  }
  assert.equal(state.status, 'COMPLETED');
  const info = conforms('GET /api/v2/endpoints/:ep/specs', await send(app, 'GET', `${E}/specs`));
  assert.equal(info.data.title, 'Pets');
  conforms('DELETE /api/v2/endpoints/:ep/specs', await send(app, 'DELETE', `${E}/specs`));
  conformsError(await send(app, 'GET', `${E}/specs`), 404, 'not_found');
});

test('a document that is not OpenAPI is 400 at once', async () => {
  conformsError(await send(app, 'POST', `${E}/specs`, { hello: 'world' }), 400, 'validation_error');
});
