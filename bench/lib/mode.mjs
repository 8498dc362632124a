// How big a suite runs. `npm run bench`: full size. `--quick`: fewer rounds, a smoke test of the harness (about
// 2 minutes). `--smoke` (what `npm test` runs): every suite's setup and one tiny pass of each measure, in seconds,
// so a suite that no longer runs fails a test instead of rotting until the next full bench; its figures mean
// nothing and are not written to results/.

export const SMOKE = process.argv.includes('--smoke');
export const QUICK = !SMOKE && process.argv.includes('--quick');

/** The value for this run's size: `full`, `quick` or `smoke`. */
export const size = (full, quick, smoke) => (SMOKE ? smoke : QUICK ? quick : full);
