// Issue 44 item 3: every example in a tool's description is accepted. A description shows its example as
// `Example: <the arguments as JSON>` at its end; each one is called as written and must not be refused for its
// arguments (faults_add's example once had `"kind": "status"`, which the reference refuses).
import { describe, expect, it } from 'vitest';
import { type Agent, startInProcess } from './helpers.js';

async function examples(): Promise<Array<[string, Record<string, unknown>]>> {
  const agent = await startInProcess();
  try {
    const { tools } = await agent.client.listTools();
    return tools.flatMap((t) => {
      const at = t.description?.indexOf('Example: ') ?? -1;
      return at < 0 ? [] : [[t.name, JSON.parse(t.description!.slice(at + 'Example: '.length))]];
    });
  } finally {
    await agent.close();
  }
}

const found = await examples();

describe("tools' own examples", () => {
  it('there are some, faults_add and payments_refund among them', () => {
    expect(found.map(([name]) => name)).toEqual(expect.arrayContaining(['faults_add', 'payments_refund']));
  });

  it.each(found)('%s accepts its example', async (name, args) => {
    let agent: Agent | undefined;
    try {
      agent = await startInProcess();
      const answer = await agent.call(name, args);
      // An unknown id may be a 404; what an example must never be is refused for its arguments.
      if (answer.isError) expect(answer.data.error.status, answer.text).not.toBe(400);
      expect(answer.text).not.toMatch(/invalid_input|bad_request/);
    } finally {
      await agent?.close();
    }
  });
});
