// Compiled by test/package/types.test.ts inside the temp consumer, against the published .d.ts files.
import * as sdk from 'psp-sdk';
import * as reference from 'psp-sdk/reference';
import * as msw from 'psp-sdk/reference/msw';
import * as webhooks from 'psp-sdk/webhooks';

export const entries = [sdk, webhooks, reference, msw] as const;
