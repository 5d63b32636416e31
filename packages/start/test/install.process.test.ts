import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('pnpm install', () => {
  it('on a Node.js older than the floor stops at once, naming the Node.js it wants', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'foxbell-install-'));
    try {
      // A `node` that says it is 22, first on PATH: what pnpm reads as the Node.js it installs for.
      await mkdir(path.join(dir, 'bin'));
      await writeFile(path.join(dir, 'bin', 'node'), '#!/bin/sh\necho v22.0.0\n');
      await chmod(path.join(dir, 'bin', 'node'), 0o755);
      for (const file of ['package.json', 'pnpm-workspace.yaml']) {
        await copyFile(path.join(root, file), path.join(dir, file));
      }
      const outcome = await new Promise<{ code: number; output: string }>((resolve) =>
        execFile(
          'pnpm',
          ['install', '--frozen-lockfile'],
          {
            cwd: dir,
            env: { ...process.env, PATH: `${path.join(dir, 'bin')}:${process.env.PATH}` },
            timeout: 60_000,
          },
          (error, stdout, stderr) =>
            resolve({
              code: error ? Number((error as { code?: number }).code ?? 1) : 0,
              output: stdout + stderr,
            }),
        ),
      );
      expect(outcome.code).toBe(1);
      expect(outcome.output).toContain('ERR_PNPM_UNSUPPORTED_ENGINE');
      // pnpm wraps its message to the terminal's width, with a margin of its own.
      const said = outcome.output.replace(/\s*│\s*|\s+/g, ' ');
      expect(said).toContain('wanted: {"node":">=24"} (current: {"node":"22.0.0"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
