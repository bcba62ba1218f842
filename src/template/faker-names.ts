/**
 * The seed's faker attributes (old faker names, `name.findName`) mapped onto the current
 * @faker-js/faker. Each entry receives the faker of the endpoint's locale, the helper's arguments and
 * the render's image host. Current faker methods (`person.firstName`) need no entry: the faker helper
 * finds them on the faker instance itself.
 */
import type { Faker } from '@faker-js/faker';
import { toText } from './state.js';

export type FakerCall = (f: Faker, args: unknown[], imageHost: string) => unknown;

const n = (v: unknown, fallback?: number): number | undefined => {
  const x = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(x) ? x : fallback;
};

/** An options object from a JSON-ish argument (`{min:5, max:9}`), or undefined. */
const opts = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** A random element of a locale's raw definition list (names the current faker no longer has). */
function fromDefinitions(f: Faker, section: string, key: string, fallback: () => string): string {
  const defs = (f.rawDefinitions as unknown as Record<string, Record<string, unknown> | undefined>)[section];
  const list = defs?.[key];
  return Array.isArray(list) && list.length > 0 ? String(f.helpers.arrayElement(list)) : fallback();
}

export const IMAGE_CATEGORIES = [
  'abstract',
  'animals',
  'business',
  'cats',
  'city',
  'food',
  'nightlife',
  'fashion',
  'people',
  'nature',
  'sports',
  'technics',
  'transport',
] as const;

const image = (host: string, category: string): string => `${host}/640/480/${category}`;
const anyImage: FakerCall = (f, _a, host) => image(host, f.helpers.arrayElement(IMAGE_CATEGORIES));
const count = (a: unknown[]): number | undefined => n(a[0]);

const GENDER = (v: unknown): 'female' | 'male' | undefined =>
  v === 'female' || v === 'male'
    ? v
    : v === 1 || v === '1'
      ? 'female'
      : v === 0 || v === '0'
        ? 'male'
        : undefined;

export const SEED_NAMES: Readonly<Record<string, FakerCall>> = {
  'random.number': (f, a) =>
    opts(a[0]) ? f.number.int(opts(a[0])) : f.number.int({ max: n(a[0], 99999) ?? 99999 }),
  'random.uuid': (f) => f.string.uuid(),
  'random.boolean': (f) => f.datatype.boolean(),
  'random.word': (f) => f.lorem.word(),
  'random.words': (f, a) => f.lorem.words(count(a) ?? 3),
  'random.image': anyImage,
  'random.locale': (f) => f.rawDefinitions.metadata?.code ?? 'en',
  'random.alphaNumeric': (f, a) => f.string.alphanumeric(count(a) ?? 1),

  'lorem.word': (f) => f.lorem.word(),
  'lorem.words': (f, a) => f.lorem.words(count(a) ?? 3),
  'lorem.sentence': (f, a) => f.lorem.sentence(count(a)),
  'lorem.slug': (f, a) => f.lorem.slug(count(a) ?? 3),
  'lorem.sentences': (f, a) => f.lorem.sentences(count(a)),
  'lorem.paragraph': (f, a) => f.lorem.paragraph(count(a)),
  'lorem.paragraphs': (f, a) => f.lorem.paragraphs(count(a)),
  'lorem.text': (f) => f.lorem.text(),
  'lorem.lines': (f, a) => f.lorem.lines(count(a)),

  'name.firstName': (f, a) => f.person.firstName(GENDER(a[0])),
  'name.lastName': (f, a) => f.person.lastName(GENDER(a[0])),
  'name.findName': (f, a) => f.person.fullName({ sex: GENDER(a[0]) }),
  'name.jobTitle': (f) => f.person.jobTitle(),
  'name.prefix': (f, a) => f.person.prefix(GENDER(a[0])),
  'name.suffix': (f) => f.person.suffix(),
  'name.title': (f) => f.person.jobTitle(),
  'name.jobDescriptor': (f) => f.person.jobDescriptor(),
  'name.jobArea': (f) => f.person.jobArea(),
  'name.jobType': (f) => f.person.jobType(),

  'address.zipCode': (f, a) => (typeof a[0] === 'string' ? f.location.zipCode(a[0]) : f.location.zipCode()),
  'address.city': (f) => f.location.city(),
  'address.cityPrefix': (f) => fromDefinitions(f, 'location', 'city_prefix', () => f.location.direction()),
  'address.citySuffix': (f) => fromDefinitions(f, 'location', 'city_suffix', () => 'ville'),
  'address.streetName': (f) => f.location.street(),
  'address.streetAddress': (f, a) => f.location.streetAddress(a[0] === true || a[0] === 'true'),
  'address.streetSuffix': (f) => fromDefinitions(f, 'location', 'street_suffix', () => 'Street'),
  'address.streetPrefix': (f) =>
    fromDefinitions(f, 'location', 'street_prefix', () => f.location.direction()),
  'address.secondaryAddress': (f) => f.location.secondaryAddress(),
  'address.county': (f) => f.location.county(),
  'address.country': (f) => f.location.country(),
  'address.countryCode': (f) => f.location.countryCode(),
  'address.state': (f) => f.location.state(),
  'address.stateAbbr': (f) => f.location.state({ abbreviated: true }),
  'address.latitude': (f) => f.location.latitude(),
  'address.longitude': (f) => f.location.longitude(),

  'phone.phoneNumber': (f) => f.phone.number(),
  'phone.phoneNumberFormat': (f) => f.phone.number({ style: 'national' }),
  'phone.phoneFormats': (f) => fromDefinitions(f, 'phone_number', 'format', () => '###-###-####'),

  'commerce.color': (f) => f.color.human(),
  'commerce.department': (f) => f.commerce.department(),
  'commerce.productName': (f) => f.commerce.productName(),
  'commerce.price': (f, a) => f.commerce.price({ min: n(a[0], 1), max: n(a[1], 1000), dec: n(a[2], 2) }),
  'commerce.productAdjective': (f) => f.commerce.productAdjective(),
  'commerce.productMaterial': (f) => f.commerce.productMaterial(),
  'commerce.product': (f) => f.commerce.product(),

  'company.suffixes': (f) =>
    (
      (f.rawDefinitions.company?.['legal_entity_type'] as string[] | undefined) ?? ['Inc', 'LLC', 'Group']
    ).join(', '),
  'company.companyName': (f) => f.company.name(),
  'company.companySuffix': (f) => fromDefinitions(f, 'company', 'legal_entity_type', () => 'Inc'),
  'company.catchPhrase': (f) => f.company.catchPhrase(),
  'company.bs': (f) => f.company.buzzPhrase(),
  'company.catchPhraseAdjective': (f) => f.company.catchPhraseAdjective(),
  'company.catchPhraseDescriptor': (f) => f.company.catchPhraseDescriptor(),
  'company.catchPhraseNoun': (f) => f.company.catchPhraseNoun(),
  'company.bsAdjective': (f) => f.company.buzzAdjective(),
  'company.bsBuzz': (f) => f.company.buzzVerb(),
  'company.bsNoun': (f) => f.company.buzzNoun(),

  'finance.account': (f, a) => f.finance.accountNumber(count(a) ?? 8),
  'finance.accountName': (f) => f.finance.accountName(),
  'finance.mask': (f, a) => `...${f.string.numeric(count(a) ?? 4)}`,
  'finance.amount': (f, a) => f.finance.amount({ min: n(a[0], 0), max: n(a[1], 1000), dec: n(a[2], 2) }),
  'finance.transactionType': (f) => f.finance.transactionType(),
  'finance.currencyCode': (f) => f.finance.currencyCode(),
  'finance.currencyName': (f) => f.finance.currencyName(),
  'finance.currencySymbol': (f) => f.finance.currencySymbol(),
  'finance.bitcoinAddress': (f) => f.finance.bitcoinAddress(),
  'finance.iban': (f) => f.finance.iban(),
  'finance.bic': (f) => f.finance.bic(),

  'date.past': (f, a) => f.date.past({ years: n(a[0], 1) }),
  'date.future': (f, a) => f.date.future({ years: n(a[0], 1) }),
  'date.between': (f, a) =>
    f.date.between({ from: toText(a[0] ?? '1970-01-01'), to: toText(a[1] ?? new Date().toISOString()) }),
  'date.recent': (f, a) => f.date.recent({ days: n(a[0], 1) }),
  'date.month': (f) => f.date.month(),
  'date.weekday': (f) => f.date.weekday(),

  'hacker.abbreviation': (f) => f.hacker.abbreviation(),
  'hacker.adjective': (f) => f.hacker.adjective(),
  'hacker.noun': (f) => f.hacker.noun(),
  'hacker.verb': (f) => f.hacker.verb(),
  'hacker.ingverb': (f) => f.hacker.ingverb(),
  'hacker.phrase': (f) => f.hacker.phrase(),

  'image.image': anyImage,
  'image.avatar': (f) => f.image.avatar(),
  'image.imageUrl': (_f, a, host) => image(host, typeof a[2] === 'string' ? a[2] : 'abstract'),
  ...Object.fromEntries(
    IMAGE_CATEGORIES.map((c): [string, FakerCall] => [`image.${c}`, (_f, _a, host) => image(host, c)]),
  ),
  'image.dataUri': (f, a) => f.image.dataUri({ width: n(a[0], 640), height: n(a[1], 480) }),

  'internet.avatar': (f) => f.image.avatar(),
  'internet.email': (f) => f.internet.email(),
  'internet.exampleEmail': (f) => f.internet.exampleEmail(),
  'internet.userName': (f) => f.internet.username(),
  'internet.protocol': (f) => f.internet.protocol(),
  'internet.url': (f) => f.internet.url(),
  'internet.domainName': (f) => f.internet.domainName(),
  'internet.domainSuffix': (f) => f.internet.domainSuffix(),
  'internet.domainWord': (f) => f.internet.domainWord(),
  'internet.ip': (f) => f.internet.ipv4(),
  'internet.ipv6': (f) => f.internet.ipv6(),
  'internet.userAgent': (f) => f.internet.userAgent(),
  'internet.color': (f) => f.color.rgb(),
  'internet.mac': (f) => f.internet.mac(),
  'internet.password': (f, a) => f.internet.password({ length: n(a[0], 15) }),

  'database.column': (f) => f.database.column(),
  'database.type': (f) => f.database.type(),
  'database.collation': (f) => f.database.collation(),
  'database.engine': (f) => f.database.engine(),

  'git.branch': (f) => f.git.branch(),
  'git.commitEntry': (f) => f.git.commitEntry(),
  'git.commitMessage': (f) => f.git.commitMessage(),
  'git.commitSha': (f) => f.git.commitSha(),
  'git.shortSha': (f) => f.git.commitSha({ length: 7 }),

  'system.fileName': (f) => f.system.fileName(),
  'system.commonFileName': (f, a) => f.system.commonFileName(typeof a[0] === 'string' ? a[0] : undefined),
  'system.mimeType': (f) => f.system.mimeType(),
  'system.commonFileType': (f) => f.system.commonFileType(),
  'system.commonFileExt': (f) => f.system.commonFileExt(),
  'system.fileType': (f) => f.system.fileType(),
  'system.fileExt': (f, a) => f.system.fileExt(typeof a[0] === 'string' ? a[0] : undefined),
  'system.directoryPath': (f) => f.system.directoryPath(),
  'system.filePath': (f) => f.system.filePath(),
  'system.semver': (f) => f.system.semver(),
};
