import type { PushProvider } from '../delivery/provider.js';

// What the interface's document says of the push providers, from the providers themselves: the
// values of a device's `transport`, and what its `stale` and readiness's `push` mean.

/** The values a device's `transport` takes: each provider's that names itself, in the registry's order. */
export function transportsShown(providers: readonly PushProvider[]): string[] {
  return providers.flatMap((provider) => provider.registration.shownAs ?? []);
}

/** What a device's `transport` says, and for which devices it is absent. */
export function transportDescription(providers: readonly PushProvider[]): string {
  const shown = providers.filter((provider) => provider.registration.shownAs !== undefined);
  const unnamed = providers.filter((provider) => provider.registration.shownAs === undefined);
  const names = shown.map((provider) => `${provider.registration.shownAs} (${provider.title})`);
  return `The push provider that reaches the device: ${names.join(', ')}.${
    unnamed.length === 0 ? '' : ` Absent for ${unnamed.map((provider) => provider.title).join(' and ')}.`
  }`;
}

/** What a device's `stale` says: only a device of a provider whose push service may drop it is. */
export function staleDescription(providers: readonly PushProvider[]): string {
  const quiet = providers.filter((provider) => provider.goesQuiet).map((provider) => provider.title);
  return `A ${quiet.length === 0 ? '' : `${quiet.join(' or ')} `}device not seen for the server's --device-stale-days (30 by default): its subscription may be gone without a word.`;
}

/** What readiness's `push` says: each provider's state, by its id. */
export function pushStatesDescription(providers: readonly PushProvider[]): string {
  const ids = providers.map((provider) => provider.id).join(', ');
  return `A process that delivers: each push provider by its id (${ids}): ok; refused (its push service refuses the credential now, its pushes wait); simulator (the built-in simulator stands in for its push service: no real device gets them).`;
}
