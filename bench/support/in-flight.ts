/** Calls `each` on every item, in order, with at most `inFlight` calls unanswered at a time. */
export async function eachInFlight<T>(
  items: readonly T[],
  inFlight: number,
  each: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < items.length) await each(items[next++] as T);
    }),
  );
}
