import { once } from 'node:events';
import { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { vi } from 'vitest';

/** A doc block imported as a module, with what it left running. */
export interface ImportedBlock {
  /** The servers it started (`listen` calls while it loaded). */
  servers: Server[];
  /**
   * Shuts it down the way a deploy does: runs the SIGTERM listeners it added (close its server, then its Redis
   * client), closes any server it left listening, and waits for them to close. Nothing of the block logs or
   * connects afterwards, so the test file can end.
   */
  stop(): Promise<void>;
}

/**
 * Imports a block's file as the app it shows. Its SIGTERM listeners are taken off the process at once (a worker
 * with a SIGTERM listener would no longer end on SIGTERM) and kept for {@link ImportedBlock.stop}.
 */
export async function importBlock(file: string): Promise<ImportedBlock> {
  const before = new Set(process.listeners('SIGTERM'));
  const servers: Server[] = [];
  // listen() binds on a later tick: each server's outcome (bound, or failed) is awaited before stop() looks.
  const bound: Array<Promise<unknown>> = [];
  const listen = Server.prototype.listen;
  const spy = vi.spyOn(Server.prototype, 'listen').mockImplementation(function (this: Server, ...args) {
    servers.push(this);
    bound.push(new Promise((settled) => this.once('listening', settled).once('error', settled)));
    return listen.apply(this, args as Parameters<typeof listen>);
  });
  let shutdown: Array<(signal: NodeJS.Signals) => void> = [];
  const stop = async () => {
    const open = servers.filter((s) => s.listening);
    const closed = open.map((s) => once(s, 'close'));
    for (const l of shutdown.splice(0)) l('SIGTERM');
    for (const s of open) {
      // A connection the test left open would hold close() forever; the app's own deliveries are done by now.
      s.closeAllConnections();
      if (s.listening) s.close();
    }
    await Promise.all(closed);
  };
  let failure: { error: unknown } | undefined;
  try {
    await import(pathToFileURL(file).href);
  } catch (error) {
    failure = { error };
  } finally {
    spy.mockRestore();
    shutdown = process.listeners('SIGTERM').filter((l) => !before.has(l));
    for (const l of shutdown) process.removeListener('SIGTERM', l);
  }
  await Promise.all(bound);
  if (failure) {
    await stop();
    throw failure.error;
  }
  return { servers, stop };
}
