// The GitHub Action's one file: the CLI's code and every dependency bundled, so the runner needs
// no install and the action runs the CLI of its own commit. `pnpm --filter @foxbell/cli action`
// writes it; a test fails while the committed copy differs from what this makes.
import { build } from 'esbuild';

export const ACTION_BUNDLE = new URL('../action/notify-action.mjs', import.meta.url);

/** The bundle's text, as esbuild makes it (the same sources give the same bytes). */
export async function bundleAction() {
  const result = await build({
    entryPoints: [new URL('../src/action/main.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
    // Bundled CommonJS modules may still `require` a Node built-in.
    banner: {
      js: "import { createRequire as __foxbellRequire } from 'node:module'; const require = __foxbellRequire(import.meta.url);",
    },
  });
  return result.outputFiles[0].text;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const { mkdir, writeFile } = await import('node:fs/promises');
  await mkdir(new URL('.', ACTION_BUNDLE), { recursive: true });
  await writeFile(ACTION_BUNDLE, await bundleAction());
}
