/**
 * Launches Debian's Chromium through playwright-core for the browser tests. The flags keep it headless, quiet
 * and offline apart from the pages we open; a fresh user-data-dir per launch means no state leaks between runs.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM_PATH)
    ? undefined
    : `${CHROMIUM_PATH} is missing (apt-get install -y chromium; .ci/run installs it)`;
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface LaunchedBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * @param locale The browser's language (its `Accept-Language` and `navigator.language`). Default `'en-US'`.
 */
export async function launchChromium(locale = 'en-US'): Promise<LaunchedBrowser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'psp-sdk-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1000, height: 760 },
    locale,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
