import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/exit-codes.js';

/** The rows of the table under a heading of a Markdown file: its cells, trimmed. */
function tableUnder(file: URL, heading: string): string[][] {
  const text = readFileSync(file, 'utf8');
  const section = text.slice(text.indexOf(`\n${heading}\n`) + 1).split(/\n## /)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s|-]+\|$/.test(line))
    .slice(1)
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

describe("notify's exit codes", () => {
  it('are documented in docs/cli.md as the table in exit-codes.ts has them, each once', () => {
    const rows = tableUnder(new URL('../../../docs/cli.md', import.meta.url), '## Exit codes');
    expect(rows.map(([code]) => Number(code))).toEqual(Object.values(EXIT_CODES).map(({ code }) => code));
  });
});
