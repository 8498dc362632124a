// The operation names live here, apart from the transport that runs them, so the middleware, telemetry and
// method layers can name an operation without importing the transport (which imports them).
import type { OperationName } from '../schemas/operations.js';

/**
 * The name of an API operation, as middleware and telemetry see it: a row of the table of operations
 * (src/schemas/operations.ts), or `'request'` for `client.request()`.
 */
export type Operation = OperationName | 'request';
