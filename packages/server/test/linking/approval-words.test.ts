import { readFileSync } from 'node:fs';
import { type LinkApprovalError, linkApprovalInWords } from '@foxbell/sdk/server-contract';
import { describe, expect, it } from 'vitest';

/**
 * A link code that does not work is said in the same words wherever a person approves one: the
 * web app (web-app/app.js, its `explain`) and `foxbell-server admin link approve` (the contract's
 * `linkApprovalInWords`). The app keeps its own copy for now; this holds the two together.
 */
const APP = readFileSync(new URL('../../web-app/app.js', import.meta.url), 'utf8');

const ERRORS: LinkApprovalError[] = [
  { code: 'not_found', field: 'code' },
  { code: 'link_expired' },
  { code: 'link_not_pending' },
  { code: 'link_superseded' },
  { code: 'link_locked', retryAfter: 540 },
  { code: 'limit_reached', details: { limit: 'link_approvals' }, retryAfter: 61 },
  { code: 'limit_reached', details: { limit: 'devices' } },
  { code: 'invalid_field', field: 'code' },
];

describe("a link approval's words", () => {
  it.each(ERRORS.map((error) => [`${error.code} ${JSON.stringify(error.details ?? '')}`, error] as const))(
    '%s: the web app says the same',
    (_name, error) => {
      const words = linkApprovalInWords(error) as string;
      expect(words).toBeDefined();
      // The app's template literal says the wait with its minutes(retryAfter).
      const wait = ['$', '{minutes(retryAfter)}.'].join('');
      const asTheAppWritesIt = words.replace(/\b(a minute|\d+ minutes)\.$/, wait);
      expect(APP).toContain(asTheAppWritesIt);
    },
  );

  it('says waits in whole minutes, rounded up, and nothing for an error not about the code', () => {
    expect(linkApprovalInWords({ code: 'link_locked', retryAfter: 540 })).toBe(
      'Too many wrong codes. You can approve again in 9 minutes.',
    );
    expect(linkApprovalInWords({ code: 'link_locked', retryAfter: 61 })).toContain('in 2 minutes.');
    expect(linkApprovalInWords({ code: 'link_locked', retryAfter: 1 })).toContain('in a minute.');
    expect(linkApprovalInWords({ code: 'link_locked' })).toContain('in a minute.');
    expect(linkApprovalInWords({ code: 'invalid_field', field: 'name' })).toBeUndefined();
    expect(linkApprovalInWords({ code: 'rate_limited', retryAfter: 5 })).toBeUndefined();
  });
});
