import { expect, it } from 'vitest';
import { SendQueue } from '../../../src/reference/webhooks/queue.js';

// The dispatcher's send queue on its own: the per-target bound, who gets a freed slot, and close.

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function held(perTarget: number, wanted: (job: string) => boolean = () => true) {
  const running: string[] = [];
  const finish = new Map<string, () => void>();
  const done: string[] = [];
  const run = (job: string) =>
    new Promise<void>((resolve) => {
      running.push(job);
      finish.set(job, resolve);
    });
  const queue = new SendQueue<string>(8, perTarget, run, wanted);
  const push = (...jobs: string[]) => {
    for (const job of jobs) queue.push(job, job[0]!, () => done.push(job));
  };
  return { queue, push, running, finish, done };
}

it('runs at most perTarget jobs per target; the rest park in order and take the slots that end', async () => {
  const { push, running, finish } = held(2);
  push('a1', 'a2', 'a3', 'a4', 'b1');
  await turn();
  expect(running).toEqual(['a1', 'a2', 'b1']); // b is not held up by a's bound
  finish.get('a1')!();
  await turn();
  await turn();
  expect(running).toEqual(['a1', 'a2', 'b1', 'a3']);
  finish.get('a2')!();
  await turn();
  await turn();
  expect(running).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
});

it('a promoted job that is no longer wanted passes its slot on, so nothing parked behind it is stranded', async () => {
  const dropped = new Set<string>();
  const { push, running, finish, done } = held(1, (job) => !dropped.has(job));
  push('a1', 'a2', 'a3');
  await turn();
  dropped.add('a2');
  finish.get('a1')!();
  await turn();
  await turn();
  expect(running).toEqual(['a1', 'a3']);
  expect(done).toEqual(['a1', 'a2']);
});

it('clear() settles every waiting job once, queued and parked; idle() waits for the running ones', async () => {
  const { queue, push, running, finish, done } = held(1);
  push('a1', 'a2', 'a3', 'b1');
  await turn();
  expect(running).toEqual(['a1', 'b1']);
  push('c1');
  queue.clear();
  expect(done.sort()).toEqual(['a2', 'a3', 'c1']);
  let idle = false;
  void queue.idle().then(() => {
    idle = true;
  });
  finish.get('a1')!();
  finish.get('b1')!();
  await turn();
  await turn();
  expect(idle).toBe(true);
  expect(running).toEqual(['a1', 'b1']);
  expect(done.sort()).toEqual(['a1', 'a2', 'a3', 'b1', 'c1']);
});
