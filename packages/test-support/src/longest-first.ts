import { stat } from 'node:fs/promises';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** A file that starts processes of some kind (a server, a browser, a container build). */
const STARTS_PROCESSES = /\.process\./;

/**
 * The order files start in, across every project: the longest first, so that a run on two
 * workers does not end with one worker alone on a long file. vitest's own order goes project by
 * project (`start`'s files last of all, whatever their length), and longest first only within one.
 * The length is that of the file's last run (vitest's results cache); a file that has none yet (a
 * fresh clone, as in CI) goes first, files that start processes before those that do not, larger
 * before smaller.
 */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const lastRun = (spec: TestSpecification) => this.ctx.cache.getTestSpecificationResult(spec)?.duration;
    const sizes = new Map(
      await Promise.all(
        files.map(async (spec) => [spec.moduleId, (await stat(spec.moduleId)).size] as const),
      ),
    );
    const unknownRank = (spec: TestSpecification) =>
      [STARTS_PROCESSES.test(spec.moduleId) ? 0 : 1, -(sizes.get(spec.moduleId) ?? 0)] as const;
    return [...files].sort((a, b) => {
      const [durationA, durationB] = [lastRun(a), lastRun(b)];
      if (durationA !== undefined && durationB !== undefined) return durationB - durationA;
      if (durationA !== undefined) return 1;
      if (durationB !== undefined) return -1;
      const [rankA, rankB] = [unknownRank(a), unknownRank(b)];
      return rankA[0] - rankB[0] || rankA[1] - rankB[1];
    });
  }
}
