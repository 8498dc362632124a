import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import document from '../../openapi.json' with { type: 'json' };
import { inputSchemas } from '../../src/schemas/inputs.js';

// The document's webhook_url (its pattern, as a fuzzer reads it) against the service's rule (the strict schema's
// field, whose isWebhookUrl the cabinet's endpoints and a restored state ask too): on each URL both accept or both
// refuse. Before, the document let `https://` and `HTTP://?` through, which the service refused; then it let `xn--`
// labels through that the service refused (issue 32), and both took IRIs where spec 2.2 says "uri". The rule is
// now the pattern alone: an RFC 3986 URI, ASCII. (Its length, in code points on both sides, is in leaves.test.ts.)

const ajv = new Ajv2020({ strict: false });
ajv.addSchema({ ...document, $id: 'doc' });
const docField = ajv.getSchema('doc#/components/schemas/CreatePaymentInput/properties/webhook_url')!;
const service = inputSchemas(true).CreatePaymentInput;
const verdict = (url: string) => ({
  doc: docField(url) as boolean,
  service: service.safeParse({ amount: 1, webhook_url: url }).success,
});

const ACCEPTED = [
  'https://shop.example/psp',
  'HTTP://SHOP.EXAMPLE',
  'http://localhost:8080/hook?x=1#f',
  'http://127.0.0.1:3000/',
  'http://[::1]:3000/hook',
  'http://[2001:db8::1]/',
  'http://[::ffff:1.2.3.4]/',
  'http://a:/',
  'http://a:00080/',
  'http://a:65535/',
  'https://shop.example./hook',
  'https://a_b.example/',
  'https://xn--80aairftm.xn--p1ai/hook',
  'https://xn--mnchen-3ya.example/',
  'https://shop.example/a@b',
  'https://shop.example/%D0%B7?q=%5B1%5D&r=a:b/c?d#e/f?g',
  "https://shop.example/!$&'()*+,;=~._-",
  'http://1password.example/',
  // A punycode label that does not decode is a name no DNS answers, as any other: taken (its deliveries fail).
  'http://xn--a.example/',
];
const REFUSED = [
  'https://',
  'HTTP://?',
  'http://#x',
  'http://:80/',
  'ftp://shop.example/',
  'shopapp://x',
  'https://user:pass@shop.example/',
  'https://user@shop.example/',
  'https://@shop.example/',
  ' https://shop.example/',
  'https://shop.example/ ',
  'https://shop.example/a b',
  'https://shop.example/\ttab',
  'https://sho\np.example/',
  'http:/shop.example/',
  'http:shop.example',
  'http:\\\\shop.example\\',
  'http://shop.example\\hook',
  'http://shop.example:65536/',
  'http://shop.example:8o/',
  'http://1.2.3.256/',
  'http://010.0.0.1/',
  'http://1.2.3/',
  'http://1234/',
  'http://0x7f.1/',
  'http://a.1/',
  'http://a.0x1f/',
  'http://a..b/',
  'http://[1:::2]/',
  'http://[::1/',
  'http://[v1.x]/',
  'http://sh op.example/',
  'http://shop%2eexample/',
  'http://shop.example:80:80/',
  'http://шоп.example\u0483/',
  // IRIs, not URIs (spec 2.2 "string uri"): the punycode and percent-encoded forms above are taken.
  'https://магазин.рф/hook',
  'https://münchen.example/',
  'https://shop.example/заказ',
  'https://shop.example/?q=заказ',
  'https://shop.example/#заказ',
  // Not URI characters: `%` without two hex digits, `[]` outside a host, `\\`, `|`, `^`, `{}`, `"`, `<>`, a backtick.
  'https://shop.example/%zz',
  'https://shop.example/%4',
  'https://shop.example/?q=[1]',
  'https://shop.example/a\\b',
  'https://shop.example/a|b',
  'https://shop.example/a^b',
  'https://shop.example/{a}',
  'https://shop.example/"a"',
  'https://shop.example/<a>',
  'https://shop.example/`a`',
  'https://shop.example/a#b#c',
];

describe("webhook_url: the document's pattern says what the service takes", () => {
  it.each(ACCEPTED)('both accept %j', (url) => {
    expect(verdict(url)).toEqual({ doc: true, service: true });
  });

  it.each(REFUSED)('both refuse %j', (url) => {
    expect(verdict(url)).toEqual({ doc: false, service: false });
  });

  it('the document describes the rule: a URI, an international host in its xn-- form', () => {
    const { description } = document.components.schemas.CreatePaymentInput.properties.webhook_url as {
      description: string;
    };
    expect(description).toContain('RFC 3986');
    expect(description).toContain('xn--');
  });

  it('agree on sampled URLs: generated web URLs and their mutations', { timeout: 120_000 }, () => {
    const url = fc.webUrl({
      validSchemes: ['http', 'https', 'HTTP', 'ftp'],
      withQueryParameters: true,
      withFragments: true,
      authoritySettings: { withIPv4: true, withIPv6: true, withPort: true, withUserInfo: true },
    });
    // Mutations a fuzzer tries: a character of the URL's alphabet inserted or dropped anywhere.
    const alphabet = fc.constantFrom(...' \t@:/?#[]\\.%-_0123456789aZxй😀'.split(''), '😀');
    const mutated = fc.tuple(url, fc.nat(), alphabet, fc.boolean()).map(([u, at, ch, drop]) => {
      const i = at % (u.length + 1);
      return drop ? u.slice(0, i) + u.slice(i + 1) : u.slice(0, i) + ch + u.slice(i);
    });
    fc.assert(
      fc.property(fc.oneof(url, mutated), (u) => {
        const v = verdict(u);
        expect(v.doc, u).toBe(v.service);
      }),
      { numRuns: 1000, seed: 23 },
    );
  });
});
