// The run for a person (a summary table) and for a CI (JUnit XML).
import type { CheckResult, ContractResult } from './types.js';

const pad = (text: string, width: number) =>
  text.length >= width ? text : text + ' '.repeat(width - text.length);

/** The lines that explain one check that did not pass. */
function detail(c: CheckResult): string[] {
  const lines = [`  ${c.id} (spec ${c.section}): ${c.outcome}: ${c.reason ?? ''}`, `    rule: ${c.quote}`];
  if (c.outcome === 'failed') lines.push(`    sent: ${c.sends}`, `    expected: ${c.expects}`);
  if (c.observed) {
    const o = c.observed;
    lines.push(
      `    got: ${o.request} -> ${o.status ?? 'no answer'}${o.requestId ? ` (request id ${o.requestId})` : ''}`,
    );
    if (o.body) lines.push(`    body: ${o.body}`);
  }
  return lines;
}

/**
 * The run as text: one row per check (id, spec section, outcome), the counts, then each check that failed with
 * the rule, what it sent, what it expected and what came back.
 *
 * @example
 * import { formatContractSummary, runContract } from 'psp-sdk/conformance';
 *
 * console.log(formatContractSummary(await runContract({ baseUrl, apiKey })));
 */
export function formatContractSummary(result: ContractResult): string {
  const width = Math.max(10, ...result.checks.map((c) => c.id.length)) + 2;
  const rows = result.checks.map(
    (c) =>
      `${pad(c.id, width)}${pad(c.section, 6)}${
        result.dryRun
          ? `sends ${c.sends}`
          : `${pad(c.outcome, 15)}${c.outcome === 'passed' ? '' : (c.reason ?? '')}`
      }`,
  );
  const { passed, failed, skipped } = result.counts;
  const needs = result.counts['needs-control'];
  const lines = [
    `${pad('check', width)}${pad('spec', 6)}outcome`,
    ...rows,
    '',
    result.dryRun
      ? `${result.checks.length} checks listed (dry run: nothing sent) against ${result.baseUrl}`
      : `${passed} passed, ${failed} failed, ${skipped} skipped, ${needs} needs-control; ${result.requests} requests in ${(result.durationMs / 1000).toFixed(1)} s against ${result.baseUrl} (${result.target})`,
  ];
  if (result.budgetSpent)
    lines.push(
      'the run was cut short by its budget (--time-limit, --max-requests): the checks past it were skipped, so the run is not a pass',
    );
  const notPassed = result.checks.filter((c) => c.outcome === 'failed');
  if (notPassed.length) lines.push('', 'failures:', ...notPassed.flatMap(detail));
  return `${lines.join('\n')}\n`;
}

/** Control characters (XML 1.0 allows tab, LF and CR only) go: a redacted body may still carry them. */
const stripControls = (text: string) =>
  [...text].filter((ch) => ch >= ' ' || ch === '\t' || ch === '\n' || ch === '\r').join('');

const xml = (text: string) =>
  stripControls(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/**
 * The run as JUnit XML, one `<testsuite>` per group and one `<testcase>` per check: a failed check is a
 * `<failure>` with what came back; a skipped or `needs-control` one is `<skipped>` (never a pass).
 *
 * @example
 * import { writeFileSync } from 'node:fs';
 * import { runContract, toJUnit } from 'psp-sdk/conformance';
 *
 * writeFileSync('contract.xml', toJUnit(await runContract({ baseUrl, apiKey })));
 */
export function toJUnit(result: ContractResult): string {
  const groups = [...new Set(result.checks.map((c) => c.group))];
  const suites = groups.map((g) => {
    const mine = result.checks.filter((c) => c.group === g);
    const failures = mine.filter((c) => c.outcome === 'failed').length;
    const skipped = mine.filter((c) => c.outcome === 'skipped' || c.outcome === 'needs-control').length;
    const time = mine.reduce((t, c) => t + c.durationMs, 0) / 1000;
    const cases = mine.map((c) => {
      const head = `    <testcase classname="contract.${xml(g)}" name="${xml(c.id)} (spec ${xml(c.section)})" time="${(c.durationMs / 1000).toFixed(3)}"`;
      if (c.outcome === 'passed') return `${head}/>`;
      if (c.outcome === 'failed') {
        const body = detail(c).join('\n');
        return `${head}>\n      <failure message="${xml(c.reason ?? 'failed')}">${xml(body)}</failure>\n    </testcase>`;
      }
      return `${head}>\n      <skipped message="${xml(`${c.outcome}: ${c.reason ?? ''}`)}"/>\n    </testcase>`;
    });
    return `  <testsuite name="contract.${xml(g)}" tests="${mine.length}" failures="${failures}" skipped="${skipped}" time="${time.toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  const { failed } = result.counts;
  const skipped = result.counts.skipped + result.counts['needs-control'];
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="psp-sdk contract" tests="${result.checks.length}" failures="${failed}" skipped="${skipped}" time="${(result.durationMs / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}
