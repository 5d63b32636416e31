import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '@foxbell/sdk/contract';
import { SEND_FIELD_NAMES } from '@foxbell/sdk/server-contract';
import { describe, expect, it } from 'vitest';
import { startServer } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Every Markdown file a user of the repository reads: the README, docs/, the packages' and examples'. */
async function markdownFiles(): Promise<string[]> {
  const files = ['README.md'];
  for (const dir of ['docs', 'packages', 'examples']) {
    const entries = await readdir(path.join(ROOT, dir), { recursive: true });
    files.push(
      ...entries
        .filter(
          (entry) => entry.endsWith('.md') && !entry.includes('node_modules') && !entry.includes('dist'),
        )
        .map((entry) => path.join(dir, entry)),
    );
  }
  return files;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

async function anchorsOf(file: string): Promise<Set<string>> {
  const text = await readFile(file, 'utf8');
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((match) => anchorOf(match[1] as string)));
}

describe('the docs stand on their own', () => {
  it('never cite the interface specification or files outside this repository', async () => {
    const citing: string[] = [];
    for (const file of await markdownFiles()) {
      const text = await readFile(path.join(ROOT, file), 'utf8');
      for (const match of text.matchAll(
        /\bthe spec\b|\bspec's\b|\.\.\/shared|shared\/design|spec-decisions|management-api\.md/gi,
      )) {
        citing.push(`${file}: ${match[0]}`);
      }
    }
    expect(citing).toEqual([]);
  });

  it('link only to files and headings that exist', async () => {
    const broken: string[] = [];
    for (const file of await markdownFiles()) {
      const text = await readFile(path.join(ROOT, file), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target as string)) continue;
        const [filePart, anchor] = (target as string).split('#');
        const linked = filePart
          ? path.resolve(path.dirname(path.join(ROOT, file)), filePart)
          : path.join(ROOT, file);
        if (!existsSync(linked)) broken.push(`${file}: ${target}`);
        else if (anchor && linked.endsWith('.md') && !(await anchorsOf(linked)).has(anchor)) {
          broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('http-api.md names every route, every send field and every error code', async () => {
    const text = await readFile(path.join(ROOT, 'docs', 'http-api.md'), 'utf8');
    const errors = await readFile(path.join(ROOT, 'docs', 'errors.md'), 'utf8');
    const missing: string[] = [];
    // The interface as the product serves it, with its providers' registration members.
    const served = await (await startServer()).request('GET', '/openapi.json');
    const { paths } = served.body as { paths: Record<string, object> };
    for (const [route, methods] of Object.entries(paths)) {
      const written = route.replace('{token}', '<TOKEN>');
      for (const method of Object.keys(methods)) {
        const spelled = [`${method.toUpperCase()} ${written}`, `GET|POST ${written}`];
        if (!spelled.some((form) => text.includes(form))) missing.push(`${method.toUpperCase()} ${route}`);
      }
    }
    for (const field of SEND_FIELD_NAMES)
      if (!text.includes(`| \`${field}\``)) missing.push(`field ${field}`);
    for (const code of Object.keys(ERROR_CODES))
      if (!errors.includes(`| \`${code}\``)) missing.push(`code ${code}`);
    for (const header of [
      'X-Title',
      'X-Level',
      'Idempotency-Key',
      'X-RateLimit-Remaining',
      'Retry-After',
      'X-Request-Id',
    ]) {
      if (!text.includes(`\`${header}\``)) missing.push(`header ${header}`);
    }
    expect(missing).toEqual([]);
  });
});
