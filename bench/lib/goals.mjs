// Issue 25's table ("a merchant's test suite never waits on the reference"): one row per line of the issue, each
// with the figure of the suite that measures it, the goal and whether it is met. run.mjs prints it at the end of
// `npm run bench`; report.mjs puts the same rows in docs/benchmarks.md. A figure whose suite did not run in this
// run (`node bench/run.mjs <some suites>`) is marked with the time it was measured.

const n0 = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '-');
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');

/** 'met', 'not met', or undefined when there is no figure to judge. */
const judge = (ok) => (ok === undefined ? undefined : ok ? 'met' : 'not met');

/**
 * The rows of issue 25's table from the suites' results `R` (as report.mjs loads them: `R.start` is
 * reference-start's result, `R.lives` reference-lives', and so on; each may carry `measuredAt`).
 *
 * @param {Record<string, any>} R
 * @param {Date} [since] the start of this run: a result measured before it is marked as an earlier run's
 * @returns {Array<{ what: string, figure: string, goal: string, status: string }>} status is `met`, `not met`,
 * `reported` or `not measured`
 */
export function issue25Rows(R, since) {
  const rows = [];
  /** A row; `result` is the suite's result the figure comes from (for its time), `ok` the judgement. */
  const row = (what, result, figure, goal, status) => {
    const earlier =
      since && result?.measuredAt && new Date(result.measuredAt) < since
        ? ` (earlier run, ${result.measuredAt.slice(0, 16).replace('T', ' ')} UTC)`
        : '';
    rows.push({
      what,
      figure: figure === undefined ? '-' : `${figure}${earlier}`,
      goal,
      status: figure === undefined ? 'not measured' : (status ?? 'reported'),
    });
  };

  const start = R.start?.rows?.find((r) => r.firstCallMs !== undefined);
  row(
    "`import('psp-sdk/reference')` + `startReference()` + first call, in-process (reference-start)",
    R.start,
    start &&
      `import ${f1(start.importMs)} + start ${f1(start.startMs)} = ${f1(start.importMs + start.startMs)} ms; first call (payments.create over HTTP) ${f1(start.firstCallMs)} ms, second ${f1(start.secondCallMs)} ms`,
    'import + start <= 40 ms, first call <= 10 ms',
    start && judge(start.importMs + start.startMs <= 40 && start.firstCallMs <= 10),
  );

  for (const [way, what, goal] of [
    ['http', "over HTTP, 10 at a time, merchant's rate limit raised", 1000],
    ['inProcess', 'in-process (`ref.fetch`, no sockets), 10 at a time, rate limit raised', 3000],
  ]) {
    const x = R.lives?.[way];
    row(
      `payment lives per second ${what} (reference-lives)`,
      R.lives,
      x &&
        `${n0(x.livesPerSec)} lives/s (runs ${x.runs.map(n0).join(' and ')}, best reported; ${n0(x.verified)} webhooks verified, ${n0(x.refused)} refused; 429s met: ${n0(x.rateLimited429)})`,
      `>= ${n0(goal)}`,
      x && judge(x.livesPerSec >= goal),
    );
  }

  // http-load takes the difference round by round; a result from before it did is derived from its medians.
  const added = (test) => {
    const rows = R.http?.[test];
    const ref = rows?.find((r) => r.name === 'psp-sdk reference (overrideGlobalObjects)');
    const bare = rows?.find((r) => r.name === 'bare node:http');
    return ref && bare ? (ref.addedCpuUs ?? 1e6 / ref.perCpuSec - 1e6 / bare.perCpuSec) : undefined;
  };
  const getUs = added('get');
  const createUs = added('create');
  row(
    'added CPU per request over bare node:http, µs (req/cpu-s of both, overrideGlobalObjects as the CLI runs; http-load)',
    R.http,
    getUs === undefined || createUs === undefined
      ? undefined
      : `GET ${f1(getUs)} µs, create ${f1(createUs)} µs`,
    'GET <= 40 µs, create <= 60 µs',
    getUs === undefined ? undefined : judge(getUs <= 40 && createUs <= 60),
  );

  const p = R.prism;
  row(
    'against Prism in the same run, req/s ratio reference / Prism (prism)',
    p,
    p?.create
      ? `create ${f1(p.create.ratio)}x, get ${f1(p.get.ratio)}x (per server CPU-s: create ${f1(p.create.cpuRatio)}x, get ${f1(p.get.cpuRatio)}x)`
      : undefined,
    'reported (follows from the line above)',
    'reported',
  );

  const d = R.delivery;
  row(
    'webhook deliveries per second (webhook-delivery)',
    d,
    d?.ok ? `${n0(d.deliveriesPerSec)}/s` : undefined,
    '>= 4,000',
    d?.ok ? judge(d.deliveriesPerSec >= 4000) : undefined,
  );

  rows.push({
    what: '`npm test` wall time on an idle 2-core machine',
    figure:
      'not a bench figure: printed at the end of `npm test` ("npm test steps ... total N s wall, M s CPU")',
    goal: '<= 150 s idle, every test kept',
    status: 'see `npm test`',
  });

  const paired = R.client?.paired;
  const ratio = (x) => (x ? `${f2(x.median)} (IQR ${f2(x.p25)}-${f2(x.p75)})` : '-');
  const otel = paired?.getOtelVsKy
    ? `; OpenTelemetry on: ${ratio(paired.getOtelVsKy)} / ${ratio(paired.createOtelVsKy)}`
    : paired?.getOtel
      ? `; OpenTelemetry on: ${f2(paired.getOtel.median)} / ${f2(paired.createOtel?.median)} of the call without it`
      : '';
  row(
    '`payments.get` / `create` CPU per call vs bare ky, paired by round (client)',
    R.client,
    paired?.getVsKy ? `${ratio(paired.getVsKy)} / ${ratio(paired.createVsKy)}${otel}` : undefined,
    '>= 0.9 / 0.9; with OpenTelemetry on: reported',
    paired?.getVsKy ? judge(paired.getVsKy.median >= 0.9 && paired.createVsKy.median >= 0.9) : undefined,
  );
  return rows;
}

/** The rows as a Markdown table. */
export function goalsMarkdown(rows) {
  return [
    '| what | this run | goal | status |',
    '|---|---|---|---|',
    ...rows.map(
      (r) => `| ${r.what} | ${r.figure} | ${r.goal} | ${r.status === 'not met' ? '**not met**' : r.status} |`,
    ),
  ].join('\n');
}

/** The rows as plain text for the end of `npm run bench`: the line of the table, then figure, goal and status. */
export function goalsText(rows) {
  return [
    "issue 25's table, this run (figure | goal | status):",
    ...rows.flatMap((r) => [
      `  ${r.what.replaceAll('`', '')}`,
      `      ${r.figure.replaceAll('`', '')}  |  ${r.goal}  |  ${r.status.replaceAll('`', '')}`,
    ]),
  ].join('\n');
}
