// What the client bundle would weigh without one part: the entry bundled from source as size-limit bundles
// dist/index.js (esbuild, minified, gzip -9), once whole and once per part with that part's function cut out
// (renamed, so tree-shaking drops it and all code only it reaches, dependencies included, and a stub that throws
// in its place) or with dependencies left external. A what-if for the budget, not a build: nothing is written.
//   node bench/profile/bundle-without.mjs                      the parts below
//   node bench/profile/bundle-without.mjs src/client/x.ts:fn  one or more functions of your own choice

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { bundleLikeSizeLimit, gzipSize } from '../lib/bundle.mjs';

const PARTS = [
  ['issue 14: OpenTelemetry recorder', ['src/client/telemetry.ts:telemetry']],
  ['issue 14: waitFor', ['src/resources/wait-for.ts:waitFor']],
  ['issue 14: log levels', ['src/client/log-level.ts:leveledLogger', 'src/client/log-level.ts:logFailure']],
  ['issue 14: middleware chain', ['src/client/middleware.ts:runChain', 'src/client/middleware.ts:bodyBytes']],
  ['event stream (with eventsource-parser)', ['src/client/event-stream.ts:streamEvents']],
  ['issue 13: redaction of encoded secrets', ['src/internal/redact.ts:hidesSecret']],
  ['response schemas (both modes)', ['src/schemas/resources.ts:build']],
  ['input schemas', ['src/schemas/inputs.ts:build']],
  [
    'recorder + event stream + waitFor together',
    [
      'src/client/telemetry.ts:telemetry',
      'src/client/event-stream.ts:streamEvents',
      'src/resources/wait-for.ts:waitFor',
    ],
  ],
  ['ky (external)', [], ['ky']],
  ['zod (external)', [], ['zod', 'zod/*']],
  ['eventsource-parser (external)', [], ['eventsource-parser']],
];

const cutPlugin = (cuts) => ({
  name: 'cut',
  setup(b) {
    const byFile = new Map();
    for (const c of cuts) {
      const [file, fn] = c.split(':');
      const abs = resolve(file);
      byFile.set(abs, [...(byFile.get(abs) ?? []), fn]);
    }
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const fns = byFile.get(args.path);
      if (!fns) return undefined;
      let src = readFileSync(args.path, 'utf8');
      for (const fn of fns) {
        const re = new RegExp(`(export )?(async )?function ${fn}\\b`);
        const m = re.exec(src);
        if (!m) throw new Error(`${args.path}: no function ${fn}`);
        src = src.replace(re, `$2function ${fn}__cut`);
        src += `\n${m[1] ?? ''}function ${fn}(..._: any[]): any { throw new Error('cut'); }\n`;
      }
      return { contents: src, loader: 'ts' };
    });
  },
});

async function size(cuts = [], external = []) {
  const out = await bundleLikeSizeLimit({
    entryPoints: ['src/index.ts'],
    external,
    plugins: [cutPlugin(cuts)],
    outfile: 'bundle.js',
  });
  return gzipSize(out.outputFiles[0].contents);
}

const whole = await size();
console.log(`src/index.ts: ${whole} B gz (${(whole / 1000).toFixed(2)} kB); without each part (B gz saved):`);
const rows = process.argv.length > 2 ? [[process.argv.slice(2).join(' '), process.argv.slice(2)]] : PARTS;
for (const [name, cuts, external] of rows) {
  const s = await size(cuts, external);
  console.log(`  ${name.padEnd(44)} ${String(s).padStart(6)} ${String(whole - s).padStart(6)}`);
}
