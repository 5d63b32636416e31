import { readFileSync } from 'node:fs';
import { type LinkApprovalError, linkApprovalInWords } from '@foxbell/sdk/server-contract';
import { describe, expect, it } from 'vitest';
import * as appDevice from '../../web-app/device-client.js';

/**
 * A link code that does not work is said in the same words wherever a person approves one: the
 * web app and `foxbell-server admin link approve`, both from the contract's `linkApprovalInWords`.
 * The app has it from its module /app/device.js (the build bundles web-app/device-client.ts), so
 * the words are written once; its Chromium tests (test/web-app/) see them said where the person
 * approves a code.
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
  it("the web app says them with the contract's function, and keeps no copy of its own", () => {
    expect(appDevice.linkApprovalInWords).toBe(linkApprovalInWords);
    expect(APP).toMatch(/^import \{[^}]*\blinkApprovalInWords\b[^}]*\} from '\/app\/device\.js';$/m);
    for (const error of ERRORS) {
      const words = linkApprovalInWords(error);
      expect(words, error.code).toBeDefined();
      // Up to the first full stop: what would be written in a copy, whatever wait it names.
      expect(APP).not.toContain((words as string).split('.')[0]);
    }
  });

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
