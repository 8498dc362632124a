// The operation names live here, apart from the transport that runs them, so the middleware, telemetry and
// method layers can name an operation without importing the transport (which imports them).
/** The name of an API operation, as middleware and telemetry see it. */
export type Operation =
  | 'payments.create'
  | 'payments.get'
  | 'payments.cancel'
  | 'payments.refund'
  | 'payouts.create'
  | 'payouts.get'
  | 'banks.list'
  | 'events.stream'
  | 'request';
