// The one way the bundle figures are made: esbuild as size-limit bundles an entry (ESM, minified, for the browser,
// es2022, in memory), and gzip -9 of the result.

import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** Bundles with size-limit's settings; `options` adds the entry and anything else (external, metafile, ...). */
export function bundleLikeSizeLimit(options) {
  return build({
    bundle: true,
    write: false,
    format: 'esm',
    minify: true,
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
    ...options,
  });
}

/** Bytes of `buf` after gzip -9. */
export const gzipSize = (buf) => gzipSync(buf, { level: 9 }).length;
