// The tarball's package.json carries no `prepare` script. npm runs `prepare` to build a git dependency (see
// prepack.mjs), so the repository keeps it; but npm lists any `prepare` of a file or tarball dependency among
// the install scripts to review ("1 package install scripts not yet covered by allowScripts"), although it never
// runs it there. So `prepack` takes it out of package.json just before npm reads the files to pack, and `postpack`
// puts it back. Both keep the file's modification time: prepack's freshness check, and a pack running beside this
// one, must not see a newer package.json than the build. The value put back is this constant, not a saved copy, so
// two packs at once (npm test packs beside itself) can only ever leave the file as it was.
import { readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PREPARE = 'node scripts/prepack.mjs --as-dependency';
/** This repository's package.json. */
export const PACKAGE_JSON = fileURLToPath(new URL('../package.json', import.meta.url));

function rewrite(file, change) {
  const { atime, mtime } = statSync(file);
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  const scripts = change(pkg.scripts ?? {});
  if (!scripts) return;
  // Written beside it and renamed over it: a step reading package.json at this moment (publint, attw and the
  // package smoke pack side by side) sees the old file or the new one, never a half-written one. A publint run
  // once failed so, reading the package as if it had no "type": "module".
  const next = `${file}.${process.pid}.tmp`;
  writeFileSync(next, `${JSON.stringify({ ...pkg, scripts }, null, 2)}\n`);
  utimesSync(next, atime, mtime);
  renameSync(next, file);
}

/** Takes `prepare` out of package.json (prepack, just before npm packs). */
export function stripPrepare(file = PACKAGE_JSON) {
  rewrite(file, ({ prepare, ...rest }) => (prepare === undefined ? undefined : rest));
}

/** Puts `prepare` back after `prepack`, where it was (postpack). */
export function restorePrepare(file = PACKAGE_JSON) {
  rewrite(file, (scripts) => {
    if (scripts.prepare !== undefined) return undefined;
    const entries = Object.entries(scripts);
    const at = entries.findIndex(([name]) => name === 'prepack') + 1;
    entries.splice(at, 0, ['prepare', PREPARE]);
    return Object.fromEntries(entries);
  });
}
