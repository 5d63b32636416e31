import { type HandledAction, progressOf } from '@foxbell/sdk/contract';

/**
 * The status a notification takes when one of its devices reports `action`, or undefined when it
 * keeps its own: `status` is the furthest state observed, and `dropped` is final.
 */
export function statusAfter(current: string, action: HandledAction): HandledAction | undefined {
  return current !== 'dropped' && progressOf(action) > progressOf(current) ? action : undefined;
}
