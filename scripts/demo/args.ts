/** Command-line options of `npm start` (`tsx scripts/demo.ts`). */

export interface DemoArgs {
  /** Wait for a person to pay on the page in a browser instead of playing the buyer. */
  interactive: boolean;
  /** How long to wait for the buyer in interactive mode, seconds. */
  timeoutSeconds: number;
  /** Port for the reference; 0 takes a free one. A fixed port helps when the browser is on another machine. */
  port: number;
  /**
   * Address the reference binds. Default `127.0.0.1`; `0.0.0.0` (or `::`) lets a browser on another machine open
   * the payment page, whose printed URL then names this machine.
   */
  host: string;
  /**
   * The reference's clock. `manual` stands still, and the demo advances it where the test bank takes time (the
   * payout delay) instead of waiting in real time.
   */
  clock: 'real' | 'manual';
  help: boolean;
}

export const USAGE = `Usage: npm start [-- --interactive] [--timeout <seconds>] [--host <address>] [--port <port>] [--clock real|manual]

  --interactive        print the payment page URL and wait while you pay in a browser
  --timeout <seconds>  how long --interactive waits for the payment (default 300)
  --host <address>     address the reference binds (default 127.0.0.1; 0.0.0.0 to pay from another machine)
  --port <port>        port of the embedded reference service (default 0: a free port)
  --clock manual       freeze the service clock and advance it instead of waiting (default real)
  -h, --help           this text

Environment: NO_COLOR=1 turns colour off; output is plain when not a terminal.`;

export function parseArgs(argv: string[]): DemoArgs {
  const args: DemoArgs = {
    interactive: false,
    timeoutSeconds: 300,
    port: 0,
    host: '127.0.0.1',
    clock: 'real',
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = (argv[i] ?? '').split('=', 2) as [string, string | undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    const number = (v: string, min: number) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) throw new Error(`${flag} must be an integer >= ${min}, got ${v}`);
      return n;
    };
    if (flag === '--interactive' || flag === '-i') args.interactive = true;
    else if (flag === '--timeout') args.timeoutSeconds = number(value(), 1);
    else if (flag === '--port') args.port = number(value(), 0);
    else if (flag === '--host') {
      const v = value();
      if (!v.trim()) throw new Error('--host needs an address, e.g. 0.0.0.0');
      args.host = v;
    } else if (flag === '--clock') {
      const v = value();
      if (v !== 'real' && v !== 'manual') throw new Error(`--clock must be real or manual, got ${v}`);
      args.clock = v;
    } else if (flag === '--help' || flag === '-h') args.help = true;
    else throw new Error(`unknown option ${flag}\n\n${USAGE}`);
  }
  return args;
}
