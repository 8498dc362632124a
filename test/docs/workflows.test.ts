import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { convertActionTemplate, parseAction } from '@actions/workflow-parser/actions/index';
import { describe, expect, it } from 'vitest';

/**
 * The forge's workflows (.github/workflows) are checked here, offline: every file against the workflow schema
 * (@actions/workflow-parser, GitHub's own parser of workflow files, the one its language server uses: the YAML, the
 * workflow schema, then the conversion that catches what the schema alone lets through), then what the project
 * promises of them.
 */
const root = join(import.meta.dirname, '..', '..');
const dir = join(root, '.github', 'workflows');

async function problems(source: string): Promise<string[]> {
  const parsed = parseWorkflow({ name: 'workflow.yml', content: source }, new NoOperationTraceWriter());
  if (parsed.value) await convertWorkflowTemplate(parsed.context, parsed.value);
  return parsed.context.errors.getErrors().map((e) => e.message);
}

const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
const read = (name: string) => readFile(join(dir, name), 'utf8');

describe('GitHub workflows', () => {
  it('are there: ci and release', () => {
    expect(files).toEqual(expect.arrayContaining(['ci.yml', 'release.yml']));
  });

  it.each(files)('%s passes the workflow schema', async (file) => {
    expect(await problems(await read(file))).toEqual([]);
  });

  it("the go-live guide's CI job passes the workflow schema, and writes the report to the job summary", async () => {
    const guide = await readFile(join(root, 'docs', 'go-live.md'), 'utf8');
    const job = /```yaml\n([\s\S]*?)```/.exec(guide)?.[1] ?? '';
    expect(await problems(job)).toEqual([]);
    expect(job).toContain('psp-reference readiness --markdown');
    expect(job).toContain('"$GITHUB_STEP_SUMMARY"');
    expect(job).toMatch(/if: \$\{\{ !cancelled\(\) \}\}/);
  });

  // Issue 42 item 5: the repository's composite action, checked by GitHub's own action schema, and the contract
  // guide's CI jobs, as a fresh runner would run them.
  it('action.yml passes the action schema; every input it reads is declared; the validator refuses a broken one', async () => {
    const actionProblems = async (content: string) => {
      const parsed = parseAction({ name: 'action.yml', content }, new NoOperationTraceWriter());
      if (parsed.value) await convertActionTemplate(parsed.context, parsed.value);
      return parsed.context.errors.getErrors().map((e) => e.message);
    };
    const action = await readFile(join(root, 'action.yml'), 'utf8');
    expect(await actionProblems(action)).toEqual([]);
    const declared = [...action.matchAll(/^ {2}([a-z-]+):\n {4}description:/gm)].map((m) => m[1]);
    const used = [...new Set([...action.matchAll(/inputs\.([a-z-]+)/g)].map((m) => m[1]))];
    expect(used.filter((name) => !declared.includes(name))).toEqual([]);
    expect(action).toMatch(
      /node-version:\n {4}description: [^\n]*\n {4}required: false\n {4}default: '2[24]'/,
    );
    expect(action).toContain('"$GITHUB_STEP_SUMMARY"');
    expect(await actionProblems(action.replace('using: composite', 'using: compositee'))).not.toEqual([]);
    expect(await actionProblems(action.replace(/ {6}shell: bash\n/, ''))).not.toEqual([]);
  });

  it("the contract guide's CI jobs pass the workflow schema, on Node 22 or 24, the service step even when the reference's failed", async () => {
    const guide = await readFile(join(root, 'docs', 'contract-testing.md'), 'utf8');
    const jobs = [...guide.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(jobs).toHaveLength(2);
    for (const job of jobs) {
      expect(await problems(job)).toEqual([]);
      expect(job).toMatch(/if: \$\{\{ !cancelled\(\)/);
      expect(job).not.toMatch(/node-version: 20|sleep [1-9]/);
    }
    expect(jobs[0]).toMatch(/uses: [\w-]+\/psp-sdk@/);
    expect(jobs[1]).toMatch(/node-version: 2[24]/);
  });

  it('the validator refuses a broken workflow', async () => {
    const valid =
      'name: x\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n';
    expect(await problems(valid)).toEqual([]);
    // A step that both uses an action and runs a command; a job without runs-on; an unknown trigger; bad YAML.
    const broken = [
      valid.replace('      - run: npm test', '      - uses: actions/checkout@v4\n        run: npm test'),
      valid.replace('    runs-on: ubuntu-latest\n', ''),
      valid.replace('on: push', 'on: pushed'),
      valid.replace('    steps:', '   steps:'),
    ];
    for (const source of broken) expect(await problems(source), source).not.toEqual([]);
  });

  it('ci runs the README’s test command on Node 20, 22 and 24, with chromium and redis-server from apt', async () => {
    const ci = await read('ci.yml');
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const command = /^(npm test)\b/m.exec(readme)?.[1];
    expect(command).toBe('npm test');
    expect(ci).toMatch(/^\s+- run: npm test$/m);
    expect(ci).toMatch(/node: \['24', '22', '20\.19'\]/);
    expect(ci).toMatch(/apt-get install[^\n]*\bchromium\b[^\n]*\bredis-server\b/);
    // Deno and Bun come from npm test's own runtimes step, keyed on their lockfile.
    expect(ci).toContain("hashFiles('test/support/runtimes/package-lock.json')");
  });

  it('release versions with changesets and publishes with npm provenance', async () => {
    const release = await read('release.yml');
    expect(release).toMatch(/^\s+id-token: write\b/m);
    expect(release).toContain('uses: changesets/action@v1');
    expect(release).toContain('version: npm run version');
    expect(release).toMatch(/NPM_CONFIG_PROVENANCE: 'true'/);
    // The bins' names are checked to be ours before the changesets action may publish.
    const check = release.indexOf('run: node scripts/claim-names.mjs --check');
    expect(check).toBeGreaterThan(0);
    expect(check).toBeLessThan(release.indexOf('uses: changesets/action@v1'));
  });

  it('release builds the single executable and the image, smoke-tests both, and ships them on a publish', async () => {
    const release = await read('release.yml');
    // Issue 44 item 4: every release target with its checksums, checked before they are attached.
    expect(release).toContain('run: npm run build:binary -- --release');
    expect(release).toContain('sha256sum -c SHA256SUMS');
    expect(release).toMatch(
      /gh release upload "v\$version" build\/psp-reference-linux-x64 build\/psp-reference-linux-arm64 \\\n\s+build\/psp-reference-darwin-arm64 build\/SHA256SUMS/,
    );
    expect(release).toMatch(/env -i [^\n]*build\/psp-reference-linux-x64 --version/);
    expect(release).toContain('docker build -t psp-reference:ci .');
    expect(release.match(/node scripts\/smoke-reference\.mjs/g)).toHaveLength(2);
    expect(release).toContain('docker stop psp-reference');
    expect(release).toMatch(/if: needs\.release\.outputs\.published == 'true'/);
    expect(release).toContain('gh release upload');
  });
});

describe('Dockerfile', () => {
  it('runs the single executable on a slim base as non-root, on the exposed port, with a HEALTHCHECK', async () => {
    const docker = await readFile(join(root, 'Dockerfile'), 'utf8');
    const lines = docker.split('\n').filter((l) => l && !l.startsWith('#'));
    const from = lines.filter((l) => l.startsWith('FROM '));
    expect(from).toEqual(['FROM debian:bookworm-slim']);
    // The executable of the image's platform (issue 44 item 4): amd64 takes linux-x64, arm64 linux-arm64.
    expect(docker).toMatch(/^ARG TARGETARCH=amd64$/m);
    expect(docker).toMatch(/amd64\) arch=x64 ;; arm64\) arch=arm64/);
    expect(docker).toMatch(
      /install -m 0755 "\/tmp\/build\/psp-reference-linux-\$arch" \/usr\/local\/bin\/psp-reference/,
    );
    const user = /^USER (\S+)$/m.exec(docker)?.[1];
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(docker).toMatch(/^EXPOSE 4010$/m);
    expect(docker).toMatch(
      /^ENTRYPOINT \["\/usr\/local\/bin\/psp-reference", "--host", "0\.0\.0\.0", "--port", "4010"\]$/m,
    );
    expect(docker).toMatch(/^HEALTHCHECK .*\\\n\s+CMD \[.*\/dev\/tcp\/127\.0\.0\.1\/4010.*\/openapi\.json/m);
    // Only the executable goes into the build context (node_modules would be gigabytes).
    const ignore = await readFile(join(root, '.dockerignore'), 'utf8');
    expect(ignore.split('\n').filter(Boolean)).toEqual([
      '*',
      '!build/psp-reference-linux-x64',
      '!build/psp-reference-linux-arm64',
    ]);
  });
});
