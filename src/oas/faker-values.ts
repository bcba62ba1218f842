/**
 * Faker values for a string schema: by its `format` (`email`, `uuid`, `date-time` …) and by the name
 * of the field it is for (`email`, `firstName`, `city`, `createdAt` …). generate.ts checks what these
 * give against the schema's bounds and pattern.
 */
import type { Faker } from '@faker-js/faker';

/** A field name reduced for matching: `created_at`, `Created-At` and `createdAt` are `createdat`. */
export function key(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** A value of the `format`, or undefined for a format not known. */
export function byFormat(f: Faker, format: string): string | undefined {
  switch (format) {
    case 'email':
    case 'idn-email':
      return f.internet.email();
    case 'uuid':
      return f.string.uuid();
    case 'date-time':
      return f.date.recent({ days: 30 }).toISOString();
    case 'date':
      return f.date.recent({ days: 30 }).toISOString().slice(0, 10);
    case 'time':
      return f.date.recent().toISOString().slice(11, 19) + 'Z';
    case 'uri':
    case 'url':
    case 'iri':
    case 'uri-reference':
    case 'iri-reference':
      return f.internet.url();
    case 'hostname':
    case 'idn-hostname':
      return f.internet.domainName();
    case 'ipv4':
      return f.internet.ipv4();
    case 'ipv6':
      return f.internet.ipv6();
    case 'byte':
      return Buffer.from(f.lorem.words(3)).toString('base64');
    case 'binary':
      return f.string.alphanumeric(16);
    case 'password':
      return f.internet.password();
    case 'int32':
    case 'int64':
      return String(f.number.int({ min: 1, max: 100_000 }));
    default:
      return undefined;
  }
}

/** A value fitting the field name, or undefined for a name not known. */
export function byName(f: Faker, name: string): string | undefined {
  const n = key(name);
  if (n === '') return undefined;
  if (n.includes('email')) return f.internet.email();
  if (/^(firstname|givenname|forename)$/.test(n)) return f.person.firstName();
  if (/^(lastname|surname|familyname)$/.test(n)) return f.person.lastName();
  if (/^(name|fullname|displayname|author|owner|customername|contactname)$/.test(n))
    return f.person.fullName();
  if (/^(username|login|nickname|handle)$/.test(n)) return f.internet.username();
  if (/(phone|mobile|fax|tel)/.test(n)) return f.phone.number();
  if (/(street|address)/.test(n)) return f.location.streetAddress();
  if (/^city$/.test(n)) return f.location.city();
  if (/^(zip|zipcode|postcode|postalcode)$/.test(n)) return f.location.zipCode();
  if (/^(countrycode)$/.test(n)) return f.location.countryCode();
  if (/^country$/.test(n)) return f.location.country();
  if (/^(state|province|region)$/.test(n)) return f.location.state();
  if (/(company|organization|organisation|employer)/.test(n)) return f.company.name();
  if (/(avatar|image|photo|picture|thumbnail)/.test(n)) return f.image.url();
  if (/(url|uri|website|homepage|link|href)$/.test(n)) return f.internet.url();
  if (/(password|secret)$/.test(n)) return f.internet.password();
  if (/(token|hash|apikey)$/.test(n)) return f.string.alphanumeric(32);
  if (/^(ip|ipaddress)$/.test(n)) return f.internet.ipv4();
  if (/^(uuid|guid|id)$/.test(n) || /id$/.test(n)) return f.string.uuid();
  if (/(date|time|at|timestamp)$/.test(n)) return f.date.recent({ days: 30 }).toISOString();
  if (/(description|summary|bio|comment|message|text|content|body|note)s?$/.test(n))
    return f.lorem.sentence();
  if (/^(title|headline|subject)$/.test(n)) return f.lorem.words(3);
  if (/(colou?r)$/.test(n)) return f.color.human();
  if (/^currency(code)?$/.test(n)) return f.finance.currencyCode();
  if (/^(slug)$/.test(n)) return f.lorem.slug();
  if (/^(language|lang|locale)$/.test(n)) return f.helpers.arrayElement(['en', 'de', 'fr', 'es', 'pt', 'it']);
  return undefined;
}
