// Replays every shrunk fuzz failure saved under test/fuzz/regressions/ (by `npm run fuzz -- --count N --seed S`).
// Kept apart from the fixed-seed run in fuzz.test.ts so that the two run in parallel.
//
// Regressions that still fail are listed in KNOWN_FAILING (test/fuzz/known-failing.ts) with the bug they show
// and run as `it.fails`, so the suite stays green; when a fix makes one pass, its `it.fails` fails: delete its entry.
import { beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_FAILING } from './fuzz/known-failing.js';
import { FuzzWorker, listRegressions, replayRegressions, type ProgramResult } from './fuzz/harness.js';

const regressions = listRegressions();

describe('fuzz: saved regressions', () => {
  let results: Map<string, ProgramResult>;
  beforeAll(async () => {
    const worker = await FuzzWorker.create();
    try {
      results = await replayRegressions(regressions, worker);
    } finally {
      await worker.close();
    }
  }, 300_000);
  it('has a file pair for every listed known failure', () => {
    for (const name of Object.keys(KNOWN_FAILING)) expect(regressions.map((r) => r.name)).toContain(name);
  });
  for (const reg of regressions) {
    const test = KNOWN_FAILING[reg.name] ? it.fails : it;
    test(`${reg.name} (${reg.meta.prop})`, () => {
      const r = results.get(reg.name)!;
      expect(r.findings.map((f) => `${f.prop}: ${f.message} ${f.observed ?? ''} ${f.expected ?? ''}`)).toEqual([]);
    });
  }
});
