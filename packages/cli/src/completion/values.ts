import { BELL_COLOR_NAMES, LEVELS, SCENES, SOUNDS, TARGET_KEYWORDS } from '@foxbell/sdk/contract';

/**
 * The values a flag takes, for completion after it. Loaded only while completing: the contract
 * stays off the start-up path of every other run.
 */
export const FLAG_VALUES: Readonly<Record<string, readonly string[]>> = {
  '--scene': Object.keys(SCENES),
  '--level': LEVELS,
  '--sound': SOUNDS,
  '--target': TARGET_KEYWORDS,
  '--bell-color': BELL_COLOR_NAMES,
};
