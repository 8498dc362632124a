// The error hierarchy, from one module (engineer D's stream and the public entry import it). Each class names
// itself inside its body (see `named`), so nothing here needs to run.
export * from './api-errors.js';
export * from './base-errors.js';
