// A stored notification as its status record and the inbox read it.
import type {
  DestinationState,
  DropReason,
  Notification,
  NotificationStatus,
  Platform,
  PushFailureReason,
} from '@foxbell/sdk/contract';
import type { HandledAction } from '@foxbell/sdk/server-contract';

export interface DestinationRecord {
  deviceId: string;
  /** The device's name now (it may have been renamed since); null once the device was purged. */
  deviceName: string | null;
  platform: Platform;
  state: DestinationState;
  pushStatus: number | null;
  /** Why it will not arrive, once it is `failed_permanent` or `expired`; else null. */
  reason: PushFailureReason | null;
  updatedAt: number;
}

export interface HandledEvent {
  deviceId: string;
  platform: Platform;
  action: HandledAction;
  at: number;
}

export interface StoredNotification {
  id: string;
  accountId: string;
  tokenId: string;
  senderName: string;
  notification: Notification & { target: string };
  status: NotificationStatus;
  reason: DropReason | null;
  createdAt: number;
  expiresAt: number;
  destinations: DestinationRecord[];
  handled: HandledEvent[];
}

export interface InboxPage {
  items: StoredNotification[];
  /** Present when more items follow the last one. */
  next: { createdAt: number; id: string } | undefined;
}
