/**
 * What every process mode of `foxbell-server` does with its signals, written once: SIGTERM and
 * SIGINT stop it gracefully, once however often they come, and exit 1 if the stop outlives its
 * grace; SIGHUP reads again what the process can read again, and never stops it (SIGHUP's
 * default). Only this module (main/) touches signals and exit codes.
 */

/** How long a graceful stop waits for requests in flight before it closes anyway. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** How long it then waits for pushes in flight; those still out go back to the queue. */
export const DELIVERY_GRACE_MS = 5_000;

export interface Lifecycle {
  /** Stops what the process runs, in order; the process exits 0 once it resolves. */
  stop(signal: NodeJS.Signals): Promise<void>;
  /** What SIGHUP does. */
  reload(): void;
  /** Said when the stop outlives its grace, before the process exits 1. */
  onOvertime?: () => void;
  /** How long the stop serves on, not ready, before it begins (`--drain-seconds`): added to its grace. */
  drainMs?: number;
}

/** Installs the signal handlers; returns whether a stop has begun (what `/readyz` reports). */
export function handleSignals(lifecycle: Lifecycle): { stopping(): boolean } {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const grace = setTimeout(
      () => {
        lifecycle.onOvertime?.();
        process.exit(1);
      },
      (lifecycle.drainMs ?? 0) + SHUTDOWN_GRACE_MS + DELIVERY_GRACE_MS,
    );
    grace.unref();
    lifecycle.stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`foxbell-server: stopping failed: ${(error as Error).stack ?? String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => lifecycle.reload());
  return { stopping: () => stopping };
}
