// Compiled by test/package/types.test.ts inside the temp consumer (node16, CommonJS side: the .d.cts files).
import sdk = require('psp-sdk');
import webhooks = require('psp-sdk/webhooks');
import reference = require('psp-sdk/reference');
import msw = require('psp-sdk/reference/msw');

export const entries = [sdk, webhooks, reference, msw] as const;
