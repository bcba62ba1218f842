/**
 * gRPC descriptors uploaded through the specs API (SPEC §7, §13): a .proto as multipart or as the
 * body, a descriptor set as bytes, 202 with a job of type grpc that ends COMPLETED, GET …/specs listing
 * the services, the kind forced or refused, 400 for an upload without a service, GRPC_SPEC_LIMIT, one
 * spec per endpoint (OpenAPI replaces gRPC and back), DELETE, the plan, and HTTP traffic of an
 * endpoint with gRPC descriptors answered as with no spec.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, toBinary } from '@bufbuild/protobuf';
import { FieldDescriptorProto_Type, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { startApp, adminAuth, type TestApp } from '../helpers/app.js';
import { assertError, call, createEndpoint, type Res } from '../helpers/api-helpers.js';
import { PETSTORE_30_YAML } from '../oas/fixtures.js';
import { hit, postSpecMultipart, uploadSpec, waitForJob } from '../oas/oas-helpers.js';
import { GRPC_SPEC_LIMIT, grpcSpecOf } from '../../src/grpc/index.js';

const USER_PROTO = `// Users, for the upload tests.
/* A block comment first. */
syntax = "proto3";
package user.v1;

message GetUserRequest { string id = 1; }
message User { string id = 1; string name = 2; }

service UserService {
  rpc GetUser (GetUserRequest) returns (User);
  rpc ListUsers (GetUserRequest) returns (stream User);
  rpc Upload (stream User) returns (GetUserRequest);
  rpc Chat (stream User) returns (stream User);
}
`;

const USER_SERVICES = [
  {
    name: 'user.v1.UserService',
    methods: [
      { name: 'GetUser', callType: 'unary', inputType: 'user.v1.GetUserRequest', outputType: 'user.v1.User' },
      {
        name: 'ListUsers',
        callType: 'server_streaming',
        inputType: 'user.v1.GetUserRequest',
        outputType: 'user.v1.User',
      },
      {
        name: 'Upload',
        callType: 'client_streaming',
        inputType: 'user.v1.User',
        outputType: 'user.v1.GetUserRequest',
      },
      {
        name: 'Chat',
        callType: 'bidirectional_streaming',
        inputType: 'user.v1.User',
        outputType: 'user.v1.User',
      },
    ],
  },
];

/** A compiled descriptor set (as `protoc --descriptor_set_out` writes) of one service, `greet.Greeter`. */
function greeterSet(): Buffer {
  const string = { type: FieldDescriptorProto_Type.STRING, number: 1, jsonName: 'name' };
  const set = create(FileDescriptorSetSchema, {
    file: [
      {
        name: 'greet.proto',
        package: 'greet',
        syntax: 'proto3',
        messageType: [
          { name: 'HelloRequest', field: [{ name: 'name', ...string }] },
          { name: 'HelloReply', field: [{ name: 'message', ...string, jsonName: 'message' }] },
        ],
        service: [
          {
            name: 'Greeter',
            method: [{ name: 'SayHello', inputType: '.greet.HelloRequest', outputType: '.greet.HelloReply' }],
          },
        ],
      },
    ],
  });
  return Buffer.from(toBinary(FileDescriptorSetSchema, set));
}

function res(r: { statusCode: number; body: string; headers: Record<string, unknown> }): Res {
  let body: unknown;
  try {
    body = JSON.parse(r.body);
  } catch {
    body = undefined;
  }
  return { status: r.statusCode, body, headers: r.headers, text: r.body };
}

/** POSTs `data` as the body of …/specs with `contentType`. */
async function postBody(
  app: TestApp,
  ep: string,
  data: string | Buffer,
  contentType: string,
  query = '',
): Promise<Res> {
  const r = await app.inject({
    method: 'POST',
    url: `/api/v2/endpoints/${ep}/specs${query}`,
    headers: { ...adminAuth, 'content-type': contentType },
    payload: data,
  });
  return res(r);
}

/** Asserts a 202 with a QUEUED grpc job, waits for it and asserts COMPLETED; returns the job. */
async function completed(app: TestApp, ep: string, r: Res): Promise<Res> {
  assert.equal(r.status, 202, r.text);
  assert.equal(r.body.type, 'grpc');
  assert.equal(r.body.status, 'QUEUED');
  const job = await waitForJob(app, ep, r.body.jobId);
  assert.equal(job.body.status, 'COMPLETED', job.text);
  assert.equal(job.body.type, 'grpc');
  return job;
}

test('a .proto as multipart: 202 job type grpc, COMPLETED, GET …/specs lists services and methods, DELETE', async (t) => {
  const app = await startApp();
  t.after(() => app.stop());
  await createEndpoint(app, 'users');
  const r = await postSpecMultipart(app, 'users', USER_PROTO, {}, 'user.proto');
  const job = await completed(app, 'users', r);
  assert.equal(job.body.progress, 100);
  assert.match(job.body.completedAt, /^\d{4}-\d\d-\d\dT.*Z$/);
  assert.deepEqual(job.body.result, { syntax: 'proto3', files: ['user.proto'], services: USER_SERVICES });
  assert.match(job.body.message, /4 methods are mocked/);

  const spec = await call(app, 'GET', '/endpoints/users/specs');
  assert.equal(spec.status, 200, spec.text);
  assert.deepEqual(Object.keys(spec.body.data).sort(), [
    'files',
    'jobId',
    'services',
    'syntax',
    'type',
    'uploadedAt',
  ]);
  assert.equal(spec.body.data.type, 'grpc');
  assert.equal(spec.body.data.syntax, 'proto3');
  assert.deepEqual(spec.body.data.files, ['user.proto']);
  assert.deepEqual(spec.body.data.services, USER_SERVICES);
  assert.equal(spec.body.data.jobId, r.body.jobId);

  const del = await call(app, 'DELETE', '/endpoints/users/specs');
  assert.deepEqual(del.body, { data: { deleted: true } });
  assertError(await call(app, 'GET', '/endpoints/users/specs'), 404, 'not_found');
  assertError(await call(app, 'DELETE', '/endpoints/users/specs'), 404, 'not_found');
});

test('a .proto as the body: by its text (any type) or by a protobuf Content-Type', async (t) => {
  const app = await startApp();
  t.after(() => app.stop());
  await createEndpoint(app, 'bodies');
  for (const type of ['text/plain', 'application/yaml', 'text/x-protobuf', 'application/x-protobuf']) {
    const job = await completed(app, 'bodies', await postBody(app, 'bodies', USER_PROTO, type));
    assert.deepEqual(job.body.result.services, USER_SERVICES, type);
  }
  // Text that starts with `package` (no syntax line) is a .proto too: proto2 by default.
  const pkg = 'package p;\nmessage M {}\nservice S { rpc Do (M) returns (M); }\n';
  const job = await completed(app, 'bodies', await postBody(app, 'bodies', pkg, 'text/plain'));
  assert.equal(job.body.result.syntax, 'proto2');
  assert.equal(job.body.result.services[0].name, 'p.S');
});

test('a compiled descriptor set as bytes (body and multipart); grpcSpecOf serves its bytes', async (t) => {
  const app = await startApp();
  t.after(() => app.stop());
  await createEndpoint(app, 'greet');
  const set = greeterSet();
  for (const type of [
    'application/octet-stream',
    'application/x-protobuf-descriptor',
    'application/protobuf',
  ]) {
    const job = await completed(app, 'greet', await postBody(app, 'greet', set, type));
    assert.deepEqual(job.body.result, {
      syntax: 'proto3',
      files: ['greet.proto'],
      services: [
        {
          name: 'greet.Greeter',
          methods: [
            {
              name: 'SayHello',
              callType: 'unary',
              inputType: 'greet.HelloRequest',
              outputType: 'greet.HelloReply',
            },
          ],
        },
      ],
    });
  }
  for (const name of ['greet.pb', 'greet.binpb', 'greet.desc', 'greet.protoset'])
    await completed(app, 'greet', await postSpecMultipart(app, 'greet', set, {}, name));

  const ep = await app.ctx.endpoints.get('greet');
  assert.ok(ep);
  assert.deepEqual(Buffer.from((await grpcSpecOf(app.ctx, ep.record))!), set);
  const stored = await app.ctx.store.getSpec('greet');
  assert.equal(stored?.type, 'grpc');
  assert.equal(stored?.document, set.toString('base64'));
  assert.equal(stored?.title, 'greet.Greeter');
  assert.equal(stored?.size, set.length);
});

test('an upload with no service, a .proto that does not compile, or bytes that are no descriptor set: 400, nothing changed', async (t) => {
  const app = await startApp();
  t.after(() => app.stop());
  await createEndpoint(app, 'bad');
  const before = await completed(app, 'bad', await postBody(app, 'bad', USER_PROTO, 'text/plain'));

  const noService = await postBody(
    app,
    'bad',
    'syntax = "proto3";\nmessage M { string a = 1; }\n',
    'text/plain',
  );
  assertError(noService, 400, 'validation_error');
  assert.match(noService.body.error.message, /no service/);
  // Refusals name the file, and the line where there is one (`file:line`).
  assert.deepEqual(noService.body.error.details, [
    { path: 'upload.proto', message: 'The proto defines no service; a gRPC mock needs one' },
  ]);

  const broken = await postSpecMultipart(
    app,
    'bad',
    'syntax = "proto3";\nservice S { rpc }\n',
    {},
    'b.proto',
  );
  assertError(broken, 400, 'validation_error');
  assert.match(broken.body.error.message, /^b\.proto:2: /);
  assert.equal(broken.body.error.details[0].path, 'b.proto:2');

  const unresolved = await postBody(
    app,
    'bad',
    'syntax = "proto3";\nservice S { rpc Do (Nope) returns (Nope); }\n',
    'text/plain',
  );
  assertError(unresolved, 400, 'validation_error');
  assert.deepEqual(unresolved.body.error.details, [
    { path: 'upload.proto:2', message: 'Do: type "Nope" is not defined' },
  ]);

  const garbage = await postBody(
    app,
    'bad',
    Buffer.from([0xff, 0xff, 0x00, 0x01, 0x02]),
    'application/octet-stream',
  );
  assertError(garbage, 400, 'validation_error');
  assert.match(garbage.body.error.message, /neither UTF-8 \.proto text nor a binary FileDescriptorSet/);

  const empty = create(FileDescriptorSetSchema, {});
  const none = await postBody(
    app,
    'bad',
    Buffer.from(toBinary(FileDescriptorSetSchema, empty)),
    'application/x-protobuf',
  );
  assertError(none, 400, 'validation_error');

  const spec = await call(app, 'GET', '/endpoints/bad/specs');
  assert.equal(spec.body.data.jobId, before.body.jobId, 'the earlier spec still serves');
});

test('type: ?type= and the multipart field force the kind; a bad type or intelligenceMock with gRPC is 400', async (t) => {
  const app = await startApp();
  t.after(() => app.stop());
  await createEndpoint(app, 'forced');
  // A descriptor set in a file whose name says nothing is read as OpenAPI, unless `type` says gRPC.
  const set = greeterSet();
  assertError(await postSpecMultipart(app, 'forced', set, {}, 'greeter.bin'), 400, 'validation_error');
  await completed(
    app,
    'forced',
    await postSpecMultipart(app, 'forced', set, { type: 'grpc' }, 'greeter.bin'),
  );
  assertError(await postBody(app, 'forced', set, 'application/json'), 400, 'validation_error');
  await completed(app, 'forced', await postBody(app, 'forced', set, 'application/json', '?type=grpc'));
  // An OpenAPI document sent as application/octet-stream is OpenAPI when forced.
  const oas = await postBody(app, 'forced', PETSTORE_30_YAML, 'application/octet-stream', '?type=openapi');
  assert.equal(oas.status, 202, oas.text);
  assert.equal(oas.body.type, 'oas');
  await waitForJob(app, 'forced', oas.body.jobId);

  const badQuery = await postBody(app, 'forced', USER_PROTO, 'text/plain', '?type=soap');
  assertError(badQuery, 400, 'validation_error');
  const badField = await postSpecMultipart(app, 'forced', USER_PROTO, { type: 'soap' }, 'user.proto');
  assertError(badField, 400, 'validation_error');
  assert.equal(badField.body.error.details[0].path, '/type');
  const im = await postBody(app, 'forced', USER_PROTO, 'text/plain', '?intelligenceMock=true');
  assertError(im, 400, 'validation_error');
  assert.equal(im.body.error.details[0].path, '/intelligenceMock');
  const imField = await postSpecMultipart(
    app,
    'forced',
    USER_PROTO,
    { intelligenceMock: 'false' },
    'user.proto',
  );
  assertError(imField, 400, 'validation_error');
});

test('GRPC_SPEC_LIMIT: limit − 1 and limit bytes are taken, limit + 1 is 413 (body and multipart)', async (t) => {
  const app = await startApp();
  t.after(() => app.stop());
  await createEndpoint(app, 'sized');
  const sized = (n: number): Buffer => {
    const head = Buffer.from(USER_PROTO);
    // Padding in a comment: the .proto still compiles, whatever its length.
    return Buffer.concat([
      head,
      Buffer.from('//'),
      Buffer.alloc(n - head.length - 3, 'x'),
      Buffer.from('\n'),
    ]);
  };
  for (const n of [GRPC_SPEC_LIMIT - 1, GRPC_SPEC_LIMIT]) {
    assert.equal(sized(n).length, n);
    await completed(app, 'sized', await postBody(app, 'sized', sized(n), 'text/x-protobuf'));
    await completed(app, 'sized', await postSpecMultipart(app, 'sized', sized(n), {}, 'big.proto'));
  }
  const over = await postBody(app, 'sized', sized(GRPC_SPEC_LIMIT + 1), 'text/x-protobuf');
  assertError(over, 413, 'payload_too_large');
  assert.match(over.body.error.message, new RegExp(`larger than ${GRPC_SPEC_LIMIT} bytes`));
  assertError(
    await postSpecMultipart(app, 'sized', sized(GRPC_SPEC_LIMIT + 1), {}, 'big.proto'),
    413,
    'payload_too_large',
  );
});

test('GRPC_SPEC_LIMIT holds when OAS_SPEC_LIMIT is smaller, and the OpenAPI limit still holds beside it', async (t) => {
  const app = await startApp({ oasSpecLimit: 4096 });
  t.after(() => app.stop());
  await createEndpoint(app, 'small');
  const big = `${USER_PROTO}//${'x'.repeat(10_000)}\n`;
  await completed(app, 'small', await postBody(app, 'small', big, 'text/plain'));
  const yaml = `${PETSTORE_30_YAML}\n#${'x'.repeat(5000)}\n`;
  assertError(await postBody(app, 'small', yaml, 'application/yaml'), 413, 'payload_too_large');
});

test('one spec per endpoint: OpenAPI replaces gRPC and back; HTTP traffic with gRPC descriptors gets the default answer', async (t) => {
  const app = await startApp();
  t.after(() => app.stop());
  await createEndpoint(app, 'swap');
  const none = await hit(app, 'swap', 'GET', '/pets');
  assert.equal(none.status, 200);

  await completed(app, 'swap', await postBody(app, 'swap', USER_PROTO, 'text/plain'));
  const withGrpc = await hit(app, 'swap', 'GET', '/pets');
  assert.equal(withGrpc.status, none.status);
  assert.equal(withGrpc.text, none.text);

  await uploadSpec(app, 'swap', PETSTORE_30_YAML);
  const spec = await call(app, 'GET', '/endpoints/swap/specs');
  assert.equal(spec.body.data.type, 'openapi');
  assert.equal(spec.body.data.title, 'Petstore');
  const ep = await app.ctx.endpoints.get('swap');
  assert.equal(await grpcSpecOf(app.ctx, ep!.record), undefined, 'no descriptors once OpenAPI replaced them');
  const oas = await hit(app, 'swap', 'GET', '/pets');
  assert.equal(oas.status, 200);
  assert.notEqual(oas.text, none.text, 'the OpenAPI operation answers');

  const set = greeterSet();
  await completed(app, 'swap', await postBody(app, 'swap', set, 'application/octet-stream'));
  const back = await call(app, 'GET', '/endpoints/swap/specs');
  assert.equal(back.body.data.type, 'grpc');
  assert.equal(back.body.data.services[0].name, 'greet.Greeter');
  const after = await hit(app, 'swap', 'GET', '/pets');
  assert.equal(after.text, none.text, 'the OpenAPI document no longer answers');
  const fresh = await app.ctx.endpoints.get('swap');
  assert.deepEqual(
    Buffer.from((await grpcSpecOf(app.ctx, fresh!.record))!),
    set,
    'replaced on the next read',
  );
});

test('the jobs endpoint shows the gRPC job; a plan without openapi refuses gRPC uploads (403 plan_limit)', async (t) => {
  const app = await startApp();
  t.after(() => app.stop());
  await createEndpoint(app, 'jobs');
  const r = await postBody(app, 'jobs', USER_PROTO, 'text/plain');
  const job = await completed(app, 'jobs', r);
  const again = await call(app, 'GET', `/endpoints/jobs/jobs/${r.body.jobId}`);
  assert.equal(again.status, 200);
  assert.equal(again.body.type, 'grpc');
  assert.deepEqual(again.body, job.body);

  await createEndpoint(app, 'free');
  assert.equal((await call(app, 'PATCH', '/endpoints/free/settings', { plan: 'free' })).status, 200);
  const refused = await postBody(app, 'free', USER_PROTO, 'text/plain');
  assertError(refused, 403, 'plan_limit');
  assert.match(refused.body.error.message, /gRPC/);
  assertError(await postSpecMultipart(app, 'free', greeterSet(), {}, 'g.pb'), 403, 'plan_limit');
  assertError(await call(app, 'GET', '/endpoints/free/specs'), 404, 'not_found');
});
