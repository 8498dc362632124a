// Prism (@stoplight/prism-cli), the mock server a user would pick instead of the reference, mocking the committed
// openapi.json. argv[2] is the document, the rest are `prism mock` flags. This process runs Prism's own CLI entry
// (bin `prism`) with those flags, so it is Prism as `npx prism mock ...` runs it, in one process; being forked with
// an IPC channel, it exits when the parent disconnects, also when the parent was killed (run.mjs kills an overrun
// suite with SIGKILL, which would orphan a plain `spawn`ed prism). Prism cannot listen on port 0, so a free port is
// taken by binding one first. Sends {port} once Prism answers, and answers {cmd:'cpu'} with its CPU time in ms.

import { createRequire } from 'node:module';
import net from 'node:net';

const [document, ...flags] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const bin = require.resolve('@stoplight/prism-cli/dist/index.js');

process.on('disconnect', () => process.exit(0));
process.on('message', (msg) => {
  if (msg?.cmd === 'cpu') {
    const u = process.cpuUsage();
    process.send({ cpuMs: (u.user + u.system) / 1000 });
  }
});
// Prism's handler rejects (an unreadable document, a port taken) without exiting: fail loudly instead.
process.on('unhandledRejection', (e) => {
  console.error(`prism: ${e?.message ?? e}`);
  process.exit(1);
});

const port = await new Promise((resolve, reject) => {
  const probe = net.createServer();
  probe.once('error', reject);
  probe.listen(0, '127.0.0.1', () => {
    const { port: p } = probe.address();
    probe.close(() => resolve(p));
  });
});

// yargs reads process.argv when Prism's entry is loaded.
process.argv = [
  process.execPath,
  bin,
  'mock',
  ...flags,
  '--host',
  '127.0.0.1',
  '--port',
  String(port),
  document,
];
require(bin);

const answers = () =>
  new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
const deadline = Date.now() + 60_000;
while (!(await answers())) {
  if (Date.now() > deadline) {
    console.error(`prism: not listening on 127.0.0.1:${port} after 60 s`);
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 100));
}
process.send({ port });
