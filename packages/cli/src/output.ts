import { styleText } from 'node:util';

/** What `notify` writes to: data on stdout, people on stderr (house style, habit 6). */
export interface Streams {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
}

export interface OutputMode {
  /** One JSON document on stdout; nothing else there. */
  json: boolean;
  /** Only the result's id (or nothing) on stdout; only errors on stderr. */
  quiet: boolean;
}

type Style = 'bold' | 'dim' | 'green' | 'red' | 'yellow' | 'cyan';

/** A progress line that updates in place on a terminal: an ora spinner, or nothing at all. */
export interface Progress {
  update(text: string): void;
  stop(): void;
}

const NO_PROGRESS: Progress = { update() {}, stop() {} };

export class Output {
  readonly json: boolean;
  readonly quiet: boolean;
  /** Spinners and in-place progress: a terminal on stderr, not CI, not --json or --quiet. */
  readonly interactive: boolean;
  readonly #streams: Streams;
  readonly #color: { stdout: boolean; stderr: boolean };
  /** With --json, warnings go into the JSON document instead of onto stderr. */
  readonly #warnings: string[] = [];
  /** The spinner on screen: its own text, and a line to show on it for now (a retry, after that text). */
  #spinning: { text: string; show(line: string): void } | undefined;

  constructor(mode: OutputMode, streams: Streams) {
    this.json = mode.json;
    this.quiet = mode.quiet;
    this.#streams = streams;
    const { env } = streams;
    const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
    // A terminal of no width (some CI pseudo-terminals) cannot redraw a line in place.
    this.interactive =
      streams.stderr.isTTY === true &&
      (streams.stderr.columns ?? 0) > 0 &&
      !ci &&
      !mode.json &&
      !mode.quiet &&
      env.TERM !== 'dumb';
    // https://no-color.org: any non-empty NO_COLOR turns colour off; FORCE_COLOR turns it on.
    const colorable = (stream: NodeJS.WriteStream) => {
      if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
      if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
      return stream.isTTY === true && env.TERM !== 'dumb';
    };
    this.#color = { stdout: colorable(streams.stdout), stderr: colorable(streams.stderr) };
  }

  /** The result of a command: `value` as JSON with --json, else the human text (the id alone with --quiet). */
  result(value: unknown, human: () => string, quietText?: string): void {
    if (this.json) {
      const warnings = this.#warnings.splice(0);
      const document =
        warnings.length > 0 && typeof value === 'object' && value !== null && !Array.isArray(value)
          ? { ...value, warnings }
          : value;
      this.#streams.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    } else if (this.quiet) {
      if (quietText !== undefined) this.#streams.stdout.write(`${quietText}\n`);
    } else {
      this.#streams.stdout.write(`${human()}\n`);
    }
  }

  /** A note for people (progress without a terminal, hints): stderr, not with --quiet or --json. */
  note(text: string): void {
    if (!this.quiet && !this.json) this.#streams.stderr.write(`${text}\n`);
  }

  /**
   * Something the person should know: on stderr, or with --json in the document's `warnings`
   * (stdout is then one JSON document and stderr stays empty); not with --quiet unless `always`
   * (a notification --fail-open let go unsent is never silent).
   */
  warn(text: string, options: { always?: boolean } = {}): void {
    if (this.json) {
      this.#warnings.push(text);
      return;
    }
    if (this.quiet && !options.always) return;
    this.#streams.stderr.write(`${this.paint('stderr', 'yellow', 'warning:')} ${text}\n`);
  }

  /** An error, always shown: on stderr, or with --json only in the document the caller prints. */
  error(lines: string[]): void {
    if (this.json) return;
    const [first, ...rest] = lines;
    this.#streams.stderr.write(
      `${this.paint('stderr', 'red', 'error:')} ${first ?? ''}\n${rest.map((line) => `  ${line}\n`).join('')}`,
    );
  }

  /** Colour for text bound for one stream, when that stream takes colour. */
  paint(stream: 'stdout' | 'stderr', style: Style, text: string): string {
    return this.#color[stream] ? styleText(style, text) : text;
  }

  /** A spinner on a terminal; elsewhere nothing (CI logs get `note` lines instead). */
  async progress(text: string): Promise<Progress> {
    if (!this.interactive) return NO_PROGRESS;
    // Loaded only here: most runs (CI, --json, pipes) never draw a spinner.
    const { default: ora } = await import('ora');
    const spinner = ora({
      text,
      stream: this.#streams.stderr,
      color: this.#color.stderr ? 'cyan' : false,
      // This class decides when to spin (ora's own test reads any CI variable, even an empty one).
      isEnabled: true,
      // stdin stays as it is: `notify run` hands it to the command.
      discardStdin: false,
    }).start();
    const spinning = {
      text,
      show(line: string) {
        spinner.text = line;
      },
    };
    this.#spinning = spinning;
    return {
      update(next) {
        spinning.text = next;
        spinner.text = next;
      },
      stop: () => {
        if (this.#spinning === spinning) this.#spinning = undefined;
        spinner.stop();
      },
    };
  }

  /**
   * A retry about to wait (a refused connection, a 429's Retry-After): on the spinner while one
   * turns, so a terminal shows why nothing happens yet; elsewhere a warning line.
   */
  retrying(text: string): void {
    if (this.#spinning) this.#spinning.show(`${this.#spinning.text}: ${text}`);
    else this.warn(text);
  }
}
