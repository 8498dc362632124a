// Issue 44 item 3: `npx psp-mcp --http` left running after SIGTERM to npx. psp-mcp stops by itself once the process
// that started it is gone. A shell stands in for npx: it starts psp-mcp in the background and is killed; psp-mcp,
// holding the same stderr pipe, must then exit, which closes the pipe.
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { bundled } from '../support/bundles.js';

it('psp-mcp --http exits once its parent is killed', { timeout: 120_000 }, async () => {
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(bundled('mcp'))} --http 0 & wait`;
  const shell = spawn('sh', ['-c', command], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const closed = new Promise<void>((resolve) => shell.stderr.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    shell.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
      if (err.includes('serving http://127.0.0.1:')) resolve();
    });
    shell.on('exit', () => reject(new Error(`the shell exited before psp-mcp served: ${err}`)));
  });
  shell.kill('SIGKILL'); // npx gone without passing anything on
  await closed; // every holder of the pipe has exited: psp-mcp included
  expect(err).toContain('parent process gone, stopping');
});
