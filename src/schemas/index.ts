export * from './common.js';
export * from './events.js';
export * from './inputs.js';
export * from './issues.js';
export * from './limits.js';
export * from './names.js';
export * from './resources.js';
