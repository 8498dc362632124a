import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../scripts/demo/args.js';
import { otherMachineUrls } from '../../../scripts/demo/host.js';
import { formSubmission } from '../../../scripts/demo/buyer.js';
import { Inbox } from '../../../scripts/demo/receiver.js';
import { duration, money, Ui, wantsColor } from '../../../scripts/demo/ui.js';
import { formatMoney } from '../../../src/reference/http/pay-page-format.js';
import { paymentPage } from '../../../src/reference/http/pay-page-html.js';

function capture(isTTY: boolean) {
  const out = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
  (out as { isTTY?: boolean }).isTTY = isTTY;
  let text = '';
  out.on('data', (c: Buffer) => {
    text += c.toString();
  });
  return { out, text: () => text };
}

describe('demo output', () => {
  it('uses colour only on a TTY, never with NO_COLOR or TERM=dumb, and FORCE_COLOR forces it', () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true);
    expect(wantsColor({ isTTY: false }, {})).toBe(false);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColor({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(wantsColor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
  });

  it('prints plain progress lines without escape codes when not a terminal', () => {
    const { out, text } = capture(false);
    const ui = new Ui({ out, color: false });
    ui.step('Create a payment');
    ui.fact('amount', money(150_000));
    const s = ui.spin('waiting for the webhook…');
    s.succeed('received');
    ui.close();
    expect(text()).toBe(
      '\n1. Create a payment\n   amount         ₽1,500.00\n   … waiting for the webhook…\n   ✔ received\n',
    );
    expect(text()).not.toContain('\x1b');
  });

  it('animates the spinner in place on a colour TTY and clears it when done', () => {
    const { out, text } = capture(true);
    const ui = new Ui({ out, color: true });
    const s = ui.spin('waiting');
    s.succeed('done');
    expect(text()).toContain('\r\x1b[2K');
    expect(text()).toContain('\x1b[32m✔\x1b[0m done');
  });

  it('formats money in minor units and durations', () => {
    // The page's formatter, in English: what the buyer's page shows for the same amount.
    expect(money(1)).toBe('₽0.01');
    expect(money(123_456_789, 'USD')).toBe('$1,234,567.89');
    expect(money(-5_000)).toBe('-₽50.00');
    expect(money(150_000)).toBe(formatMoney(150_000, 'RUB', 'en'));
    expect(duration(412.4)).toBe('412 ms');
    expect(duration(1234)).toBe('1.23 s');
  });
});

describe('demo options', () => {
  it('parses flags and refuses unknown ones', () => {
    expect(parseArgs([])).toEqual({
      interactive: false,
      timeoutSeconds: 300,
      port: 0,
      host: '127.0.0.1',
      clock: 'real',
      help: false,
    });
    expect(parseArgs(['--interactive', '--timeout', '30', '--port=4010', '--host', '0.0.0.0'])).toMatchObject(
      {
        interactive: true,
        timeoutSeconds: 30,
        port: 4010,
        host: '0.0.0.0',
      },
    );
    expect(() => parseArgs(['--host'])).toThrow(/--host needs a value/);
    expect(() => parseArgs(['--timeout', '0'])).toThrow(/--timeout must be an integer >= 1/);
    expect(() => parseArgs(['--colour'])).toThrow(/unknown option --colour/);
  });
});

describe('--host: the URLs printed for a person on another machine', () => {
  const nets = {
    lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
    eth0: [
      { address: '192.0.2.7', family: 'IPv4', internal: false },
      { address: '2001:db8::7', family: 'IPv6', internal: false },
    ],
  } as unknown as Parameters<typeof otherMachineUrls>[2];
  const url = 'http://127.0.0.1:4010/pay/abc';

  it('names each outside address the binding covers, and none for loopback', () => {
    expect(otherMachineUrls(url, '0.0.0.0', nets)).toEqual(['http://192.0.2.7:4010/pay/abc']);
    expect(otherMachineUrls(url, '::', nets)).toEqual([
      'http://192.0.2.7:4010/pay/abc',
      'http://[2001:db8::7]:4010/pay/abc',
    ]);
    expect(otherMachineUrls(url, '192.0.2.7', nets)).toEqual(['http://192.0.2.7:4010/pay/abc']);
    expect(otherMachineUrls(url, '127.0.0.1', nets)).toEqual([]);
  });
});

describe("the buyer's form submission", () => {
  const view = {
    id: '6f9619ff-8b86-4d11-b42d-00c04fc964ff',
    amount: 150_000,
    currency: 'RUB',
    order_id: 'A-1',
    description: null,
    status: 'pending',
    return_url: null,
    simulator: 'succeeded',
  };

  it("finds the Pay form on the reference's real page and resolves its action like a browser", () => {
    const pageUrl = `http://127.0.0.1:4010/pay/${view.id}`;
    const form = formSubmission(paymentPage(view), pageUrl);
    expect(form.method).toBe('POST');
    expect(form.action).toBe(`${pageUrl}/pay`);
    expect(formSubmission(paymentPage(view), pageUrl, 'decline').action).toBe(`${pageUrl}/decline`);
  });

  it('sends hidden fields and only the pressed button', () => {
    const html =
      '<form method="post" action="/act"><input type="hidden" name="csrf" value="a&amp;b">' +
      '<button name="do" value="pay" id="pay">Pay</button><button name="do" value="no" id="decline">No</button></form>';
    const form = formSubmission(html, 'http://x.test/pay/1');
    expect(form.action).toBe('http://x.test/act');
    expect(form.body.toString()).toBe('csrf=a%26b&do=pay');
  });

  it('says so when the page has no Pay button (a paid payment)', () => {
    expect(() =>
      formSubmission(paymentPage({ ...view, status: 'succeeded' }), 'http://x.test/pay/1'),
    ).toThrow(/no form with a #pay button/);
  });
});

describe('Inbox', () => {
  it('resolves with an item already there or still to come, and times out otherwise', async () => {
    const inbox = new Inbox<number>();
    inbox.push(1);
    await expect(inbox.waitFor((n) => n === 1, 10, 'one')).resolves.toBe(1);
    const later = inbox.waitFor((n) => n > 1, 1000, 'more');
    inbox.push(5);
    await expect(later).resolves.toBe(5);
    await expect(inbox.waitFor((n) => n > 10, 5, 'big')).rejects.toThrow(
      'timed out after 0.005 s waiting for big',
    );
  });
});
