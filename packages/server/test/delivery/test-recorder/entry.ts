import type { ProviderEntry } from '../../../src/delivery/provider.js';
import type { Setting, SettingValues } from '../../../src/kernel/settings.js';

/**
 * A push provider that exists only in the tests, as a maintainer would add one: this folder and one
 * line in a registry (provider-registry.stores.test.ts). Its push service is the test itself: its
 * transport records what it is handed, and responds every push as its setting says.
 */
export const TEST_RECORDER_SETTINGS = {
  testRecorderResponse: {
    flag: 'test-recorder-answer',
    variable: 'FOXBELL_TEST_RECORDER_ANSWER',
    argument: 'WHAT',
    type: 'choice',
    choices: ['accepted', 'credential-refused'],
    default: 'accepted',
    help: 'what the test recorder answers every push',
  },
} as const satisfies Record<string, Setting>;

export interface TestRecorderConfig {
  answer: SettingValues<typeof TEST_RECORDER_SETTINGS>['testRecorderResponse'];
}

export const testRecorder: ProviderEntry<typeof TEST_RECORDER_SETTINGS, TestRecorderConfig> = {
  id: 'test-recorder',
  title: 'Test recorder',
  member: 'test_recorder',
  shownAs: 'test_recorder',
  settings: TEST_RECORDER_SETTINGS,
  configOf: (values) => ({ answer: values.testRecorderResponse }),
  load: async () => (await import('./provider.js')).testRecorderMaker,
};
