export { hmacSha256Hex } from './hmac.js';
