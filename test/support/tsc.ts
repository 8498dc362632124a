import { fileURLToPath } from 'node:url';

/**
 * The type checker the tests run as a command: TypeScript 7, the native compiler (the `typescript-native` alias),
 * which checks the same programs as TypeScript 6 in about a quarter of the CPU. TypeScript 6 stays installed as
 * `typescript` for the tools that load its JavaScript API (tsup's bundling of the declarations, typedoc, the export
 * surface test); npm links either one as `node_modules/.bin/tsc`, so every command names this path instead.
 */
export const tsc = fileURLToPath(new URL('../../node_modules/typescript-native/bin/tsc', import.meta.url));

/** TypeScript 6 (the `typescript` package) as a command: what most apps still check the published types with. */
export const tsc6 = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
