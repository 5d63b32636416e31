import type { ExitCode } from './exit-codes.js';
import type { Output, Streams } from './output.js';

/** What a command handler is given besides its arguments: everything it may touch of the process. */
export interface Context {
  out: Output;
  streams: Streams;
  env: NodeJS.ProcessEnv;
  /** For `notify send -`: the process's stdin. */
  stdin: NodeJS.ReadStream;
}

/** A command: its arguments in, an exit code out. Only main.ts ends the process. */
export type Handler<A> = (args: A, context: Context) => Promise<ExitCode>;
