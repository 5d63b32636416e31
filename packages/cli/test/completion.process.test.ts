import { execFile } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { NOTIFY_BIN, notify, tempDir } from './helpers.js';

/** A folder with `notify` on it, as an installed CLI is on PATH, for the shells to call. */
let binDir: string;
beforeAll(async () => {
  binDir = await tempDir();
  const wrapper = join(binDir, 'notify');
  await writeFile(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${NOTIFY_BIN}" "$@"\n`);
  await chmod(wrapper, 0o755);
});

/** Runs a shell with `notify` on PATH; Debian has bash, zsh and fish (apt-get install zsh fish). */
async function shell(name: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(name, args, {
      env: { PATH: `${binDir}:${process.env.PATH}`, HOME: binDir },
      timeout: 20_000,
    });
    return stdout;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`${name} is not installed: apt-get install ${name}`);
    }
    throw error;
  }
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('shell completion, loaded into each shell', () => {
  it('bash: commands, flags and a flag’s values', async () => {
    const complete = (words: string[]) =>
      shell('bash', [
        '-c',
        `source <(notify completion bash)
         COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}
         _notify_completions; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ]);
    expect(lines(await complete(['notify', 'st']))).toEqual(['status']);
    expect(lines(await complete(['notify', 'send', '--sc']))).toEqual(['--scene', '--scene-version']);
    expect(lines(await complete(['notify', 'send', '--scene', 'r']))).toEqual(['rocket']);
    expect(lines(await complete(['notify', 'ci', '--level', '']))).toEqual([
      'passive',
      'active',
      'time-sensitive',
    ]);
  });

  it('zsh: registered with compdef, offering what the parser gives', async () => {
    const complete = (words: string[]) =>
      shell('zsh', [
        '-fc',
        `autoload -U compinit && compinit -u
         source <(notify completion zsh)
         print -r -- "registered: \${_comps[notify]}"
         compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@"; }
         words=(${words.map((word) => `'${word}'`).join(' ')}); CURRENT=${words.length}
         _notify`,
      ]);
    const scenes = lines(await complete(['notify', 'send', '--scene', '']));
    expect(scenes).toEqual(['registered: _notify', 'notice', 'rocket', 'fireworks', 'garage', 'campfire']);
    expect(lines(await complete(['notify', '']))).toContain('completion');
  });

  it('fish: complete -C gives the candidates for a command line', async () => {
    const complete = (line: string) =>
      shell('fish', ['-c', `notify completion fish | source; complete -C '${line}'`]);
    expect(lines(await complete('notify sc'))).toEqual(['scenes']);
    expect(lines(await complete('notify send --sound '))).toEqual(['default', 'none']);
    expect(lines(await complete('notify run --tar'))).toEqual(['--target']);
  });

  it('PowerShell: a native argument completer that asks notify for the candidates', async () => {
    // PowerShell is not a Debian package: its script is checked for its parts.
    const script = (await notify(['completion', 'powershell'])).stdout;
    expect(script).toContain('Register-ArgumentCompleter -Native -CommandName notify -ScriptBlock {');
    expect(script).toContain('param($wordToComplete, $commandAst, $cursorPosition)');
    expect(script).toContain('notify --get-yargs-completions @words 2>$null');
    expect(script).toContain(
      "[System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)",
    );
    expect(script.split('{').length).toBe(script.split('}').length);
  });

  it('writes the script for the shell in $SHELL when none is named', async () => {
    expect((await notify(['completion'], { env: { SHELL: '/usr/bin/fish' } })).stdout).toContain(
      "complete -c notify -f -a '(__notify_complete)'",
    );
    expect((await notify(['completion'], { env: { SHELL: '/bin/zsh' } })).stdout).toMatch(
      /^#compdef notify\n/,
    );
    const refused = await notify(['completion', 'tcsh']);
    expect(refused.code).toBe(2);
  });
});
