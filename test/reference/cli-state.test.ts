import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReference } from '../../src/reference/service.js';
import { readStateFile, StateFileError, writeStateFile } from '../../src/reference/state/file.js';
import { bundled } from '../support/bundles.js';

const root = join(import.meta.dirname, '..', '..');
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'psp-state-'));
  dirs.push(dir);
  return dir;
}

/** Runs the CLI; `facts` is its JSON line (or rejects with its stderr when it exits first). */
function cli(args: string[]) {
  const child = spawn(process.execPath, [bundled('cli'), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const facts = new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
    });
    void exit.then((code) => reject(new Error(`exit ${code}: ${err}`)));
  });
  return { child, facts, exit, stderr: () => err };
}

const T = 60_000;

describe('psp-reference --state <file>', () => {
  it(
    'writes the whole state on SIGTERM (0600) and the next start serves it, with the same facts and admin token',
    async () => {
      const file = join(await tempDir(), 'state.json');
      const first = cli(['--port', '0', '--json', '--clock', 'manual', '--state', file]);
      const facts = await first.facts;
      const headers = { authorization: `Bearer ${facts.api_key}`, 'content-type': 'application/json' };
      const created = await fetch(`${facts.base_url}/api/v1/public/payments`, {
        method: 'POST',
        headers,
        body: '{"amount":1000}',
      });
      const { payment } = (await created.json()) as { payment: { id: string } };
      const admin = { authorization: `Bearer ${facts.admin_token}`, 'content-type': 'application/json' };
      await fetch(`${facts.base_url}/_simulator/clock/advance`, {
        method: 'POST',
        headers: admin,
        body: '{"seconds":60}',
      });
      first.child.kill('SIGTERM');
      expect(await first.exit).toBe(0);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(await readdir(join(file, '..'))).toEqual(['state.json']); // no temp file left behind
      const saved = JSON.parse(await readFile(file, 'utf8'));
      expect(saved.payments.map((p: { id: string }) => p.id)).toEqual([payment.id]);

      const second = cli(['--port', '0', '--json', '--clock', 'manual', '--state', file]);
      const again = await second.facts;
      const { base_url: _a, pay_url: _b, ...same } = facts;
      expect(again).toMatchObject(same);
      const read = await fetch(`${again.base_url}/api/v1/public/payments/${payment.id}`, { headers });
      expect(read.status).toBe(200);
      const clock = await fetch(`${again.base_url}/_simulator/clock`, { headers: admin });
      expect(((await clock.json()) as { now: string }).now).toBe(new Date(saved.clock.now).toISOString());
      second.child.kill('SIGINT');
      expect(await second.exit).toBe(0);
    },
    T,
  );

  it(
    'a file that is not a snapshot stops the start with exit 2 and a message naming the file',
    async () => {
      const file = join(await tempDir(), 'broken.json');
      await writeFile(file, '{"format":"psp-reference-snapshot","version":1,"merch');
      const run = cli(['--port', '0', '--json', '--state', file]);
      await expect(run.facts).rejects.toThrow();
      expect(await run.exit).toBe(2);
      expect(run.stderr()).toContain(file);
      expect(run.stderr()).toContain('not JSON');
    },
    T,
  );

  it(
    'a SIGKILL under a create loop loses nothing written before: the file parses and holds every payment it showed',
    async () => {
      const file = join(await tempDir(), 'state.json');
      const first = cli(['--port', '0', '--json', '--quiet', '--state', file]);
      const facts = await first.facts;
      const headers = { authorization: `Bearer ${facts.api_key}`, 'content-type': 'application/json' };
      const create = async () => {
        const r = await fetch(`${facts.base_url}/api/v1/public/payments`, {
          method: 'POST',
          headers,
          body: '{"amount":1000}',
        });
        expect(r.status).toBe(201);
        return ((await r.json()) as { payment: { id: string } }).payment.id;
      };
      /** The payment ids of the file on disk; every read of it must parse (it is never half written). */
      const onDisk = async (): Promise<Set<string>> => {
        const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
          if (e.code === 'ENOENT') return undefined;
          throw e;
        });
        if (text === undefined) return new Set();
        return new Set((JSON.parse(text) as { payments: { id: string }[] }).payments.map((p) => p.id));
      };
      const early: string[] = [];
      for (let i = 0; i < 20; i++) early.push(await create());
      // No signal was sent: the writes after changes alone must bring them to disk (bounded by the test timeout).
      for (let ids = await onDisk(); !early.every((id) => ids.has(id)); ids = await onDisk())
        await new Promise((resolve) => setTimeout(resolve, 25));
      // More changes in flight, then the process dies without a chance to write.
      let stop = false;
      const loop = (async () => {
        while (!stop) await create().catch(() => {});
      })();
      for (let ids = await onDisk(); ids.size < early.length + 10; ids = await onDisk())
        await new Promise((resolve) => setTimeout(resolve, 25));
      first.child.kill('SIGKILL');
      expect(await first.exit).toBe(null);
      stop = true;
      await loop;
      const saved = await onDisk();
      for (const id of early) expect(saved.has(id)).toBe(true);
      expect((await readdir(join(file, '..'))).filter((f) => f !== 'state.json').length).toBeLessThanOrEqual(
        1,
      ); // at most the temp file of a write it was killed in

      const second = cli(['--port', '0', '--json', '--quiet', '--state', file]);
      const again = await second.facts;
      for (const id of early) {
        const read = await fetch(`${again.base_url}/api/v1/public/payments/${id}`, { headers });
        expect(read.status).toBe(200);
      }
      second.child.kill('SIGTERM');
      expect(await second.exit).toBe(0);
    },
    T,
  );

  it(
    'a file with a bad fault rule stops the start with exit 2 and a message naming the file',
    async () => {
      const file = join(await tempDir(), 'faulty.json');
      const ref = createReference();
      const doc = await ref.control.snapshot();
      await writeFile(file, JSON.stringify({ ...doc, fault_rules: [{ id: 'f1', hits: 0, kind: 'nope' }] }));
      await ref.close();
      const run = cli(['--port', '0', '--json', '--state', file]);
      await expect(run.facts).rejects.toThrow();
      expect(await run.exit).toBe(2);
      expect(run.stderr()).toContain(file);
      expect(run.stderr()).toContain('fault_rules[0]');
    },
    T,
  );
});

describe('the state file', () => {
  it('a failed write leaves the previous file whole and no temp file', async () => {
    const dir = await tempDir();
    const file = join(dir, 'state.json');
    const ref = createReference({ clock: 'manual' });
    await writeStateFile(file, await ref.control.snapshot());
    const before = await readFile(file, 'utf8');
    const unwritable = { ...(await ref.control.snapshot()), payments: [{ amount: 1n }] } as never;
    await expect(writeStateFile(file, unwritable)).rejects.toThrow(/BigInt/);
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(await readdir(dir)).toEqual(['state.json']);
    await ref.close();
  });

  it('reads nothing when there is no file, and refuses a snapshot that does not check, naming the file', async () => {
    const dir = await tempDir();
    expect(await readStateFile(join(dir, 'none.json'))).toBeUndefined();
    const file = join(dir, 'old.json');
    const ref = createReference();
    await writeFile(file, JSON.stringify({ ...(await ref.control.snapshot()), version: 0 }));
    const error = await readStateFile(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toContain('version 0');
    await ref.close();
  });
});
