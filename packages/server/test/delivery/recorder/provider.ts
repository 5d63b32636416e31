import * as z from 'zod';
import type { ProviderMaker } from '../../../src/delivery/provider.js';
import type { PushDestination, PushOutcome, PushTransport } from '../../../src/delivery/transport.js';
import { type RecorderConfig, recorder } from './entry.js';

const ANSWERS: Record<RecorderConfig['answer'], PushOutcome> = {
  accepted: { verdict: 'accepted', status: 200, deactivateDevice: null, pauseCredential: false },
  'credential-refused': {
    verdict: 'retry',
    status: 403,
    reason: 'CredentialRefused',
    deactivateDevice: null,
    pauseCredential: true,
  },
};

/** The recorder's transport: every push it is handed, kept in order. */
export class RecorderTransport implements PushTransport {
  readonly handed: PushDestination[] = [];

  constructor(private readonly answer: PushOutcome) {}

  async push(destination: PushDestination): Promise<PushOutcome> {
    this.handed.push(destination);
    return this.answer;
  }

  async close(): Promise<void> {}
}

/** A device registers with `recorder: { inbox }`; its pushes carry the unread count. */
export const recorderMaker: ProviderMaker<RecorderConfig> = {
  make: (config) => ({
    id: recorder.id,
    title: recorder.title,
    registration: {
      field: 'recorder',
      schema: z.strictObject({ inbox: z.string().regex(/^[a-z]{1,16}$/, 'must be 1-16 letters a-z') }),
      address: (value: { inbox: string }) => ({
        provider: recorder.id,
        key: value.inbox,
        data: { kept: true },
      }),
      shownAs: 'recorder',
    },
    countsUnread: true,
    openTransport: async () => ({ transport: new RecorderTransport(ANSWERS[config.answer]) }),
  }),
};
