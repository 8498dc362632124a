// A named import of one field: bundlers keep that field only, not the whole package.json.
import { version } from '../../package.json';

/** This package's version, as published. @example `psp-sdk/${VERSION}` */
export const VERSION: string = version;
