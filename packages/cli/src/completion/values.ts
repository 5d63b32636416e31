import { BELL_COLOR_NAMES, SCENES, TARGET_KEYWORDS } from '@foxbell/sdk/contract';

/**
 * The values a flag takes, for completion after it. Loaded only while completing: the contract
 * stays off the start-up path of every other run.
 */
export const FLAG_VALUES: Readonly<Record<string, readonly string[]>> = {
  '--scene': Object.keys(SCENES),
  '--level': ['passive', 'active', 'time-sensitive'],
  '--sound': ['default', 'none'],
  '--target': TARGET_KEYWORDS,
  '--bell-color': BELL_COLOR_NAMES,
};
