// psp-sdk/reference/msw exposes msw's types, and msw's own .d.ts files need the DOM lib: checked with it.
import { createReference } from 'psp-sdk/reference';
import { createReferenceHandlers } from 'psp-sdk/reference/msw';

export const handlers = createReferenceHandlers(createReference(), { baseUrl: 'https://psp.test' });
