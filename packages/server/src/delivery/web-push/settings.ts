import { readCaFile } from '../../kernel/ca-certificates.js';
import type { Setting, SettingValues } from '../../kernel/settings.js';
import { settingName } from '../../kernel/settings.js';
import { DEFAULT_PUSH_HOSTS, type PushHosts, parsePushHosts } from './hosts.js';
import { vapidSubjectProblem } from './subject.js';

// Web Push's settings group: its rows of foxbell-server's settings table (config/ reads them
// through the registry), and the Web Push config they make.

export interface WebPushConfig {
  /** The VAPID `sub`; undefined: the project's page, which the process warns of outside dev mode. */
  subject: string | undefined;
  hosts: PushHosts;
  /** PEM certificates to trust besides Node's default ones (a push service behind a private CA). */
  ca: string | undefined;
}

/**
 * Without a subject of the operator's own, pushes say this: push services want a working address
 * (Apple's rejects a localhost one), and there is no good one to guess.
 */
export const DEFAULT_WEB_PUSH_SUBJECT = 'https://github.com/foxbell/foxbell';

export const WEB_PUSH_SETTINGS = {
  webPushSubject: {
    flag: 'web-push-subject',
    variable: 'FOXBELL_WEB_PUSH_SUBJECT',
    argument: 'URL',
    type: 'text',
    defaultText: `${DEFAULT_WEB_PUSH_SUBJECT}, with a warning`,
    help: 'how push services reach you about your Web Push (VAPID sub): mailto:you@example.com or an https:// page',
    check: vapidSubjectProblem,
  },
  webPushHosts: {
    flag: 'web-push-hosts',
    variable: 'FOXBELL_WEB_PUSH_HOSTS',
    argument: 'LIST',
    type: 'text',
    default: DEFAULT_PUSH_HOSTS.join(','),
    help: 'the push services Web Push subscriptions may name (host, host:port or *.domain, comma-separated); the server connects to no other',
  },
  webPushCa: {
    flag: 'web-push-ca',
    variable: 'FOXBELL_WEB_PUSH_CA',
    argument: 'FILE',
    type: 'text',
    help: 'PEM certificates to trust for push services, besides the usual ones: a self-hosted push service behind a private CA',
  },
} as const satisfies Record<string, Setting>;

/** The group's values as a config, or undefined with the problems said. */
export function webPushConfigOf(
  values: SettingValues<typeof WEB_PUSH_SETTINGS>,
  problems: string[],
): WebPushConfig | undefined {
  const hosts = parsePushHosts(values.webPushHosts);
  if (!hosts.ok) problems.push(`${settingName(WEB_PUSH_SETTINGS.webPushHosts)}: ${hosts.problem}`);
  const ca = values.webPushCa === undefined ? undefined : readCaFile(values.webPushCa);
  if (ca !== undefined && 'problem' in ca) {
    problems.push(`${settingName(WEB_PUSH_SETTINGS.webPushCa)}: ${ca.problem}`);
  }
  if (!hosts.ok || (ca !== undefined && 'problem' in ca)) return undefined;
  return { subject: values.webPushSubject, hosts: hosts.hosts, ca: ca?.pem };
}
