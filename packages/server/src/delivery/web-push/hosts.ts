/**
 * The push services the server may connect to (`--web-push-hosts`): Apple's, Google's, Mozilla's
 * and Microsoft's. A subscription's endpoint must name one of them, so a registration cannot make
 * the server connect anywhere else (an address inside the operator's network, say).
 */
export const DEFAULT_PUSH_HOSTS = [
  '*.push.apple.com',
  'fcm.googleapis.com',
  '*.push.services.mozilla.com',
  '*.notify.windows.com',
] as const;

/** The default allowlist, parsed. */
export function defaultPushHosts(): PushHosts {
  const parsed = parsePushHosts(DEFAULT_PUSH_HOSTS.join(','));
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.hosts;
}

/** A `host`, `host:port` or `*.domain` pattern; a pattern without a port matches port 443 only. */
interface HostPattern {
  /** The host, lower case; for a wildcard, the domain its subdomains are under (with the dot). */
  host: string;
  wildcard: boolean;
  port: number;
}

const PATTERN =
  /^(\*\.)?([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)(?::(\d{1,5}))?$/;

/** The allowlist from its comma-separated text, or what is wrong with it. */
export function parsePushHosts(
  text: string,
): { ok: true; hosts: PushHosts } | { ok: false; problem: string } {
  const patterns: HostPattern[] = [];
  for (const part of text.split(',').map((item) => item.trim().toLowerCase())) {
    const match = PATTERN.exec(part);
    const port = Number(match?.[3] ?? 443);
    if (!match || port < 1 || port > 65_535) {
      return { ok: false, problem: `"${part}" is not a host, host:port or *.domain` };
    }
    patterns.push({ host: match[1] ? `.${match[2]}` : (match[2] as string), wildcard: !!match[1], port });
  }
  return { ok: true, hosts: new PushHosts(patterns) };
}

export class PushHosts {
  readonly #patterns: readonly HostPattern[];

  constructor(patterns: readonly HostPattern[]) {
    this.#patterns = patterns;
  }

  /** Whether an `https:` URL's host and port are on the list. */
  allows(url: URL): boolean {
    const host = url.hostname.toLowerCase();
    const port = url.port === '' ? 443 : Number(url.port);
    return this.#patterns.some(
      (pattern) =>
        pattern.port === port && (pattern.wildcard ? host.endsWith(pattern.host) : host === pattern.host),
    );
  }
}
