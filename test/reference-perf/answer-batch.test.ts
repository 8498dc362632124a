import type { ServerResponse } from 'node:http';
import { setImmediate as realImmediate } from 'node:timers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeAfterTurn } from '../../src/reference/adapters/answer-batch.js';
import { startReference } from '../../src/reference/index.js';

// The node adapter writes a turn's answers together after the turn's I/O (fewer client wake-ups over loopback).

function fakeOutgoing(log: string[], name: string, failHead = false) {
  return {
    writeHead(status: number, headers: Record<string, string>) {
      if (failHead) throw new TypeError('Invalid character in header content');
      log.push(`${name} head ${status} ${headers['content-type']}`);
    },
    end(body: string) {
      log.push(`${name} end ${body}`);
    },
    destroy(error: Error) {
      log.push(`${name} destroyed: ${error.message}`);
    },
  } as unknown as ServerResponse;
}

const nextTurn = () => new Promise<void>((resolve) => realImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

describe('writeAfterTurn', () => {
  it('writes nothing during the turn, then every answer of it in order', async () => {
    const log: string[] = [];
    writeAfterTurn(fakeOutgoing(log, 'a'), 201, { 'content-type': 'application/json' }, '{"a":1}');
    writeAfterTurn(fakeOutgoing(log, 'b'), 404, { 'content-type': 'application/json' }, '{"b":2}');
    expect(log).toEqual([]);
    await nextTurn();
    expect(log).toEqual([
      'a head 201 application/json',
      'a end {"a":1}',
      'b head 404 application/json',
      'b end {"b":2}',
    ]);
  });

  it('ends only the connection whose head node refuses; the others of the turn are written', async () => {
    const log: string[] = [];
    writeAfterTurn(fakeOutgoing(log, 'bad', true), 200, {}, 'x');
    writeAfterTurn(fakeOutgoing(log, 'good'), 200, { 'content-type': 'text/plain' }, 'y');
    await nextTurn();
    expect(log).toEqual([
      'bad destroyed: Invalid character in header content',
      'good head 200 text/plain',
      'good end y',
    ]);
  });

  it('is not held back by fake timers: a server still answers while a test fakes setImmediate', async () => {
    const ref = await startReference({ port: 0 });
    try {
      vi.useFakeTimers({ toFake: ['setImmediate', 'setTimeout', 'setInterval'] });
      const res = await fetch(`${ref.base_url}/api/v1/public/banks/sbp`, {
        headers: { authorization: `Bearer ${ref.api_key}` },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { items: unknown[] }).items).toHaveLength(30);
    } finally {
      vi.useRealTimers();
      await ref.close();
    }
  });
});
