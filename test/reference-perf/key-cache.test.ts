import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Accounts } from '../../src/reference/domain/accounts.js';

// Accounts remembers bearer strings that authenticated, so a client's repeated key costs no keyed hash.
describe('the presented-key cache of Accounts', () => {
  it('answers a repeated key from the cache and a revoked one as revoked at once', () => {
    const accounts = new Accounts(() => 1_000);
    const { apiKey, key } = accounts.createMerchant('Shop');
    expect(accounts.authenticate(apiKey)).toEqual({ kind: 'ok', key });
    expect(accounts.authenticate(apiKey)).toEqual({ kind: 'ok', key });
    accounts.revokeApiKey(key.id);
    expect(accounts.authenticate(apiKey)).toEqual({ kind: 'revoked' });
    expect(accounts.authenticate(apiKey)).toEqual({ kind: 'revoked' });
  });

  it('a cached entry never outlives a revocation made behind its back', () => {
    const accounts = new Accounts(() => 1_000);
    const { apiKey, key } = accounts.createMerchant('Shop');
    accounts.authenticate(apiKey);
    key.revokedAt = 5; // not through revokeApiKey: the cache must still not answer ok
    expect(accounts.authenticate(apiKey).kind).toBe('revoked');
  });

  it('never takes in unknown or malformed tokens, and still tells them apart', () => {
    const accounts = new Accounts(() => 1_000);
    const { apiKey } = accounts.createMerchant('Shop');
    const forged = `${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`;
    for (let i = 0; i < 3; i++) {
      expect(accounts.authenticate(forged).kind).toBe('unknown');
      expect(accounts.authenticate('sk_test_nope').kind).toBe('malformed');
    }
    expect(accounts.authenticate(apiKey).kind).toBe('ok');
  });

  it('keeps working past its bound (it starts over) and every key stays valid', () => {
    const accounts = new Accounts(() => 1_000);
    const { terminal } = accounts.createMerchant('Shop');
    const keys = Array.from({ length: 1_100 }, () => accounts.createApiKey(terminal.id, 'test'));
    for (const { apiKey, key } of keys) expect(accounts.authenticate(apiKey)).toEqual({ kind: 'ok', key });
    for (const { apiKey, key } of keys.slice(0, 50))
      expect(accounts.authenticate(apiKey)).toEqual({ kind: 'ok', key });
  });

  it('keeps presented secrets out of JSON.stringify and util.inspect', () => {
    const accounts = new Accounts(() => 1_000);
    const { apiKey } = accounts.createMerchant('Shop');
    accounts.authenticate(apiKey);
    const secret = apiKey.split('_').pop()!;
    expect(JSON.stringify(accounts)).not.toContain(secret);
    expect(inspect(accounts, { depth: 10, showHidden: true })).not.toContain(secret);
  });
});
