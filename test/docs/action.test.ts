// Issue 42 item 5: the repository's composite action (action.yml), its shell steps run as a runner runs them: bash
// with GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_TEMP files, the action's folder holding the built bin. With no
// base-url it starts a psp-reference, runs the contract kit against it, writes the JUnit file and the job summary,
// and its `exit-code` output is the kit's verdict. (The `uses:` steps, setup-node and upload-artifact, are GitHub's.)
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NoOperationTraceWriter } from '@actions/workflow-parser';
import { convertActionTemplate, parseAction } from '@actions/workflow-parser/actions/index';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'dist', 'reference', 'bin.js');

/** The `run` script of the action's step named `name`. */
async function script(name: string): Promise<string> {
  const parsed = parseAction(
    { name: 'action.yml', content: readFileSync(join(root, 'action.yml'), 'utf8') },
    new NoOperationTraceWriter(),
  );
  const action = await convertActionTemplate(parsed.context, parsed.value!);
  const steps = (action.runs as { steps: Array<{ name?: unknown; run?: unknown }> }).steps;
  const found = steps.find((s) => String((s.name as { value?: unknown })?.value ?? s.name) === name)?.run;
  // A literal script is a string token (this step's has no ${{ }} expression to evaluate).
  const run = typeof found === 'string' ? found : (found as { value?: unknown } | undefined)?.value;
  expect(typeof run, `the step "${name}"`).toBe('string');
  return run as string;
}

/** `key=value` lines of a GITHUB_OUTPUT file. */
const outputs = (file: string) =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

describe('action.yml, its steps run as a runner runs them', () => {
  // dist comes from npm test's build stage; a bare `vitest run` before any build has no bin to run.
  it.skipIf(!existsSync(bin))(
    'starts a reference, runs the kit against it, writes the report and the summary; exit-code is the verdict',
    { timeout: 180_000 },
    async () => {
      const work = mkdtempSync(join(tmpdir(), 'psp-action-'));
      try {
        // The action's folder, as `uses:` checks it out, with the bin built.
        const actionPath = join(work, 'action');
        mkdirSync(join(actionPath, 'dist', 'reference'), { recursive: true });
        writeFileSync(join(actionPath, 'dist', 'reference', 'bin.js'), `import ${JSON.stringify(bin)};\n`);
        const temp = join(work, 'temp');
        mkdirSync(temp);
        const files = {
          start: join(work, 'out-start'),
          kit: join(work, 'out-kit'),
          summary: join(work, 'summary'),
        };
        for (const f of Object.values(files)) writeFileSync(f, '');
        const env = {
          ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PSP_'))),
          GITHUB_ACTION_PATH: actionPath,
          RUNNER_TEMP: temp,
          GITHUB_STEP_SUMMARY: files.summary,
        };
        const bash = (run: string, more: Record<string, string>) =>
          promisify(execFile)('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', run], {
            cwd: work,
            env: { ...env, ...more },
            timeout: 150_000,
          });
        await bash(await script('Start psp-reference'), { GITHUB_OUTPUT: files.start });
        const started = outputs(files.start);
        try {
          const kit = await bash(await script('Run the contract kit'), {
            GITHUB_OUTPUT: files.kit,
            FACTS: started.facts!,
            INPUT_BASE_URL: '',
            INPUT_API_KEY: '',
            INPUT_SIGNING_SECRET: '',
            INPUT_ADMIN_TOKEN: '',
            INPUT_WEBHOOK_SECRET: '',
            INPUT_WEBHOOK_PUBLIC_URL: '',
            INPUT_WEBHOOK_PORT: '',
            INPUT_ONLY: '',
            INPUT_TIME_LIMIT: '180',
            INPUT_JUNIT: 'contract.xml',
          });
          expect(outputs(files.kit)['exit-code'], kit.stdout).toBe('0');
          expect(kit.stdout).toMatch(/^::add-mask::sk_test_/m);
          const summary = readFileSync(files.summary, 'utf8');
          expect(summary).toMatch(/^### Contract kit against http:\/\/127\.0\.0\.1:\d+$/m);
          expect(summary).toMatch(/\d+ passed, 0 failed/);
          expect(readFileSync(join(work, 'contract.xml'), 'utf8')).toContain(
            '<testsuites name="psp-sdk contract"',
          );
        } finally {
          process.kill(Number(started.pid), 'SIGTERM');
        }
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    },
  );
});
