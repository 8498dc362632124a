export { ManualClock, RealClock } from './domain/clock.js';
