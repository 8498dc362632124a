/**
 * Terminal output for the demo: numbered steps, aligned facts, and a spinner while it waits. Colour and animation
 * only on a TTY, and never when NO_COLOR is set (https://no-color.org) or TERM is dumb, so piped output and CI logs
 * stay plain text.
 */

import { formatMoney } from '../../src/reference/http/pay-page-format.js';

type Paint = (s: string) => string;

export interface UiOptions {
  /** Where output goes; default process.stdout. */
  out?: NodeJS.WriteStream;
  /** Forces colour on or off; default: the rule above. */
  color?: boolean;
}

export interface Spinner {
  /** Replaces the spinner's text (e.g. a counter while waiting). */
  update(text: string): void;
  succeed(text: string): void;
  fail(text: string): void;
}

interface SpinState {
  text: string;
  frame: number;
  started: number;
  timer?: ReturnType<typeof setInterval>;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function wantsColor(out: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return Boolean(out.isTTY) && env.TERM !== 'dumb';
}

export class Ui {
  readonly color: boolean;
  readonly #out: NodeJS.WriteStream;
  readonly #animate: boolean;
  #step = 0;
  #spinning: SpinState | undefined;

  constructor(options: UiOptions = {}) {
    this.#out = options.out ?? process.stdout;
    this.color = options.color ?? wantsColor(this.#out);
    this.#animate = this.color && Boolean(this.#out.isTTY);
  }

  #paint(code: number): Paint {
    return (s) => (this.color ? `\x1b[${code}m${s}\x1b[0m` : s);
  }
  readonly bold: Paint = (s) => this.#paint(1)(s);
  readonly dim: Paint = (s) => this.#paint(2)(s);
  readonly green: Paint = (s) => this.#paint(32)(s);
  readonly red: Paint = (s) => this.#paint(31)(s);
  readonly yellow: Paint = (s) => this.#paint(33)(s);
  readonly cyan: Paint = (s) => this.#paint(36)(s);
  readonly magenta: Paint = (s) => this.#paint(35)(s);

  /** Prints a line, keeping an active spinner on the line below it. */
  line(text = ''): void {
    this.#clearSpinner();
    this.#out.write(`${text}\n`);
    this.#drawSpinner();
  }

  title(text: string): void {
    this.line(this.bold(text));
  }

  /** A numbered step heading. */
  step(text: string): void {
    this.#step += 1;
    this.line();
    this.line(`${this.bold(this.cyan(`${this.#step}.`))} ${this.bold(text)}`);
  }

  /** An indented `label  value` fact under the current step. */
  fact(label: string, value: string): void {
    this.line(`   ${this.dim(label.padEnd(14))} ${value}`);
  }

  ok(text: string): void {
    this.line(`   ${this.green('✔')} ${text}`);
  }

  note(text: string): void {
    this.line(`   ${this.dim(text)}`);
  }

  warn(text: string): void {
    this.line(`   ${this.yellow('!')} ${text}`);
  }

  error(text: string): void {
    this.line(`   ${this.red('✖')} ${text}`);
  }

  /**
   * Starts a spinner. On a TTY it animates in place; elsewhere it prints one progress line now and the outcome
   * line when it ends, so logs show what was waited for and how it ended.
   */
  spin(text: string): Spinner {
    this.#stopSpinner();
    const state: SpinState = { text, frame: 0, started: Date.now() };
    this.#spinning = state;
    if (this.#animate) {
      state.timer = setInterval(() => {
        state.frame = (state.frame + 1) % FRAMES.length;
        this.#clearSpinner();
        this.#drawSpinner();
      }, 80);
      state.timer.unref();
      this.#drawSpinner();
    } else {
      this.#out.write(`   … ${text}\n`);
    }
    const end = (mark: string, out: string) => {
      if (this.#spinning !== state) return;
      this.#stopSpinner();
      this.line(`   ${mark} ${out}`);
    };
    return {
      update: (t) => {
        state.text = t;
      },
      succeed: (t) => end(this.green('✔'), t),
      fail: (t) => end(this.red('✖'), t),
    };
  }

  /** Stops any spinner without a result line (used on shutdown). */
  close(): void {
    this.#stopSpinner();
  }

  #stopSpinner(): void {
    const s = this.#spinning;
    if (!s) return;
    if (s.timer) clearInterval(s.timer);
    this.#clearSpinner();
    this.#spinning = undefined;
  }

  #drawSpinner(): void {
    const s = this.#spinning;
    if (!s || !this.#animate) return;
    // The elapsed seconds show that a long wait (a payout settling, a person paying) is still alive.
    const secs = Math.floor((Date.now() - s.started) / 1000);
    this.#out.write(
      `   ${this.cyan(FRAMES[s.frame] ?? '')} ${s.text}${secs > 0 ? this.dim(` ${secs}s`) : ''}`,
    );
  }

  #clearSpinner(): void {
    if (this.#spinning && this.#animate) this.#out.write('\r\x1b[2K');
  }
}

/**
 * An amount in minor units as the buyer's page shows it in English (`₽1,500.00`): the page's own formatter, so
 * the demo and the page never disagree. The demo speaks English; the page's Russian is `1 500,00 ₽`.
 */
export function money(minor: number, currency = 'RUB'): string {
  return formatMoney(minor, currency, 'en');
}

/** `1.23 s` or `412 ms`. */
export function duration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}
