import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The dev account's secrets, which `--dev` saves on its first start so later starts (the device
 * page, `pnpm start`) can use them. The file is the data directory's and private to its owner.
 */
export interface DevSession {
  token: string;
  accountKey: string;
}

export function devSessionFile(dataDir: string): string {
  return path.join(dataDir, 'dev.json');
}

/** The saved session, or undefined before the first `--dev` start made one. */
export async function readDevSession(dataDir: string): Promise<DevSession | undefined> {
  const text = await readFile(devSessionFile(dataDir), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const saved = JSON.parse(text) as { token?: unknown; account_key?: unknown };
  return typeof saved.token === 'string' && typeof saved.account_key === 'string'
    ? { token: saved.token, accountKey: saved.account_key }
    : undefined;
}

export async function writeDevSession(dataDir: string, session: DevSession): Promise<void> {
  const file = devSessionFile(dataDir);
  const json = { token: session.token, account_key: session.accountKey };
  await writeFile(file, `${JSON.stringify(json, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
}
