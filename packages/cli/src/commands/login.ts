import { openClient } from '../client.js';
import { configPath, readConfig, writeConfig } from '../config.js';
import type { Context, Handler } from '../context.js';
import { EXIT, usageError } from '../exit-codes.js';
import type { GlobalArgs } from '../flags.js';

/**
 * Saves a base URL and a token under a profile, after checking them with the service. The
 * token comes from a prompt that does not echo, or from stdin: never from the command line by
 * choice (shell history), though `--token` works and warns.
 */
export const run: Handler<GlobalArgs & { verify: boolean }> = async (args, context) => {
  const { out, env } = context;
  const token = args.token ?? (await readToken(context));
  if (token === '')
    throw usageError('No token given', 'Paste it at the prompt, or pipe it in: echo "$TOKEN" | notify login');
  const { client, settings } = await openClient(args, context, { token });
  if (args.verify) {
    // Any valid credential may read the catalog: a cheap check that sends nothing.
    const progress = await out.progress('Checking the token');
    try {
      await client.scenes();
    } finally {
      progress.stop();
    }
  }
  const path = configPath(env);
  const config = await readConfig(path);
  config.profiles[settings.profile] = { base_url: client.baseUrl, token };
  await writeConfig(path, config);
  out.result(
    { profile: settings.profile, base_url: client.baseUrl, path, verified: args.verify },
    () => `Saved profile "${settings.profile}" for ${client.baseUrl} in ${path}`,
  );
  return EXIT.ok;
};

const MAX_TOKEN_CHARS = 1024;

/** The token from stdin: typed at a prompt without echo on a terminal, else read from a pipe. */
async function readToken({ stdin, streams }: Context): Promise<string> {
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) {
      text += String(chunk);
      if (text.length > MAX_TOKEN_CHARS) throw usageError('That is too long to be a token');
    }
    return text.trim();
  }
  streams.stderr.write('Send token (input hidden): ');
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  let typed = '';
  try {
    for await (const chunk of stdin) {
      for (const char of String(chunk)) {
        if (char === '\u0003') throw usageError('Cancelled');
        if (char === '\r' || char === '\n') return typed.trim();
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else if (typed.length < MAX_TOKEN_CHARS) typed += char;
      }
    }
    return typed.trim();
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    streams.stderr.write('\n');
  }
}
