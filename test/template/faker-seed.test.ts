/**
 * Every faker attribute of the seed's table, under the seed's (old) name, renders a plausible,
 * non-empty value on the current @faker-js/faker. The table is copied from the seed as written.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { compileTemplate, loadFakeData } from '../../src/template/index.js';

const SEED_TABLE = `
| random | number, uuid, boolean, word, words, image, locale, alphaNumeric |
| lorem | word, words, sentence, slug, sentences, paragraph, paragraphs, text, lines |
| name | firstName, lastName, findName, jobTitle, prefix, suffix, title, jobDescriptor, jobArea, jobType |
| address | zipCode, city, cityPrefix, citySuffix, streetName, streetAddress, streetSuffix, streetPrefix, secondaryAddress, county, country, countryCode, state, stateAbbr, latitude, longitude |
| phone | phoneNumber, phoneNumberFormat, phoneFormats |
| commerce | color, department, productName, price, productAdjective, productMaterial, product |
| company | suffixes, companyName, companySuffix, catchPhrase, bs, catchPhraseAdjective, catchPhraseDescriptor, catchPhraseNoun, bsAdjective, bsBuzz, bsNoun |
| finance | account, accountName, mask, amount, transactionType, currencyCode, currencyName, currencySymbol, bitcoinAddress, iban, bic |
| date | past, future, between, recent, month, weekday |
| hacker | abbreviation, adjective, noun, verb, ingverb, phrase |
| image | image, avatar, imageUrl, abstract, animals, business, cats, city, food, nightlife, fashion, people, nature, sports, technics, transport, dataUri |
| internet | avatar, email, exampleEmail, userName, protocol, url, domainName, domainSuffix, domainWord, ip, ipv6, userAgent, color, mac, password |
| database | column, type, collation, engine |
| git | branch, commitEntry, commitMessage, commitSha, shortSha |
| system | fileName, commonFileName, mimeType, commonFileType, commonFileExt, fileType, fileExt, directoryPath, filePath, semver |
`;

const NAMES = SEED_TABLE.trim()
  .split('\n')
  .flatMap((row) => {
    const [, ns, attrs] = row.split('|').map((c) => c.trim());
    return attrs!.split(',').map((a) => `${ns}.${a.trim()}`);
  });

/** What some attributes must look like; every other one must render non-empty text. */
const SHAPES: Record<string, RegExp> = {
  'random.number': /^\d+$/,
  'random.uuid': /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  'random.boolean': /^(true|false)$/,
  'random.image': /^https:\/\/loremflickr\.com\/640\/480\/[a-z]+$/,
  'random.alphaNumeric': /^[a-z0-9]+$/i,
  'lorem.slug': /^[a-z]+(-[a-z]+)*$/,
  'address.zipCode': /\d/,
  'address.latitude': /^-?\d+(\.\d+)?$/,
  'address.longitude': /^-?\d+(\.\d+)?$/,
  'address.countryCode': /^[A-Z]{2}$/,
  'phone.phoneNumber': /\d{3}/,
  'commerce.price': /^\d+(\.\d+)?$/,
  'finance.account': /^\d+$/,
  'finance.amount': /^\d+(\.\d+)?$/,
  'finance.currencyCode': /^[A-Z]{3}$/,
  'finance.iban': /^[A-Z]{2}\d{2}[A-Z0-9]+$/,
  'date.past': /^\d{4}-\d{2}-\d{2}T/,
  'date.future': /^\d{4}-\d{2}-\d{2}T/,
  'date.between': /^\d{4}-\d{2}-\d{2}T/,
  'date.recent': /^\d{4}-\d{2}-\d{2}T/,
  'image.imageUrl': /^https:\/\/loremflickr\.com\/640\/480\/[a-z]+$/,
  'image.cats': /^https:\/\/loremflickr\.com\/640\/480\/cats$/,
  'image.dataUri': /^data:image\//,
  'internet.email': /^[^@\s]+@[^@\s]+\.[a-z]+$/i,
  'internet.exampleEmail': /^[^@\s]+@example\.(com|net|org)$/,
  'internet.url': /^https?:\/\//,
  'internet.ip': /^\d{1,3}(\.\d{1,3}){3}$/,
  'internet.ipv6': /^[0-9a-f:]+$/,
  'internet.mac': /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/,
  'git.commitSha': /^[0-9a-f]{40}$/,
  'git.shortSha': /^[0-9a-f]{7}$/,
  'system.semver': /^\d+\.\d+\.\d+$/,
  'system.mimeType': /^[a-z]+\/[\w.+-]+$/,
};

before(loadFakeData);

test('the seed table has its 15 namespaces and 138 attributes', () => {
  assert.equal(new Set(NAMES.map((n) => n.split('.')[0])).size, 15);
  assert.equal(NAMES.length, 138);
});

for (const name of NAMES) {
  test(`{{faker '${name}'}} renders a plausible value`, () => {
    const r = compileTemplate(`{{{faker '${name}'}}}`).render({
      method: 'GET',
      path: '/',
      pathname: '/',
      headers: {},
      query: {},
      body: undefined,
      pathParams: {},
      locale: 'en',
      now: Date.now(),
    });
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.problems, [], `${name}: ${r.problems.join('; ')}`);
    assert.notEqual(r.text.trim(), '', `${name} rendered empty`);
    const shape = SHAPES[name];
    if (shape) assert.match(r.text, shape, `${name} gave ${r.text}`);
  });
}
