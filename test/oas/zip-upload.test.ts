/**
 * A zip of OpenAPI files that refer to each other (SPEC §7, issue 35): bundled on upload into the one
 * stored document, which then answers; and each refusal of src/oas/bundle.ts, named: a reference to a
 * URL, to a file outside the zip or not in it, an entry path leaving the zip, too many entries, more
 * than OAS_SPEC_LIMIT bytes uncompressed, an entry inflating past OAS_ZIP_RATIO (a zip bomb), no root.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { adminAuth, startApp, type TestApp } from '../helpers/app.js';
import { assertError, call, createEndpoint, type Res } from '../helpers/api-helpers.js';
import { OAS_ZIP_ENTRIES, OAS_ZIP_RATIO } from '../../src/oas/index.js';
import { hit, postSpecMultipart, waitForJob } from './oas-helpers.js';

const ROOT = `openapi: 3.0.3
info: { title: Zipped pets, version: 1.0.0 }
paths:
  /pets/{id}:
    parameters:
      - $ref: './parameters.yaml#/id'
    get:
      responses:
        '200':
          description: A pet
          content:
            application/json:
              schema: { $ref: './schemas/pet.yaml#/Pet' }
  /owners:
    get:
      responses:
        '200':
          description: Owners
          content:
            application/json:
              schema:
                type: array
                items: { $ref: 'schemas/owner.json#/Owner' }
              example: [{ name: Ann, pets: [] }]
  /tags:
    get:
      responses:
        '200':
          description: Tags
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Tags' }
components:
  schemas:
    Tags: { type: array, maxItems: 3, items: { type: string, enum: [dog, cat] } }
`;

const PET = `Pet:
  type: object
  required: [id, name, owner]
  properties:
    id: { type: integer, minimum: 1, maximum: 9 }
    name: { type: string }
    owner: { $ref: './owner.json#/Owner' }
    tags: { $ref: '../openapi.yaml#/components/schemas/Tags' }
`;

const OWNER = JSON.stringify({
  Owner: {
    type: 'object',
    required: ['name', 'pets'],
    properties: {
      name: { type: 'string' },
      // Back to pet.yaml: a cycle across files.
      pets: { type: 'array', maxItems: 2, items: { $ref: 'pet.yaml#/Pet' } },
    },
  },
});

const PARAMS = `id: { name: id, in: path, required: true, schema: { type: integer } }\n`;

function zip(files: Record<string, string | Uint8Array>): Buffer {
  const z: Zippable = {};
  for (const [name, v] of Object.entries(files)) z[name] = typeof v === 'string' ? strToU8(v) : v;
  return Buffer.from(zipSync(z));
}

const PETS = {
  'openapi.yaml': ROOT,
  'schemas/pet.yaml': PET,
  'schemas/owner.json': OWNER,
  'parameters.yaml': PARAMS,
  'README.md': '# not a document: ignored',
};

async function postZip(app: TestApp, ep: string, data: Buffer, type = 'application/zip'): Promise<Res> {
  const r = await app.inject({
    method: 'POST',
    url: `/api/v2/endpoints/${ep}/specs`,
    headers: { ...adminAuth, 'content-type': type },
    payload: data,
  });
  return { status: r.statusCode, text: r.body, body: JSON.parse(r.body), headers: r.headers };
}

async function checkPets(app: TestApp, ep: string): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const pet = await hit(app, ep, 'GET', '/pets/3');
    assert.equal(pet.status, 200, pet.text);
    assert.ok(pet.body.id >= 1 && pet.body.id <= 9, pet.text);
    assert.equal(typeof pet.body.owner.name, 'string');
    assert.ok(Array.isArray(pet.body.owner.pets));
    for (const t of pet.body.tags ?? []) assert.ok(['dog', 'cat'].includes(t), pet.text);
  }
  assert.deepEqual((await hit(app, ep, 'GET', '/owners')).body, [{ name: 'Ann', pets: [] }]);
}

test('a zip of files that refer to each other is bundled into one stored document that answers (body and multipart)', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'zipped');
    const r = await postZip(app, 'zipped', zip(PETS));
    assert.equal(r.status, 202, r.text);
    assert.equal(r.body.type, 'oas');
    const job = await waitForJob(app, 'zipped', r.body.jobId);
    assert.equal(job.body.status, 'COMPLETED', job.text);
    assert.deepEqual(job.body.result.warnings, []);
    assert.equal(job.body.result.title, 'Zipped pets');
    await checkPets(app, 'zipped');
    const spec = await call(app, 'GET', '/endpoints/zipped/specs');
    assert.equal(spec.body.data.operations.length, 3);

    // As a multipart file (application/octet-stream is the file's type there), and with the root
    // found as the only OpenAPI document when it is not called openapi.yaml.
    await createEndpoint(app, 'zipped-multi');
    const { 'openapi.yaml': root, ...rest } = PETS;
    rest['schemas/pet.yaml'] = PET.replace('../openapi.yaml', '../pets-api.yaml');
    const m = await postSpecMultipart(
      app,
      'zipped-multi',
      zip({ ...rest, 'pets-api.yaml': root }),
      {},
      'api.zip',
    );
    assert.equal(m.status, 202, m.text);
    assert.equal((await waitForJob(app, 'zipped-multi', m.body.jobId)).body.status, 'COMPLETED');
    await checkPets(app, 'zipped-multi');
  } finally {
    await app.stop();
  }
});

test('a zip is refused (400, naming what) for a URL, a file outside it or missing, a path leaving it, no root or two', async () => {
  const app = await startApp();
  try {
    await createEndpoint(app, 'refused');
    const cases: [Record<string, string | Uint8Array>, RegExp, string | undefined][] = [
      [
        { ...PETS, 'schemas/pet.yaml': PET.replace('./owner.json', 'https://example.com/owner.json') },
        /URLs are never fetched/,
        'https://example.com/owner.json#/Owner',
      ],
      [
        { ...PETS, 'schemas/pet.yaml': PET.replace('../openapi.yaml', '../../outside.yaml') },
        /outside the zip/,
        '../../outside.yaml#/components/schemas/Tags',
      ],
      [
        { ...PETS, 'schemas/pet.yaml': PET.replace('./owner.json', '/etc/owner.json') },
        /outside the zip/,
        '/etc/owner.json#/Owner',
      ],
      [
        { ...PETS, 'schemas/owner.json': OWNER.replace('pet.yaml', 'cat.yaml') },
        /no such file in the zip/,
        'cat.yaml#/Pet',
      ],
      [
        { ...PETS, 'schemas/pet.yaml': PET.replace('#/Owner', '#/Nobody') },
        /points at nothing/,
        './owner.json#/Nobody',
      ],
      [{ ...PETS, '../evil.yaml': 'a: 1' }, /outside the zip/, '"../evil.yaml"'],
      [{ 'schemas/pet.yaml': PET }, /holds no OpenAPI document/, undefined],
      [{ 'a.yaml': ROOT, 'b.yaml': ROOT }, /several OpenAPI documents/, undefined],
      [{ ...PETS, 'schemas/pet.yaml': 'Pet: [unclosed' }, /schemas\/pet\.yaml/, undefined],
    ];
    for (const [files, message, received] of cases) {
      const r = await postZip(app, 'refused', zip(files));
      assertError(r, 400, 'validation_error');
      assert.match(r.body.error.message, /cannot be bundled/, r.text);
      assert.match(r.body.error.details[0].message, message, r.text);
      if (received !== undefined)
        assert.ok(r.body.error.details[0].received.includes(received), `${received}: ${r.text}`);
    }
    assertError(await call(app, 'GET', '/endpoints/refused/specs'), 404, 'not_found');
  } finally {
    await app.stop();
  }
});

test(`zip bounds: ${OAS_ZIP_ENTRIES} entries and not one more, OAS_SPEC_LIMIT bytes uncompressed, ${OAS_ZIP_RATIO}x inflation`, async () => {
  const limit = 64 * 1024;
  const app = await startApp({ oasSpecLimit: limit });
  try {
    await createEndpoint(app, 'bounded');
    const filler = (n: number): Record<string, string> =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`x/${i}.txt`, '']));
    const at = await postZip(app, 'bounded', zip({ ...PETS, ...filler(OAS_ZIP_ENTRIES - 5) }));
    assert.equal(at.status, 202, at.text);
    await waitForJob(app, 'bounded', at.body.jobId);
    const over = await postZip(app, 'bounded', zip({ ...PETS, ...filler(OAS_ZIP_ENTRIES - 4) }));
    assertError(over, 400, 'validation_error');
    assert.match(over.body.error.details[0].message, new RegExp(`more than ${OAS_ZIP_ENTRIES} entries`));

    // Uncompressed bytes past the limit, though the zip itself is small.
    const big = `# ${'x'.repeat(limit)}\n`;
    const bytes = await postZip(
      app,
      'bounded',
      zip({ ...PETS, 'big.yaml': big.slice(0, limit / 2), 'big2.yaml': big.slice(0, limit / 2) }),
    );
    assertError(bytes, 400, 'validation_error');
    assert.match(bytes.body.error.details[0].message, new RegExp(`larger than ${limit} bytes uncompressed`));
  } finally {
    await app.stop();
  }
  // A zip bomb: 8 MiB of one byte deflates to a few KB.
  const app2 = await startApp();
  try {
    await createEndpoint(app2, 'bomb');
    const bomb = await postZip(
      app2,
      'bomb',
      zip({ ...PETS, 'bomb.yaml': new Uint8Array(8 * 1024 * 1024).fill(0x20) }),
    );
    assertError(bomb, 400, 'validation_error');
    assert.match(bomb.body.error.details[0].message, new RegExp(`inflates more than ${OAS_ZIP_RATIO} times`));
    assert.equal(bomb.body.error.details[0].received, '"bomb.yaml"');
    // Not a zip after its first bytes: refused, not a crash.
    const broken = zip(PETS).subarray(0, 60);
    const r = await postZip(app2, 'bomb', Buffer.from(broken));
    assertError(r, 400, 'validation_error');
  } finally {
    await app2.stop();
  }
});
