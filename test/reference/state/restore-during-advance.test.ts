import { describe, expect, test } from 'vitest';
import { setup } from '../helpers.js';

describe('a restore during a clock advance', () => {
  test('ends the advance: the restored clock and the restored pending payment stand', async () => {
    const { ref, admin, createPayment, clock } = setup();
    const { payment } = await createPayment({ amount: 1000 });
    const snap = await admin('/_simulator/snapshot');
    // A timer 1 s into the advance that is still running when the restore comes (a slow webhook receiver, say).
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    clock.setTimer(1000, () => {
      started = true;
      return gate;
    });
    const advanced = admin('/_simulator/clock/advance', { body: { seconds: 86_400 } });
    const later = admin('/_simulator/clock/advance', { body: { seconds: 3600 } }); // queued behind it
    for (let i = 0; i < 1000 && !started; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(true);

    const restored = await admin('/_simulator/restore', { body: snap.body });
    expect(restored.status, restored.text).toBe(200);
    release();
    const [first, second] = await Promise.all([advanced, later]);
    const at = new Date(snap.body.clock.now).toISOString();
    expect(first.status).toBe(200);
    expect(first.body.now).toBe(at);
    expect(second.body.now).toBe(at);
    expect(clock.now()).toBe(snap.body.clock.now);
    expect((await admin('/_simulator/clock')).body.now).toBe(at);
    expect((await admin('/_simulator/snapshot')).body.payments[0]).toMatchObject({
      id: payment.id,
      status: 'pending',
    });
    // The restored payment's own deadline still works from the restored time.
    await clock.advance(30 * 60_000);
    expect((await admin('/_simulator/snapshot')).body.payments[0].status).toBe('expired');
    await ref.close();
  });
});
