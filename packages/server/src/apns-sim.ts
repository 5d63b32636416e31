import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DEFAULT_HISTORY } from './apns/push-history.js';
import { ApnsSimulator, type SimulatorKey } from './apns/simulator.js';
import { buildSimulatorControl } from './apns/simulator-control.js';

const USAGE = `Usage: foxbell-apns-sim [options]

  --port N            the HTTP/2 port for pushes; 0 picks a free one (default 0)
  --host HOST         address the HTTP/2 port listens on (default 127.0.0.1)
  --control-port N    the control API's port (HTTP/1.1 JSON; default 0), always on 127.0.0.1
  --history N         pushes remembered in all (default 10000; 100 per push token)
  --cleartext         h2c instead of TLS
  --ca-out FILE       write the certificate clients must trust to FILE (for --apns-ca)
  --key-file F        a .p8 key whose tokens to accept (more via POST /v1/keys)
  --key-id ID         its key id
  --team-id ID        its team id
  --strict-tokens     only push tokens registered through PUT /v1/tokens/{token} are known
  --help              print this and exit
`;

/** The APNs simulator as a process of its own; see docs/apns-simulator.md. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      'control-port': { type: 'string', default: '0' },
      cleartext: { type: 'boolean' },
      'ca-out': { type: 'string' },
      'key-file': { type: 'string' },
      'key-id': { type: 'string' },
      'team-id': { type: 'string' },
      'strict-tokens': { type: 'boolean' },
      history: { type: 'string', default: String(DEFAULT_HISTORY.total) },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const port = (flag: 'port' | 'control-port') => {
    const value = Number(values[flag]);
    if (!/^\d+$/.test(values[flag]) || value > 65_535) throw new Error(`--${flag} must be a port number`);
    return value;
  };
  const history = () => {
    if (!/^[1-9]\d{0,8}$/.test(values.history)) throw new Error('--history must be a whole number from 1');
    return Number(values.history);
  };
  const keys: SimulatorKey[] = [];
  if (values['key-file'] !== undefined) {
    if (values['key-id'] === undefined || values['team-id'] === undefined) {
      throw new Error('--key-file needs --key-id and --team-id');
    }
    keys.push({
      keyId: values['key-id'],
      teamId: values['team-id'],
      keyPem: await readFile(values['key-file'], 'utf8'),
    });
  }
  const simulator = await ApnsSimulator.start({
    port: port('port'),
    host: values.host,
    cleartext: values.cleartext ?? false,
    strictTokens: values['strict-tokens'] ?? false,
    keys,
    history: { perDevice: DEFAULT_HISTORY.perDevice, total: history() },
  });
  if (values['ca-out'] !== undefined && simulator.ca !== undefined)
    await writeFile(values['ca-out'], simulator.ca);
  const control = buildSimulatorControl(simulator);
  // The control API reads every push and scripts answers: this machine only, whatever --host says.
  const controlUrl = await control.listen({ port: port('control-port'), host: '127.0.0.1' });
  const stop = async () => {
    await control.close();
    await simulator.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  process.stdout.write(`foxbell-apns-sim control API on ${controlUrl}\n`);
  process.stdout.write(`foxbell-apns-sim listening on ${simulator.url}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`foxbell-apns-sim: ${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
});
