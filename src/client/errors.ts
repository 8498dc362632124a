// The error hierarchy: one module to import from (engineer D's stream and the public entry use it).
import {
  AmlBlockedError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ForbiddenPurposeError,
  IdempotentConflictError,
  InternalServerError,
  IpNotAllowedError,
  LiveNotEnabledError,
  NotFoundError,
  NotPendingError,
  PermissionDeniedError,
  PspApiError,
  RateLimitError,
  SignatureError,
  UnprocessableEntityError,
} from './api-errors.js';
import {
  PspAbortError,
  PspConnectionError,
  PspError,
  PspResponseError,
  PspTimeoutError,
  PspValidationError,
} from './base-errors.js';

export * from './api-errors.js';
export * from './base-errors.js';

// Names survive minification: a bundler may rename the classes, but `err.name` and the stack keep the real name.
const NAMED = {
  PspError,
  PspValidationError,
  PspResponseError,
  PspConnectionError,
  PspTimeoutError,
  PspAbortError,
  PspApiError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  UnprocessableEntityError,
  InternalServerError,
  RateLimitError,
  IdempotentConflictError,
  NotPendingError,
  LiveNotEnabledError,
  IpNotAllowedError,
  AmlBlockedError,
  ForbiddenPurposeError,
  SignatureError,
};
for (const [name, cls] of Object.entries(NAMED)) {
  Object.defineProperty(cls.prototype, 'name', {
    value: name,
    enumerable: false,
    configurable: true,
    writable: true,
  });
}
