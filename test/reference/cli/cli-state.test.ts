import { type ChildProcess, spawn } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createReference } from '../../../src/reference/service.js';
import { readStateFile, StateFileError, writeStateFile } from '../../../src/reference/state/file.js';
import { bundled } from '../../support/bundles.js';

const root = join(import.meta.dirname, '..', '..', '..');
// The tests that start the CLI run side by side (each spends most of its time waiting for a child to start or
// stop): what they leave, a child of a failed test included, goes when the file ends.
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  const running = children.splice(0).filter((c) => c.exitCode === null && c.signalCode === null);
  await Promise.all(
    running.map((child) => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      return exited;
    }),
  );
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

describe.concurrent('psp-reference --state <file>', () => {
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

/** Waits (bounded by the test's timeout) until `ok()` holds; for what a child process does in its own time. */
async function until(ok: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await ok())) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** `GET /_simulator/health` of a running CLI, with its admin token. */
async function health(facts: Record<string, string>) {
  const res = await fetch(`${facts.base_url}/_simulator/health`, {
    headers: { authorization: `Bearer ${facts.admin_token}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    status: string;
    state: {
      file: string;
      saved: boolean;
      last_saved_at: string | null;
      last_error: { at: string; message: string } | null;
    } | null;
  };
}

async function createPayment(facts: Record<string, string>): Promise<number> {
  const res = await fetch(`${facts.base_url}/api/v1/public/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${facts.api_key}`, 'content-type': 'application/json' },
    body: '{"amount":1000}',
  });
  await res.body?.cancel();
  return res.status;
}

// Issue 32, F8.
describe.concurrent('psp-reference --state: one reference per file, failed saves told, symlinks written through', () => {
  it(
    'a second reference on the same file (here through a symlink) exits 2 naming the first; the first keeps the file',
    async () => {
      const dir = await tempDir();
      const file = join(dir, 'state.json');
      const first = cli(['--port', '0', '--json', '--quiet', '--state', file]);
      const facts = await first.facts;
      expect(await createPayment(facts)).toBe(201);
      await symlink(file, join(dir, 'link.json')).catch(() => {});
      for (const path of [file, join(dir, 'link.json')]) {
        const second = cli(['--port', '0', '--json', '--quiet', '--state', path]);
        await expect(second.facts).rejects.toThrow();
        expect(await second.exit).toBe(2);
        expect(second.stderr()).toContain(`in use by another psp-reference (process ${first.child.pid})`);
      }
      first.child.kill('SIGTERM');
      expect(await first.exit).toBe(0);
      expect(JSON.parse(await readFile(file, 'utf8')).payments).toHaveLength(1);
      expect((await readdir(dir)).sort()).toEqual(['link.json', 'state.json']); // the lock is gone at a clean stop
      // Free again.
      const third = cli(['--port', '0', '--json', '--quiet', '--state', file]);
      await third.facts;
      third.child.kill('SIGTERM');
      expect(await third.exit).toBe(0);
    },
    T,
  );

  it(
    'a lock left by a killed reference is taken over at the next start',
    async () => {
      const file = join(await tempDir(), 'state.json');
      const first = cli(['--port', '0', '--json', '--quiet', '--state', file]);
      await first.facts;
      first.child.kill('SIGKILL');
      await first.exit;
      expect(JSON.parse(await readFile(`${file}.lock`, 'utf8')).pid).toBe(first.child.pid);
      const second = cli(['--port', '0', '--json', '--quiet', '--state', file]);
      await second.facts;
      expect(JSON.parse(await readFile(`${file}.lock`, 'utf8')).pid).toBe(second.child.pid);
      second.child.kill('SIGTERM');
      expect(await second.exit).toBe(0);
    },
    T,
  );

  it(
    'a symlink at the path is written through (it stays a link), and health names the real file',
    async () => {
      const dir = await tempDir();
      await mkdir(join(dir, 'data'));
      const target = join(dir, 'data', 'state.json');
      await symlink(target, join(dir, 'link.json'));
      const run = cli(['--port', '0', '--json', '--quiet', '--state', join(dir, 'link.json')]);
      const facts = await run.facts;
      // Said after the facts line, so awaited.
      await until(() => run.stderr().includes(`the state is saved to ${target} within 0.5 s`));
      expect(await createPayment(facts)).toBe(201);
      run.child.kill('SIGTERM');
      expect(await run.exit).toBe(0);
      expect((await lstat(join(dir, 'link.json'))).isSymbolicLink()).toBe(true);
      expect(JSON.parse(await readFile(target, 'utf8')).payments).toHaveLength(1);

      const again = cli(['--port', '0', '--json', '--quiet', '--state', join(dir, 'link.json')]);
      const facts2 = await again.facts;
      const h = await health(facts2);
      expect(h).toMatchObject({ status: 'ok', state: { file: target, saved: true, last_error: null } });
      // The admin token's route: an API key is refused.
      const withKey = await fetch(`${facts2.base_url}/_simulator/health`, {
        headers: { authorization: `Bearer ${facts2.api_key}` },
      });
      expect(withKey.status).toBe(401);
      again.child.kill('SIGTERM');
      expect(await again.exit).toBe(0);
    },
    T,
  );

  it(
    'a save that fails is told on stderr each time, by health, at the stop (exit 1) and at the next start',
    async () => {
      const dir = await tempDir();
      const file = join(dir, 'state.json');
      const run = cli(['--port', '0', '--json', '--quiet', '--state', file]);
      const facts = await run.facts;
      expect(await createPayment(facts)).toBe(201);
      await until(async () => (await health(facts)).state?.last_saved_at != null);
      const savedAt = (await health(facts)).state!.last_saved_at!;
      // The disk refuses the next writes: a directory stands where the file is renamed to (a full disk, a
      // read-only mount and a lost NFS server fail the same write; this one needs no root and no mount).
      await rm(file);
      await mkdir(file);
      await writeFile(join(file, 'keep'), '');
      for (let i = 1; i <= 2; i++) {
        expect(await createPayment(facts)).toBe(201);
        await until(() => run.stderr().split('cannot write the state').length > i);
      }
      expect(run.stderr()).toContain(`cannot write the state to ${file}`);
      expect(run.stderr()).toContain(`(the file holds the state of ${savedAt}`);
      const h = await health(facts);
      expect(h.state).toMatchObject({ file, saved: false, last_saved_at: savedAt });
      expect(h.state!.last_error!.message).toMatch(/EISDIR|ENOTEMPTY|EEXIST/);
      run.child.kill('SIGTERM');
      expect(await run.exit).toBe(1);
      expect(run.stderr()).toContain('error while stopping');
      expect(JSON.parse(await readFile(`${file}.lock`, 'utf8')).save_failed.at).toBeTruthy();

      await rm(file, { recursive: true });
      const next = cli(['--port', '0', '--json', '--quiet', '--state', file]);
      await next.facts;
      expect(next.stderr()).toMatch(/the last save failed at \d{4}-\d\d-\d\dT[^ ]+ \(/);
      expect(next.stderr()).toContain(`${file} holds the state saved before it`);
      next.child.kill('SIGTERM');
      expect(await next.exit).toBe(0);
      // Told once: a clean stop clears it.
      await expect(stat(`${file}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
    },
    T,
  );
});

describe('GET /_simulator/health in process', () => {
  it('answers ok and state null when the state lives in memory only', async () => {
    const ref = createReference();
    const res = await ref.fetch(
      new Request('http://ref.test/_simulator/health', {
        headers: { authorization: `Bearer ${ref.admin_token}` },
      }),
    );
    expect(await res.json()).toEqual({ status: 'ok', state: null });
    await ref.close();
  });
});
