// Instructions per request of a server under valgrind's callgrind, against bare node:http (bench/lib/callgrind.mjs
// says how it counts and how far runs differ): for comparing builds by hand. `npm run bench` reports the same figure
// for the current build (bench/suites/instructions.mjs).
//   node bench/profile/instructions.mjs get|create [count=1500] [dist folder ...]
// With no dist folder it measures the build http-load would (bench/results/dist, else dist/). Every variant runs as
// the psp-reference CLI does (overrideGlobalObjects); AB_OPTIONS replaces those ReferenceOptions. BARE=<figure>
// reuses a bare node:http figure instead of measuring it again. WARM_UP: uncounted requests first (default 6,000;
// fewer and the optimising compiler still runs in the counted window, a fifth of it after 1,500 creates).

import { measureInstructions } from '../lib/callgrind.mjs';

const [what = 'create', countArg = '1500', ...dists] = process.argv.slice(2);
const count = Number(countArg);
const warmUp = Number(process.env.WARM_UP ?? 6000);
const options = process.env.AB_OPTIONS ?? '{"overrideGlobalObjects":true}';

const rows = [
  process.env.BARE
    ? { name: 'bare node:http (given)', perRequest: Number(process.env.BARE) }
    : await measureInstructions({
        name: 'bare node:http',
        script: 'baseline.mjs',
        args: ['node-http'],
        what,
        count,
        warmUp,
      }),
];
for (const dist of dists.length ? dists : [undefined]) {
  rows.push(
    await measureInstructions({
      name: dist ?? 'current',
      script: 'reference.mjs',
      args: [options],
      env: dist ? { PSP_BENCH_DIST: dist } : undefined,
      what,
      count,
      warmUp,
    }),
  );
}
for (const r of rows) {
  if (r.failed)
    console.error(`${r.name}: ${r.failed} of ${count} requests got no 2xx (their instructions counted)`);
  const added =
    r === rows[0]
      ? ''
      : `  +${Math.round(r.perRequest - rows[0].perRequest).toLocaleString('en-US')} over node:http`;
  console.log(
    `${what} ${r.name.padEnd(40)} ${Math.round(r.perRequest).toLocaleString('en-US').padStart(10)} instructions/req${added}`,
  );
}
