import type { ProviderEntry } from '../provider.js';
import { WEB_PUSH_SETTINGS, type WebPushConfig, webPushConfigOf } from './settings.js';

/** The provider's id, stored with each device it reaches. */
export const WEB_PUSH = 'web-push';

/** Web Push as the registry lists it: its settings (`--web-push*`), and its code, loaded when a process makes it. */
export const webPush: ProviderEntry<typeof WEB_PUSH_SETTINGS, WebPushConfig> = {
  id: WEB_PUSH,
  title: 'Web Push',
  member: 'web_push',
  shownAs: 'web_push',
  settings: WEB_PUSH_SETTINGS,
  configOf: webPushConfigOf,
  load: async () => (await import('./provider.js')).webPushMaker,
};
