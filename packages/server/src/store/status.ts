import type { NotificationStatus } from '@foxbell/sdk/contract';

/**
 * How far each notification status is along. `status` is the furthest state observed, so a
 * change only ever moves it forward; `dropped` stands apart and is final.
 */
export const STATUS_RANK: Readonly<Record<NotificationStatus, number>> = {
  accepted: 0,
  sent_to_push: 1,
  opened: 2,
  cleared: 3,
  dropped: 4,
};
