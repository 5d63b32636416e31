import yargs, { type Argv, type Options } from 'yargs';
import { SHELLS } from './completion/scripts.js';
import type { Context, Handler } from './context.js';
import { EXIT, EXIT_CODES_HELP, type ExitCode } from './exit-codes.js';
import {
  CONFIG_KEY_NAMES,
  GLOBAL_FLAGS,
  type GlobalArgs,
  normalizeWaitFlag,
  SEND_FLAGS,
  withSendFlags,
} from './flags.js';
import { Output, type Streams } from './output.js';
import { CLI_VERSION } from './version.js';

/** Everything of the process `notify` touches: a test runs it in-process with streams of its own. */
export interface CliIo extends Streams {
  /** For `notify send -` and `notify login`. */
  stdin: NodeJS.ReadStream;
}

/**
 * `notify` with these arguments (without `node` and the script): parses them, runs one command and
 * resolves with its exit code. It never ends the process, and touches no more of it than `io`.
 * Command handlers are imported when their command runs, so that `notify --version` and `--help`
 * load neither the SDK nor anything else heavy.
 */
export async function runCli(argv: string[], io: CliIo): Promise<ExitCode> {
  let outcome: Promise<ExitCode> | undefined;
  /**
   * A handler loaded on demand, run with an Output for its --json/--quiet, its failure reported.
   * The parser's arguments are typed by each command's own interface: yargs' inferred types do
   * not survive builders shared between commands.
   */
  const lazy: Lazy = (load) => async (parsed: Record<string, unknown>) => {
    const args = parsed as GlobalArgs & { 'fail-open'?: boolean };
    const out = new Output({ json: args.json === true, quiet: args.quiet === true }, io);
    const context: Context = { out, streams: io, env: io.env, stdin: io.stdin };
    outcome = load()
      .then(({ run }) => run(args, context))
      .catch(async (error: unknown) => {
        const { reportError } = await import('./report-error.js');
        return reportError(error, out, { failOpen: args['fail-open'] === true });
      });
    await outcome;
  };
  try {
    // yargs hands what it would print (help, the version, completions) to the callback instead.
    let printed = '';
    if (argv[0] === COMPLETION_HOOK && (await completeFlagValue(argv.slice(1), io.stdout))) return EXIT.ok;
    await parser(lazy, io.stdout.columns).parseAsync(normalizeWaitFlag(argv), {}, (_error, _argv, output) => {
      printed = output;
    });
    if (printed !== '') io.stdout.write(`${printed}\n`);
    return outcome ? await outcome : EXIT.ok;
  } catch (error) {
    // Handlers report their own failures: what arrives here is the parser's. --fail-open keeps its
    // promise for these too: a mistyped flag in a CI step warns and lets the build pass.
    const json = argv.includes('--json');
    const failOpen = argv.includes('--fail-open');
    const message = usageMessage((error as Error).message, argv);
    const out = new Output({ json, quiet: false }, io);
    const exitCode = failOpen ? EXIT.ok : EXIT.usage;
    if (failOpen) {
      out.warn(`notification not sent: ${message}\n  code: usage\n  next: Run \`notify --help\` for usage`, {
        always: true,
      });
    } else out.error([message, 'Run `notify --help` for usage.']);
    if (json) out.result({ error: { code: 'usage', message }, exit_code: exitCode }, () => '');
    return exitCode;
  }
}

/** What a person who installed the package can open: not a path inside this repository. */
const HOMEPAGE = 'https://github.com/foxbell/foxbell/blob/main/docs/cli.md';

const COMMANDS = ['send', 'status', 'scenes', 'devices', 'ci', 'run', 'login', 'config', 'completion'];

const EPILOGUE = `${EXIT_CODES_HELP}

Configuration: flags, then NOTIFY_* variables, then the profile saved by \`notify login\` (see \`notify config\`).
Reference: ${HOMEPAGE}`;

/** yargs' own words for an unknown command say only "Did you mean …?": say it is unknown first. */
function usageMessage(message: string, argv: string[]): string {
  const suggestion = /^Did you mean (\S+)\?$/.exec(message);
  const given = argv.find((arg) => !arg.startsWith('-'));
  if (suggestion && given) return `Unknown command "${given}": did you mean ${suggestion[1]}?`;
  if (/^Unknown argument/.test(message) && given && !COMMANDS.includes(given)) {
    return `Unknown command "${given}"; the commands are ${COMMANDS.join(', ')}`;
  }
  return message;
}

/** What each completion script calls with the words typed so far: `notify --get-yargs-completions notify send --scene ro`. */
const COMPLETION_HOOK = '--get-yargs-completions';

/**
 * After a flag that takes one of a few values (`--scene`, `--level`…), those values; false to
 * leave the rest (commands, flags) to the parser's own completion.
 */
async function completeFlagValue(words: string[], stdout: NodeJS.WriteStream): Promise<boolean> {
  const previous = words[words.length - 2];
  if (previous === undefined || !previous.startsWith('--')) return false;
  const { FLAG_VALUES } = await import('./completion/values.js');
  const values = FLAG_VALUES[previous];
  if (values === undefined) return false;
  stdout.write(values.map((value) => `${value}\n`).join(''));
  return true;
}

/** A command's module, loaded when it runs. */
// biome-ignore lint/suspicious/noExplicitAny: each command declares the arguments it reads.
type CommandModule = { run: Handler<any> };
type Lazy = (load: () => Promise<CommandModule>) => (parsed: Record<string, unknown>) => Promise<void>;

function parser(lazy: Lazy, columns: number | undefined): Argv {
  return (
    (yargs() as Argv)
      .scriptName('notify')
      .usage('$0 <command> [options]\n\nSend a notification to your iPhone, Apple Watch and Vision Pro.')
      .options(GLOBAL_FLAGS as Record<string, Options>)
      .command(
        'send [message..]',
        'Send a notification (the message from the arguments, or from stdin with "-" or a pipe)',
        (y) =>
          withSendFlags(y)
            .positional('message', { type: 'string', array: true, describe: 'The text; "-" reads stdin' })
            .example('$0 send "Deploy finished" --scene rocket', 'a notification with the rocket scene')
            .example('$0 send "Build failed" --level time-sensitive --wait', 'and follow it to the devices')
            .example('git log -1 --format=%s | $0 send --title "New commit"', 'the message from a pipe')
            .example(
              '$0 send "Ready" --scene rocket --param color=green --param countdown=5',
              'scene parameters',
            ),
        lazy(() => import('./commands/send.js')),
      )
      .command(
        'status <id>',
        "A notification's status and each device's delivery state",
        (y) =>
          y
            .positional('id', { type: 'string', demandOption: true, describe: 'The notification id (ntf_…)' })
            .option('wait', SEND_FLAGS.wait)
            .example(
              '$0 status ntf_8Hq2 --wait 30',
              'follow it until each device has it, or it will not arrive',
            ),
        lazy(() => import('./commands/status.js')),
      )
      .command(
        'scenes',
        'The scene catalog, with each scene’s parameters and defaults',
        (y) => y.example('$0 scenes --json', 'the catalog with JSON Schemas'),
        lazy(() => import('./commands/scenes.js')),
      )
      .command(
        'devices',
        'The devices a notification can target',
        (y) => y.example('$0 send "Hi" --target "$($0 devices --json | jq -r ".[0].name")"', 'target one'),
        lazy(() => import('./commands/devices.js')),
      )
      .command(
        'ci',
        "Post the CI job's result: repository, branch, commit, run link, by result",
        (y) =>
          withSendFlags(y)
            .option('status', {
              type: 'string',
              choices: ['success', 'failure', 'cancelled'],
              describe: 'The result (default: read from the CI provider where it tells)',
            })
            // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub's expression syntax, shown as typed.
            .example('$0 ci --status "${{ job.status }}"', 'in a GitHub Actions step with if: always()')
            .example('$0 ci', 'in GitLab after_script (CI_JOB_STATUS is read)'),
        lazy(() => import('./commands/ci.js')),
      )
      .command(
        'run',
        "Run a command, then send its result; exits with the command's own code",
        (y) =>
          withSendFlags(y)
            .usage('$0 run [send options] -- <command> [args…]')
            .option('lines', {
              type: 'number',
              default: 10,
              describe: 'Last lines of output to include in the message',
            })
            .example('$0 run -- make test', 'notify when the tests finish')
            .example('$0 run --title "Nightly backup" -- ./backup.sh', 'with a title of your own'),
        lazy(() => import('./commands/run.js')),
      )
      .command(
        'login',
        'Save a base URL and token for a profile (the token is read from a prompt or stdin)',
        (y) =>
          y
            .option('verify', {
              type: 'boolean',
              default: true,
              describe: 'Check the token with the service',
            })
            .example('$0 login --base-url https://foxbell.example.com', 'prompts for the token')
            .example(
              'echo "$TOKEN" | $0 login --base-url https://foxbell.example.com --profile ci',
              'from stdin',
            ),
        lazy(() => import('./commands/login.js')),
      )
      .command(
        'config <action> [key] [value]',
        'Show or change the saved settings: list, get, set, unset, path',
        (y) =>
          y
            .positional('action', { choices: ['list', 'get', 'set', 'unset', 'path'] as const })
            .positional('key', { choices: CONFIG_KEY_NAMES })
            .positional('value', { type: 'string' })
            .example('$0 config set base-url https://foxbell.example.com', 'for the default profile')
            .example('$0 config set scene rocket --profile ci', 'a default for the sends of profile ci')
            .example('$0 config list', 'every profile (tokens are never shown)'),
        lazy(() => import('./commands/config.js')),
      )
      .command(
        'completion [shell]',
        'Print a completion script for bash, zsh, fish or PowerShell (add it to your shell profile)',
        (y) =>
          y
            .positional('shell', { choices: SHELLS, describe: 'The shell (default: the one in $SHELL)' })
            .example('$0 completion bash >> ~/.bashrc', 'bash')
            .example('$0 completion fish > ~/.config/fish/completions/notify.fish', 'fish'),
        lazy(() => import('./commands/completion.js')),
      )
      // The hook each script calls, `notify --get-yargs-completions <words…>`; no command of its own.
      .completion('__yargs-completion', false)
      .demandCommand(1, `Name a command: ${COMMANDS.join(', ')}`)
      .recommendCommands()
      .strict()
      .parserConfiguration({ 'populate--': true })
      .version(CLI_VERSION)
      .alias('help', 'h')
      .alias('version', 'v')
      .epilogue(EPILOGUE)
      .wrap(Math.min(110, columns ?? 80))
      .exitProcess(false)
      .fail((message, error) => {
        // Thrown, so that no command runs after a usage mistake.
        throw error ?? new UsageMistake(message);
      })
  );
}

class UsageMistake extends Error {}
