import { isIP } from 'node:net';
import { isPublicAddress } from './address-guard.js';

/**
 * Why a push service would reject this VAPID subject (RFC 8292's `sub`), or undefined. Apple's
 * responds to every push signed with a subject on this machine with `403 BadJwtToken`, and the pushes never
 * arrive: a `mailto:` or `https:` address of a real, public host is the only kind that works, so
 * anything else stops the server at start rather than fail every push later.
 */
export function vapidSubjectProblem(subject: string): string | undefined {
  const mailto = /^mailto:[^@\s]+@([^@\s]+)$/.exec(subject);
  const url = mailto ? undefined : URL.parse(subject);
  if (!mailto && url?.protocol !== 'https:') {
    return `must be mailto:an@address or an https:// URL, not "${subject}"`;
  }
  const host = (mailto?.[1] ?? url?.hostname ?? '').toLowerCase().replace(/^\[|\]$/g, '');
  if (!host) return `must name a host, not "${subject}"`;
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local')) {
    return `must not point at this machine or its network: push services refuse "${subject}" (Apple's: 403 BadJwtToken)`;
  }
  if (isIP(host) !== 0) {
    return isPublicAddress(host)
      ? undefined
      : `must not point at this machine or its network: push services refuse "${subject}" (Apple's: 403 BadJwtToken)`;
  }
  if (!host.includes('.')) {
    return `must be a public address with a domain, not "${subject}": push services refuse a host without one`;
  }
  return undefined;
}
