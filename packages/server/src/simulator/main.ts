import { readFile, writeFile } from 'node:fs/promises';
import {
  readSettings,
  type Setting,
  type SettingValues,
  settingsErrors,
  usageOf,
} from '../kernel/settings.js';
import { buildSimulatorControl } from './control.js';
import { DEFAULT_HISTORY } from './push-history.js';
import { ApnsSimulator, type SimulatorKey } from './simulator.js';

/** Every setting of `foxbell-apns-sim`, once. */
const APNS_SIM_SETTINGS = {
  port: {
    flag: 'port',
    argument: 'N',
    type: 'integer',
    min: 0,
    max: 65_535,
    default: 0,
    help: 'the HTTP/2 port for pushes; 0 picks a free one',
  },
  host: {
    flag: 'host',
    argument: 'HOST',
    type: 'text',
    default: '127.0.0.1',
    help: 'address the HTTP/2 port listens on',
  },
  controlPort: {
    flag: 'control-port',
    argument: 'N',
    type: 'integer',
    min: 0,
    max: 65_535,
    default: 0,
    help: "the control API's port (HTTP/1.1 JSON), always on 127.0.0.1",
  },
  history: {
    flag: 'history',
    argument: 'N',
    type: 'integer',
    min: 1,
    max: 999_999_999,
    default: DEFAULT_HISTORY.total,
    help: `pushes remembered in all, ${DEFAULT_HISTORY.perDevice} per push token`,
  },
  cleartext: { flag: 'cleartext', type: 'switch', help: 'h2c instead of TLS' },
  caOut: {
    flag: 'ca-out',
    argument: 'FILE',
    type: 'text',
    help: 'write the certificate clients must trust to FILE (for --apns-ca)',
  },
  keyFile: {
    flag: 'key-file',
    argument: 'F',
    type: 'text',
    help: 'a .p8 key whose tokens to accept (more via POST /v1/keys)',
  },
  keyId: { flag: 'key-id', argument: 'ID', type: 'text', help: 'its key id' },
  teamId: { flag: 'team-id', argument: 'ID', type: 'text', help: 'its team id' },
  roundTrip: {
    flag: 'round-trip-ms',
    argument: 'MS',
    type: 'integer',
    min: 0,
    max: 10_000,
    default: 0,
    help: "hold every response this long, as Apple's servers across a network would",
  },
  strictTokens: {
    flag: 'strict-tokens',
    type: 'switch',
    help: 'only push tokens registered through PUT /v1/tokens/{token} are known',
  },
} as const satisfies Record<string, Setting>;

const USAGE = usageOf('Usage: foxbell-apns-sim [options]', APNS_SIM_SETTINGS);

/** The provider key to accept, when --key-file names one; a problem when its ids are missing. */
function simulatorKeyOf(
  values: SettingValues<typeof APNS_SIM_SETTINGS>,
  problems: string[],
): { keyFile: string; keyId: string; teamId: string } | undefined {
  const { keyFile, keyId, teamId } = values;
  if (keyFile === undefined) return undefined;
  if (keyId === undefined || teamId === undefined) {
    problems.push('--key-file needs --key-id and --team-id');
    return undefined;
  }
  return { keyFile, keyId, teamId };
}

/** The APNs simulator as a process of its own; see docs/apns-simulator.md. */
async function main(): Promise<void> {
  const read = readSettings(APNS_SIM_SETTINGS, process.argv.slice(2), {});
  if (read.ok === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (!read.ok) return exitWithProblems(read.problems);
  const { values, problems } = read;
  const key = simulatorKeyOf(values, problems);
  if (problems.length > 0) return exitWithProblems(problems);
  const keys: SimulatorKey[] = key ? [{ ...key, keyPem: await readFile(key.keyFile, 'utf8') }] : [];
  const simulator = await ApnsSimulator.start({
    port: values.port,
    host: values.host,
    cleartext: values.cleartext,
    strictTokens: values.strictTokens,
    roundTripMs: values.roundTrip,
    keys,
    history: { perDevice: DEFAULT_HISTORY.perDevice, total: values.history },
  });
  if (values.caOut !== undefined && simulator.ca !== undefined) await writeFile(values.caOut, simulator.ca);
  const control = buildSimulatorControl(simulator);
  // The control API reads every push and scripts responses: this machine only, whatever --host says.
  const controlUrl = await control.listen({ port: values.controlPort, host: '127.0.0.1' });
  const stop = async () => {
    await control.close();
    await simulator.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // Nothing to read again; SIGHUP must not stop it (its default).
  process.on('SIGHUP', () => process.stderr.write('foxbell-apns-sim: SIGHUP: nothing to read again\n'));
  process.stdout.write(`foxbell-apns-sim control API on ${controlUrl}\n`);
  process.stdout.write(`foxbell-apns-sim listening on ${simulator.url}\n`);
}

/** Settings it cannot take: each problem, and where the settings are described; exit 2. */
function exitWithProblems(problems: string[]): never {
  process.stderr.write(settingsErrors('foxbell-apns-sim', problems));
  process.exit(2);
}

// A start that failed with good settings (a port in use, a key file that cannot be read).
main().catch((error: unknown) => {
  process.stderr.write(`foxbell-apns-sim: ${(error as Error).message}\n`);
  process.exit(1);
});
