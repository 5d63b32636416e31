import type { SendFields } from '@foxbell/sdk';

/** How a job or a command ended, as `notify ci` and `notify run` report it. */
export type Outcome = 'success' | 'failure' | 'cancelled' | 'unknown';

/**
 * What each outcome looks like on the wrist: a failure breaks through focus (time-sensitive)
 * with a red bell, a success lifts off in green, a cancelled job arrives quietly. Any of these
 * can be overridden with the send flags.
 */
export const OUTCOME_LOOK: Readonly<
  Record<
    Outcome,
    { mark: string; fields: Pick<SendFields, 'scene' | 'scene_params' | 'level' | 'bell_color'> }
  >
> = {
  success: {
    mark: '✅',
    fields: { scene: 'rocket', scene_params: { color: 'green' }, level: 'active', bell_color: 'green' },
  },
  failure: { mark: '❌', fields: { scene: 'campfire', level: 'time-sensitive', bell_color: 'red' } },
  cancelled: { mark: '⏹️', fields: { scene: 'notice', level: 'passive' } },
  unknown: { mark: '🏁', fields: { scene: 'notice', level: 'active' } },
};

/**
 * Fields built for an outcome, then the person's own flags on top. Scene parameters go with
 * their scene: kept and added to for the same scene, dropped for a scene chosen by hand.
 */
export function withOverrides(built: Partial<SendFields>, flags: Partial<SendFields>): Partial<SendFields> {
  const merged: Partial<SendFields> = { ...built, ...flags };
  const sameScene = flags.scene === undefined || flags.scene === built.scene;
  const params = { ...(sameScene ? built.scene_params : {}), ...flags.scene_params };
  if (Object.keys(params).length > 0) merged.scene_params = params;
  else delete merged.scene_params;
  return merged;
}
