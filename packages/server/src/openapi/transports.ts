import type { PushProvider } from '../delivery/provider.js';

// A device's `transport` in the interface's document, from the providers: the name each provider
// that names itself shows (Web Push's `web_push`); a device of another shows none.

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
