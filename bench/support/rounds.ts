import { median } from './stats.js';

/** One side of a bench: one timed run of it in round `round`, as a figure in the bench's unit. */
export type Run = (round: number) => Promise<number> | number;

/**
 * Runs every side once a round, `rounds` times, after an untimed round 0 (so that no side is timed
 * while V8 still compiles it). The order turns each round: with two sides each goes first every
 * other round, so that neither always gets this machine's better moments or the garbage the other
 * left (its speed moves by half within minutes). Every round is printed as it ends.
 *
 * `BENCH_ONLY=<side>` runs that side alone, to profile it; the others' lists stay empty.
 */
export async function alternatingRounds<S extends string>(
  rounds: number,
  sides: Record<S, Run>,
  show: (value: number) => string = (value) => value.toFixed(0),
): Promise<Record<S, number[]>> {
  const only = process.env.BENCH_ONLY;
  const names = (Object.keys(sides) as S[]).filter((name) => only === undefined || name === only);
  if (names.length === 0)
    throw new Error(`BENCH_ONLY=${only} names no side: ${Object.keys(sides).join(', ')}`);
  const results = Object.fromEntries(Object.keys(sides).map((name) => [name, [] as number[]])) as Record<
    S,
    number[]
  >;
  for (let round = 0; round <= rounds; round++) {
    const order = names.map((_, index) => names[(index + round) % names.length] as S);
    const figures = new Map<S, number>();
    for (const name of order) figures.set(name, await sides[name](round));
    if (round === 0) continue;
    for (const [name, figure] of figures) results[name].push(figure);
    console.log(
      `round ${round}: ${names.map((name) => `${name} ${show(figures.get(name) as number)}`).join(', ')} (${order[0]} first)`,
    );
  }
  return results;
}

/**
 * The bench's last line. `value` and `baseline` are the medians of each side's rounds; `ratio` is
 * the median of the rounds' own ratios, each taken between runs seconds apart, which cancels most
 * of the machine's drift. Every round's ratio is printed before it.
 */
export function printResult(bench: string, unit: string, ours: number[], theirs: number[], digits = 0): void {
  const round = (value: number) => Number(value.toFixed(digits));
  // A side alone (BENCH_ONLY): each in its own place, the side not run as null, and no ratio.
  const alone = theirs.length === 0 || ours.length === 0;
  const ratio = alone ? null : printRatios('ratio', ours, theirs);
  console.log(
    JSON.stringify({
      bench,
      value: round(median(ours)),
      unit,
      baseline: round(median(theirs)),
      ratio,
    }),
  );
}

/** Prints each round's ratio of two sides and their median, and returns that median (to 3 places). */
export function printRatios(what: string, ours: number[], theirs: number[]): number {
  if (ours.length === 0 || theirs.length === 0) return Number.NaN;
  const ratios = ours.map((figure, index) => figure / (theirs[index] as number));
  const middle = Math.round(median(ratios) * 1000) / 1000;
  console.log(`${what}: median ${middle}, per round ${ratios.map((each) => each.toFixed(3)).join(', ')}`);
  return middle;
}
