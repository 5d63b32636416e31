import type { ProviderEntry } from '../../../src/delivery/provider.js';
import type { Setting, SettingValues } from '../../../src/kernel/settings.js';

/**
 * A push provider that exists only in the tests, as a maintainer would add one: this folder and one
 * line in a registry (provider-registry.stores.test.ts). Its push service is the test itself: its
 * transport records what it is handed, and answers every push as its setting says.
 */
export const RECORDER_SETTINGS = {
  recorderAnswer: {
    flag: 'recorder-answer',
    variable: 'FOXBELL_RECORDER_ANSWER',
    argument: 'WHAT',
    type: 'choice',
    choices: ['accepted', 'credential-refused'],
    default: 'accepted',
    help: 'what the recorder answers every push',
  },
} as const satisfies Record<string, Setting>;

export interface RecorderConfig {
  answer: SettingValues<typeof RECORDER_SETTINGS>['recorderAnswer'];
}

export const recorder: ProviderEntry<typeof RECORDER_SETTINGS, RecorderConfig> = {
  id: 'recorder',
  title: 'Recorder',
  settings: RECORDER_SETTINGS,
  configOf: (values) => ({ answer: values.recorderAnswer }),
  load: async () => (await import('./provider.js')).recorderMaker,
};
