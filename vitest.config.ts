import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The longest files start first so that the two workers finish together (a fresh clone has no timing cache).
const LONGEST_FIRST = ['fuzz.test.ts', 'refinements.test.ts', 'cli.test.ts', 'corpus.test.ts', 'adjoint-snapshot.test.ts'];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.findIndex((name) => f.moduleId.endsWith(`/test/${name}`));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    const sorted = await super.sort(files);
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  }
}

export default defineConfig({
  test: {
    testTimeout: 120_000,
    include: ['test/**/*.test.ts'],
    // Vitest's default outside watch mode is one worker fewer than the cores: a single worker on 2 cores
    maxWorkers: 2,
    sequence: { sequencer: LongestFirst },
  },
});
