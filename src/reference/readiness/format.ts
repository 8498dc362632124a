/**
 * The readiness report as a person or a CI reads it: markdown for a job summary, JUnit for a test report (each item
 * and each finding a test case), and a line per item for a terminal.
 */
import type { ReadinessReport } from './index.js';

const escapeXml = (s: string) =>
  s.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * Markdown that fits a CI job summary (`$GITHUB_STEP_SUMMARY`).
 *
 * @example appendFileSync(process.env.GITHUB_STEP_SUMMARY!, readinessMarkdown(ref.readiness()));
 */
export function readinessMarkdown(report: ReadinessReport): string {
  const met = report.items.filter((i) => i.exercised).length;
  const lines = [
    `## Payment integration readiness: ${report.score} %`,
    '',
    `${met} of ${report.items.length} behaviours exercised; ${report.findings.length} finding(s).`,
    '',
  ];
  if (report.findings.length) {
    lines.push('### Findings', '', '| severity | finding | evidence |', '|---|---|---|');
    for (const f of report.findings) lines.push(`| ${f.severity} | \`${f.id}\` | ${cell(f.evidence)} |`);
    lines.push('');
  }
  lines.push('### Behaviours', '', '| | behaviour | evidence |', '|---|---|---|');
  for (const i of report.items)
    lines.push(`| ${i.exercised ? '✅' : '⬜'} | ${cell(i.title)} | ${cell(i.evidence)} |`);
  return `${lines.join('\n')}\n`;
}

/**
 * JUnit XML: an item not exercised is a skipped test case, a finding a failed one.
 *
 * @example writeFileSync('readiness.xml', readinessJUnit(report));
 */
export function readinessJUnit(report: ReadinessReport): string {
  const cases = [
    ...report.items.map(
      (i) =>
        `    <testcase classname="readiness.behaviours" name="${escapeXml(i.id)}">${
          i.exercised ? '' : `<skipped message="${escapeXml(`not exercised: ${i.evidence}`)}"/>`
        }</testcase>`,
    ),
    ...report.findings.map(
      (f, n) =>
        `    <testcase classname="readiness.findings" name="${escapeXml(`${f.id} ${n + 1}`)}"><failure message="${escapeXml(
          `${f.severity}: ${f.evidence}`,
        )}"/></testcase>`,
    ),
  ];
  const skipped = report.items.filter((i) => !i.exercised).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="psp-sdk readiness" tests="${cases.length}" failures="${report.findings.length}" skipped="${skipped}">\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}

/**
 * The report as text for a terminal: the score, the findings, then each behaviour.
 *
 * @example console.log(readinessText(ref.readiness()));
 */
export function readinessText(report: ReadinessReport): string {
  const lines = [`readiness: ${report.score} % (${report.findings.length} finding(s))`];
  for (const f of report.findings) lines.push(`  ! ${f.severity} ${f.id}: ${f.evidence}`);
  for (const i of report.items)
    lines.push(`  ${i.exercised ? '[x]' : '[ ]'} ${i.title}${i.exercised ? '' : ` (${i.evidence})`}`);
  return `${lines.join('\n')}\n`;
}
