import { readCaFile } from '../../kernel/ca-certificates.js';
import type { Setting, SettingValues } from '../../kernel/settings.js';
import { settingName } from '../../kernel/settings.js';
import { APNS_PRODUCTION_URL, APNS_SANDBOX_URL } from './endpoints.js';
import type { ApnsTopics } from './push-request.js';

// APNs's settings group: its rows of foxbell-server's settings table (config/ reads them through
// the registry), and the APNs config they make.

/** Where pushes go: the simulator inside the process, or an APNs endpoint with a `.p8` key. */
export type ApnsConfig =
  | {
      kind: 'sim';
      /** Where its control API listens (on 127.0.0.1), when it is on: with --dev, or asked for. */
      control: { port: number } | undefined;
      topics: ApnsTopics;
    }
  | {
      kind: 'remote';
      url: string;
      /** PEM certificates to trust besides Node's default ones (a standalone simulator's). */
      ca: string | undefined;
      keyFile: string;
      keyId: string;
      teamId: string;
      topics: ApnsTopics;
    };

/** The iPhone app's bundle id when none is given: Foxbell's own app. */
const DEFAULT_TOPIC = 'app.foxbell.Foxbell';

export const APNS_SETTINGS = {
  apns: {
    flag: 'apns',
    variable: 'FOXBELL_APNS',
    argument: 'MODE',
    type: 'choice',
    choices: ['sim', 'production', 'sandbox'],
    defaultText: 'sim',
    help: 'sim (the built-in simulator), production or sandbox',
  },
  apnsUrl: {
    flag: 'apns-url',
    variable: 'FOXBELL_APNS_URL',
    argument: 'URL',
    type: 'text',
    help: 'an APNs endpoint of your own, e.g. a standalone simulator',
    check: (url: string) =>
      /^https?:\/\/[^/]+\/?$/.test(url) ? undefined : `must be an http:// or https:// origin, not "${url}"`,
  },
  apnsCa: {
    flag: 'apns-ca',
    variable: 'FOXBELL_APNS_CA',
    argument: 'FILE',
    type: 'text',
    help: 'PEM certificates to trust for --apns-url, besides the usual ones',
  },
  apnsKeyFile: {
    flag: 'apns-key-file',
    variable: 'FOXBELL_APNS_KEY_FILE',
    argument: 'F',
    type: 'text',
    help: 'the .p8 key of token-based authentication',
  },
  apnsKeyId: {
    flag: 'apns-key-id',
    variable: 'FOXBELL_APNS_KEY_ID',
    argument: 'ID',
    type: 'text',
    help: 'its key id',
  },
  apnsTeamId: {
    flag: 'apns-team-id',
    variable: 'FOXBELL_APNS_TEAM_ID',
    argument: 'ID',
    type: 'text',
    help: 'the team id',
  },
  apnsTopic: {
    flag: 'apns-topic',
    variable: 'FOXBELL_APNS_TOPIC',
    argument: 'BUNDLE',
    type: 'text',
    default: DEFAULT_TOPIC,
    help: "the iPhone app's bundle id",
  },
  apnsTopicWatch: {
    flag: 'apns-topic-watch',
    variable: 'FOXBELL_APNS_TOPIC_WATCH',
    argument: 'B',
    type: 'text',
    defaultText: 'BUNDLE.watchkitapp',
    help: "the watch app's",
  },
  apnsTopicVision: {
    flag: 'apns-topic-vision',
    variable: 'FOXBELL_APNS_TOPIC_VISION',
    argument: 'B',
    type: 'text',
    defaultText: 'BUNDLE',
    help: "the visionOS app's",
  },
  apnsSimControl: {
    flag: 'apns-sim-control',
    variable: 'FOXBELL_APNS_SIM_CONTROL',
    type: 'switch',
    help: "serve the built-in simulator's control API (every push it took; on with --dev): any local user can read it",
  },
  apnsSimControlPort: {
    flag: 'apns-sim-control-port',
    variable: 'FOXBELL_APNS_SIM_CONTROL_PORT',
    argument: 'N',
    type: 'integer',
    min: 0,
    max: 65_535,
    defaultText: '0, any free port',
    help: "the simulator's control API's port, on 127.0.0.1",
  },
} as const satisfies Record<string, Setting>;

export function apnsConfigOf(
  values: SettingValues<typeof APNS_SETTINGS>,
  problems: string[],
  server: { dev: boolean },
): ApnsConfig {
  const topics: ApnsTopics = {
    ios: values.apnsTopic,
    watchos: values.apnsTopicWatch ?? `${values.apnsTopic}.watchkitapp`,
    visionos: values.apnsTopicVision ?? values.apnsTopic,
  };
  const url = values.apnsUrl;
  const mode = values.apns ?? (url === undefined ? 'sim' : undefined);
  if (values.apns !== undefined && url !== undefined) problems.push('give --apns or --apns-url, not both');
  if (mode === 'sim') {
    // The control API reads every account's pushes: on in dev mode, else only when asked for.
    const controlOn = values.apnsSimControl || server.dev;
    if (!controlOn && values.apnsSimControlPort !== undefined) {
      problems.push(`${settingName(APNS_SETTINGS.apnsSimControlPort)} needs --apns-sim-control (or --dev)`);
    }
    return {
      kind: 'sim',
      control: controlOn ? { port: values.apnsSimControlPort ?? 0 } : undefined,
      topics,
    };
  }
  const required = (name: 'apnsKeyFile' | 'apnsKeyId' | 'apnsTeamId'): string => {
    const value = values[name];
    if (value === undefined) problems.push(`${settingName(APNS_SETTINGS[name])} is required to push to APNs`);
    return value ?? '';
  };
  const ca = values.apnsCa === undefined ? undefined : readCaFile(values.apnsCa);
  if (ca !== undefined && 'problem' in ca)
    problems.push(`${settingName(APNS_SETTINGS.apnsCa)}: ${ca.problem}`);
  return {
    kind: 'remote',
    url: url ?? (mode === 'sandbox' ? APNS_SANDBOX_URL : APNS_PRODUCTION_URL),
    ca: ca !== undefined && 'pem' in ca ? ca.pem : undefined,
    keyFile: required('apnsKeyFile'),
    keyId: required('apnsKeyId'),
    teamId: required('apnsTeamId'),
    topics,
  };
}
