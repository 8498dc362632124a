// A literal, not an import of package.json: JSON modules need an import attribute that Deno demands and bundlers
// handle unevenly, and a default import would put all of package.json in the bundle. `npm run version` rewrites it
// after `changeset version`, and test/client/version.test.ts fails when the two differ.

/** This package's version, as published. @example `psp-sdk/${VERSION}` */
export const VERSION: string = '0.1.0';
