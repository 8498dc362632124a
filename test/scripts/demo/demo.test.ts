import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../../scripts/demo/args.js';
import { payAsBuyer } from '../../../scripts/demo/buyer.js';
import { runDemo } from '../../../scripts/demo/run.js';
import { Ui } from '../../../scripts/demo/ui.js';

const root = join(import.meta.dirname, '..', '..', '..');

function capture() {
  const out = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
  let text = '';
  const listeners: Array<(t: string) => void> = [];
  out.on('data', (c: Buffer) => {
    text += c.toString();
    for (const l of listeners) l(text);
  });
  return {
    ui: new Ui({ out, color: false }),
    text: () => text,
    when: (re: RegExp) =>
      new Promise<RegExpExecArray>((resolve) => {
        const check = (t: string) => {
          const m = re.exec(t);
          if (m) resolve(m);
        };
        listeners.push(check);
        check(text);
      }),
  };
}

describe('the npm start demo', () => {
  it('runs the whole flow to its summary: paid, partly refunded, paid out, every webhook verified', async () => {
    const out = capture();
    const summary = await runDemo(parseArgs(['--clock', 'manual']), out.ui);
    expect(summary).toMatchObject({
      paymentStatus: 'succeeded',
      amount: 150_000,
      refunded: 50_000,
      payoutStatus: 'succeeded',
      payoutAmount: 25_000,
      webhooksVerified: 3,
      webhooksRejected: 0,
    });
    // payment.created, processing, succeeded, refund.created, payout.created, payout succeeded
    expect(summary.sseEvents).toBeGreaterThanOrEqual(6);
    const text = out.text();
    for (const step of [
      '1. Start the reference',
      '4. Create a payment',
      '6. Refund part',
      '7. Pay out over SBP',
    ]) {
      expect(text).toContain(step);
    }
    expect(text).toMatch(/payment_url\s+http:\/\/127\.0\.0\.1:\d+\/pay\/[0-9a-f-]{36}/);
    expect(text).toMatch(/webhook payment\.succeeded\s+signature ok evt_/);
    expect(text).toMatch(/Summary\n[\s\S]*webhooks\s+3 verified, 0 rejected/);
    expect(text).not.toContain('\x1b');
    // The API key is shortened and the webhook secret never printed.
    expect(text).not.toMatch(/sk_test_\w{6}_\w{4,}/);
    expect(text).not.toMatch(/whs_\w/);
  });

  it('--interactive waits for a person to pay on the page', async () => {
    const out = capture();
    const running = runDemo(parseArgs(['--interactive', '--timeout', '10', '--clock', 'manual']), out.ui);
    const [, url] = await out.when(/Open (http\S+) and press Pay/);
    await payAsBuyer(url!);
    await expect(running).resolves.toMatchObject({ paymentStatus: 'succeeded', payoutStatus: 'succeeded' });
    expect(out.text()).toContain('the buyer acted: payment.succeeded');
  });

  it('--interactive gives up after --timeout and closes everything', async () => {
    const out = capture();
    await expect(runDemo(parseArgs(['--interactive', '--timeout', '1']), out.ui)).rejects.toThrow(
      'timed out after 1 s waiting for the buyer to pay',
    );
  });

  it('an interrupt (Ctrl-C) ends the wait at once and still closes everything', async () => {
    const out = capture();
    const interrupt = new AbortController();
    const running = runDemo(parseArgs(['--interactive', '--timeout', '60']), out.ui, interrupt.signal);
    const [, url] = await out.when(/Open (http\S+) and press Pay/);
    interrupt.abort();
    await expect(running).rejects.toThrow('interrupted while waiting for the buyer to pay');
    await expect(fetch(url!)).rejects.toThrow(); // the reference is closed
  });

  it('as a process: exits 0 on its own (no handle left open) and prints plain text when piped', {
    timeout: 90_000,
  }, async () => {
    const run = promisify(execFile);
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/demo.ts', '--clock', 'manual'],
      {
        cwd: root,
        // A hang (a handle left open) fails here; the margin is for a loaded CI machine.
        timeout: 60_000,
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
      },
    );
    expect(stdout).toContain('Summary');
    expect(stdout).not.toContain('\x1b');
  });
});
