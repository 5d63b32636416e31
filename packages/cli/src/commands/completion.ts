import { COMPLETION_SCRIPTS, type Shell, shellOf } from '../completion/scripts.js';
import type { Handler } from '../context.js';
import { EXIT } from '../exit-codes.js';
import type { GlobalArgs } from '../flags.js';

export const run: Handler<GlobalArgs & { shell?: Shell }> = async (args, { env, streams }) => {
  // The script itself, whatever --json or --quiet say: it is meant for `>> ~/.bashrc`.
  streams.stdout.write(COMPLETION_SCRIPTS[args.shell ?? shellOf(env)]);
  return EXIT.ok;
};
