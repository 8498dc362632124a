/**
 * `npm start`: the end-to-end demo on the embedded reference service. No network, no configuration.
 *
 *   npm start                       plays the buyer by submitting the payment page's Pay form
 *   npm start -- --interactive      prints the payment page URL and waits while you pay in a browser
 *   npm start -- --interactive --host 0.0.0.0 --port 4010
 *                                   the same, with the page reachable from another machine
 *
 * The flow lives in scripts/demo/run.ts; this file parses options, prints errors and sets the exit code.
 */
import { parseArgs, USAGE } from './demo/args.js';
import { runDemo } from './demo/run.js';
import { Ui } from './demo/ui.js';

const ui = new Ui();
// Ctrl-C ends the current wait; the demo then closes the reference, the receiver and the stream before exiting.
const interrupt = new AbortController();
process.once('SIGINT', () => interrupt.abort());
try {
  const args = parseArgs(process.argv.slice(2));
  if (args.help) {
    console.log(USAGE);
  } else {
    await runDemo(args, ui, interrupt.signal);
  }
} catch (err) {
  ui.close();
  console.error(`\n${ui.red('demo failed:')} ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = interrupt.signal.aborted ? 130 : 1;
}
