/**
 * The median of `values`: the middle one, or the mean of the two middle ones. Of no values it is
 * NaN (null in a bench's JSON line), not 0: a side that did not run has no figure.
 */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
