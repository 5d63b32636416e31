import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from './ports.js';
import { killAfterTest, tempDir } from './processes.js';

/** Debian's tinyproxy, a real forward proxy, for the tests of the SDK and notify behind one. */
/** tinyproxy in the foreground on a free port, logging each request line to a file of its own. */
export async function startTinyproxy(): Promise<{ url: string; log: () => Promise<string> }> {
  const dir = await tempDir();
  const port = await freePort();
  const logFile = path.join(dir, 'tinyproxy.log');
  const config = path.join(dir, 'tinyproxy.conf');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      `LogFile "${logFile}"`,
      'LogLevel Connect',
      'Allow 127.0.0.1',
    ].join('\n'),
  );
  killAfterTest(spawn('tinyproxy', ['-d', '-c', config], { stdio: 'ignore' }));
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    const ready = await fetch(`${url}/`).then(
      () => true,
      () => false,
    );
    if (ready) break;
    if (tries > 50) throw new Error('tinyproxy did not start: apt-get install tinyproxy');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, log: () => readFile(logFile, 'utf8') };
}
