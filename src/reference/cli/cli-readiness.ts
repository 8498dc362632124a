/**
 * `psp-reference readiness --base-url URL --admin-token T`: the readiness report of a running reference
 * (`GET /_simulator/readiness`), as text, JSON, JUnit or markdown; exit 1 when the score is below `--min`, 2 on a
 * usage mistake or when the reference cannot be asked.
 */
import { authorization } from '../../internal/wire.js';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { redactSecrets } from '../../internal/redact.js';
import type { ReadinessReport } from '../readiness/index.js';
import { readinessJUnit, readinessMarkdown, readinessText } from '../readiness/format.js';
import { type CliOption, optionsHelp, parserOptions } from './usage.js';

const OPTIONS = {
  'base-url': { type: 'string', value: '<url>', help: 'the running reference (PSP_BASE_URL)' },
  'admin-token': { type: 'string', value: '<token>', help: 'its admin token (PSP_ADMIN_TOKEN)' },
  merchant: {
    type: 'string',
    value: '<merchant id>',
    help: "only this merchant's traffic (default: every merchant)",
  },
  min: { type: 'string', value: '<0..100>', help: 'exit 1 when the score is below this (default 0)' },
  json: { type: 'boolean', default: false, help: 'print the report as JSON' },
  junit: { type: 'string', value: '<file>', help: 'also write it as JUnit XML to this file' },
  markdown: { type: 'boolean', default: false, help: 'print it as markdown (a CI job summary)' },
  help: { type: 'boolean', short: 'h', default: false, help: 'show this help' },
} as const satisfies Record<string, CliOption>;

/** The `psp-reference readiness --help` text. */
export const READINESS_USAGE = `Usage: psp-reference readiness --base-url <url> --admin-token <token> [options]

What a merchant integration met of what production will put to it, and the dangerous patterns its traffic shows
(duplicate charges, side effects repeated on duplicate webhooks, retries before Retry-After, unanswered webhooks),
from what the running reference saw. Run it after your test suite.

Options:
${optionsHelp(OPTIONS)}

Exit status: 0 the score is at least --min; 1 it is below; 2 a bad option, or the reference could not be asked.`;

/** Where the command writes. */
export interface ReadinessIo {
  stdout(text: string): void;
  stderr(text: string): void;
  fetch?: typeof fetch | undefined;
}

/**
 * Runs `psp-reference readiness` (argv after the word). Resolves with the exit code.
 *
 * @example process.exitCode = await readinessCommand(['--base-url', url, '--admin-token', token, '--min', '80'], process.env, io);
 */
export async function readinessCommand(
  argv: string[],
  env: Record<string, string | undefined>,
  io: ReadinessIo,
): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: parserOptions(OPTIONS),
    }));
  } catch (error) {
    return usage(io, redactSecrets((error as Error).message));
  }
  if (values.help) {
    io.stdout(`${READINESS_USAGE}\n`);
    return 0;
  }
  const baseUrl = (values['base-url'] as string | undefined) ?? env.PSP_BASE_URL;
  const token = (values['admin-token'] as string | undefined) ?? env.PSP_ADMIN_TOKEN;
  if (!baseUrl || !/^https?:\/\//i.test(baseUrl)) return usage(io, 'missing --base-url <http(s) url>');
  if (!token) return usage(io, 'missing --admin-token <token>');
  const minText = (values.min as string | undefined) ?? '0';
  const min = /^\d{1,3}(\.\d+)?$/.test(minText) ? Number(minText) : Number.NaN;
  if (!(min >= 0 && min <= 100))
    return usage(io, `--min must be a number from 0 to 100, got '${minText.slice(0, 20)}'`);
  const merchant = values.merchant as string | undefined;
  const url = `${baseUrl.replace(/\/+$/, '')}/_simulator/readiness${merchant ? `?merchant=${encodeURIComponent(merchant)}` : ''}`;
  let report: ReadinessReport;
  try {
    const res = await (io.fetch ?? globalThis.fetch)(url, {
      headers: { authorization: authorization(token) },
      signal: AbortSignal.timeout(30_000),
    });
    if (res.status !== 200)
      throw new Error(`the reference answered ${res.status} to GET /_simulator/readiness`);
    report = (await res.json()) as ReadinessReport;
  } catch (error) {
    io.stderr(`psp-reference readiness: ${redactSecrets((error as Error).message)}\n`);
    return 2;
  }
  if (values.junit) writeFileSync(values.junit as string, readinessJUnit(report));
  io.stdout(
    values.json
      ? `${JSON.stringify(report)}\n`
      : values.markdown
        ? readinessMarkdown(report)
        : readinessText(report),
  );
  if (report.score < min) {
    io.stderr(`psp-reference readiness: score ${report.score} % is below --min ${min}\n`);
    return 1;
  }
  return 0;
}

function usage(io: ReadinessIo, message: string): number {
  io.stderr(`psp-reference readiness: ${message}\n\n${READINESS_USAGE}\n`);
  return 2;
}
