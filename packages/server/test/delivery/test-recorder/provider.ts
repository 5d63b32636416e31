import * as z from 'zod';
import type { ProviderMaker } from '../../../src/delivery/provider.js';
import type { PushDestination, PushOutcome, PushTransport } from '../../../src/delivery/transport.js';
import { type TestRecorderConfig, testRecorder } from './entry.js';

const ANSWERS: Record<TestRecorderConfig['answer'], PushOutcome> = {
  accepted: { verdict: 'accepted', status: 200, deactivateDevice: null, pauseCredential: false },
  'credential-refused': {
    verdict: 'retry',
    status: 403,
    reason: 'CredentialRefused',
    deactivateDevice: null,
    pauseCredential: true,
  },
};

/** The test recorder's transport: every push it is handed, kept in order. */
export class TestRecorderTransport implements PushTransport {
  readonly handed: PushDestination[] = [];

  constructor(private readonly answer: PushOutcome) {}

  async push(destination: PushDestination): Promise<PushOutcome> {
    this.handed.push(destination);
    return this.answer;
  }

  async close(): Promise<void> {}
}

/** A device registers with `test_recorder: { inbox }`; its pushes carry the unread count. */
export const testRecorderMaker: ProviderMaker<TestRecorderConfig> = {
  make: (config) => ({
    id: testRecorder.id,
    title: testRecorder.title,
    registration: {
      field: testRecorder.member,
      schema: z.strictObject({ inbox: z.string().regex(/^[a-z]{1,16}$/, 'must be 1-16 letters a-z') }),
      address: (value: { inbox: string }) => ({
        provider: testRecorder.id,
        key: value.inbox,
        data: { kept: true },
      }),
      shownAs: testRecorder.shownAs,
    },
    countsUnread: true,
    openTransport: async () => ({ transport: new TestRecorderTransport(ANSWERS[config.answer]) }),
  }),
};
