import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../../../scripts/demo/args.js';
import { runDemo } from '../../../scripts/demo/run.js';
import { Ui } from '../../../scripts/demo/ui.js';
import { chromiumMissing, type LaunchedBrowser, launchChromium } from '../../support/chromium.js';

const missing = chromiumMissing();

// Skipped only where Debian's Chromium is not installed (the reason is printed); .ci/run installs it.
describe.skipIf(missing !== undefined)(
  `npm start -- --interactive with a person paying in Chromium${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let browser: LaunchedBrowser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(() => browser?.close());

    it('waits on the printed URL, and the demo completes once the person presses Pay', async () => {
      const out = new PassThrough() as unknown as NodeJS.WriteStream & PassThrough;
      let text = '';
      let announce: (url: string) => void = () => {};
      const printed = new Promise<string>((resolve) => {
        announce = resolve;
      });
      out.on('data', (c: Buffer) => {
        text += c.toString();
        const m = /Open (http\S+) and press Pay/.exec(text);
        if (m) announce(m[1]!);
      });
      const demo = runDemo(
        parseArgs(['--interactive', '--timeout', '20', '--clock', 'manual']),
        new Ui({ out, color: false }),
      );
      const page = await browser.context.newPage();
      await page.goto(await printed);
      await page.locator('#pay').click();
      await expect(demo).resolves.toMatchObject({ paymentStatus: 'succeeded', payoutStatus: 'succeeded' });
      expect(text).toContain('the buyer acted: payment.succeeded');
    });
  },
);
