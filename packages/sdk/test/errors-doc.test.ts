import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/contract/index.js';

describe('docs/errors.md', () => {
  it('lists exactly the codes and statuses of ERROR_CODES', () => {
    const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
    // Cells are read whatever their padding: the formatter aligns the table.
    const rows = [...doc.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|/gm)].map(([, code, status]) => [
      code,
      Number(status),
    ]);
    expect(rows).toEqual(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]));
  });
});
