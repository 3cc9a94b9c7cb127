// Random-program testing (issue "Trust"): a fixed-seed run of generated programs through every
// property (test/fuzz/checks.ts, test/fuzz/harness.ts). The saved regressions replay in fuzz-regressions.test.ts.
//
// Failures of the fixed-seed run whose signature (property + message) matches a known-failing
// regression are printed but tolerated; any other failure fails the test.
import { describe, expect, it } from 'vitest';
import { PROPS, signature, type Finding } from './fuzz/checks.js';
import { coverageTable, impossibleSeen, MIN_PER_CELL, underCovered } from './fuzz/coverage.js';
import { listRegressions, runCampaign, type CampaignReport } from './fuzz/harness.js';
import { KNOWN_FAILING } from './fuzz/known-failing.js';

const SEED = 20_240_611;
const COUNT = Number(process.env.TSAD_FUZZ_COUNT ?? 400);

const regressions = listRegressions();
const knownSignatures = new Set(
  regressions.filter((r) => KNOWN_FAILING[r.name]).map((r) => signature({ prop: r.meta.prop, message: r.meta.message })),
);
/** a failure of the fixed-seed run that a known bug explains (a dot-product failure at a point flagged near a kink matches any known dot-product bug) */
const isKnown = (f: Finding) =>
  knownSignatures.has(signature(f)) || (f.prop === 'dot' && f.message.includes('near a kink') && [...knownSignatures].some((k) => k.startsWith('dot:')));

describe('fuzz: random programs', () => {
  let r: CampaignReport;
  it(`${COUNT} generated programs (seed ${SEED}) satisfy every property`, async () => {
    r = await runCampaign({ seed: SEED, count: COUNT });
    const tolerated = r.failures.filter((f) => isKnown(f.finding));
    const fresh = r.failures.filter((f) => !isKnown(f.finding));
    console.log(
      `fuzz: ${r.programs} programs, ${r.totalChecks} checks (${PROPS.filter((p) => r.checks[p]).map((p) => `${p} ${r.checks[p]}`).join(', ')}) ` +
        `in ${(r.ms / 1000).toFixed(1)} s; ${r.unstable} unstable points resampled; ${tolerated.length} known-bug failures tolerated`,
    );
    for (const f of tolerated) console.log(`  known bug in program #${f.index}: ${f.finding.prop}: ${f.finding.message.slice(0, 160)}`);
    expect(r.programs).toBe(COUNT);
    // the block Jacobians are exercised, not only their colouring fallback (38 of 77 `fb` go by blocks at this seed)
    if (COUNT >= 400) expect(r.checks.blocks ?? 0).toBeGreaterThanOrEqual(20);
    const show = fresh.map((f) => `program #${f.index} [${f.prop}] ${f.finding.message}\n${f.finding.observed ? `observed: ${f.finding.observed}\nexpected: ${f.finding.expected}\n` : ''}${f.source}`);
    // to shrink and save them: npm run fuzz -- --count <COUNT> --seed <SEED>
    expect(show).toEqual([]);
  }, 1_200_000); // (about 60-90 s alone on 2 cores; a loaded machine stretches it several times)
  // every form × type class × reference effect × loop strategy the front end accepts (test/fuzz/coverage.ts)
  // is produced at least MIN_PER_CELL times by the fixed-seed run (not checked on a shorter run)
  it.runIf(COUNT >= 400)(`the ${COUNT} programs cover every accepted cell at least ${MIN_PER_CELL} times`, () => {
    expect(r, 'the fixed-seed run did not finish').toBeDefined();
    const under = underCovered(r.coverage).map(({ cell, n }) => `${cell.form} × ${cell.type} × ${cell.effect} × ${cell.strategy}: ${n}`);
    if (under.length) console.log(coverageTable(r.coverage));
    expect(impossibleSeen(r.coverage)).toEqual([]);
    expect(under).toEqual([]);
  });
});
