import { nextUtcMonthStart } from '@foxbell/sdk/server-contract';

/** The time source of the server. Injected, so windows, expiries and retention are tested exactly. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** `YYYY-MM-DDTHH:MM:SS.mmmZ`, the one timestamp form of the interface. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** A wait as `Retry-After` says it: whole seconds, rounded up, at least one. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** The last month `utcMonth` named: every send asks, and nearly always for the same one. */
let lastMonth = { start: 0, end: 0, name: '' };

/** `YYYY-MM` of the UTC month holding `ms`: the key of the monthly quota. */
export function utcMonth(ms: number): string {
  if (ms >= lastMonth.start && ms < lastMonth.end) return lastMonth.name;
  const date = new Date(ms);
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  lastMonth = { start, end: nextUtcMonthStart(ms), name: date.toISOString().slice(0, 7) };
  return lastMonth.name;
}
