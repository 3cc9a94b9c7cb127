// Random-program testing (issue "Trust"): a fixed-seed run of generated programs through every
// property (test/fuzz/checks.ts, test/fuzz/harness.ts), and a replay of every shrunk failure saved
// under test/fuzz/regressions/ by `npm run fuzz -- --count N --seed S` (test/fuzz/run.ts).
//
// Regressions that still fail are listed in KNOWN_FAILING with the bug they show and run as `it.fails`,
// so the suite stays green; when a fix makes one pass, its `it.fails` fails: delete its entry.
// Failures of the fixed-seed run whose signature (property + message) matches a known-failing
// regression are printed but tolerated; any other failure fails the test.
import { beforeAll, describe, expect, it } from 'vitest';
import { PROPS, signature, type Finding } from './fuzz/checks.js';
import { FuzzWorker, listRegressions, replayRegressions, runCampaign, type ProgramResult } from './fuzz/harness.js';

const SEED = 20_240_611;
const COUNT = Number(process.env.TSAD_FUZZ_COUNT ?? 300);

const KNOWN_FAILING: Record<string, string> = {
  // BUG: tangent — after `x = <passive value>` and a passive update of x (`x **= 2`, `x += 1`) in a
  // branch, f_d keeps the incoming ẋ instead of 0 (minimal: `if (y > 0) { x = 0.5; x += 1; } return x;`)
  'dot-5930bd8c': 'tangent not reset after a passive assignment followed by a passive update',
  'dot-88ff87b4': 'tangent not reset after a passive assignment followed by a passive update',
  'dot-823d7851': 'tangent not reset after a passive assignment followed by a passive update',
  'dot-36cebc0e': 'tangent not reset after a passive assignment followed by a passive update',
  'dot-0803d501': 'tangent not reset after a passive assignment followed by a passive update',
  // BUG: tangent — overwriting an element of an array parameter with a passive value does not zero its
  // tangent: in a callee (`function g(out: number[]) { out[0] = 0.5; }`: g_d leaves outd[0], the caller's
  // ȧ[0] survives) and in the head (`function f(x: number, out: number[]): void { out[0] = 0.5; }`)
  'dot-adcc321a': 'callee overwriting an array element with a passive value keeps its tangent',
  'dot-handmade-head-passive-write': 'overwriting an array element with a passive value keeps its tangent',
  // BUG: adjoint — `a[i] = <expression reading a[i] with a conditional>` (also `a[i] += c ? x : k`,
  // `m[i][j] += …`, Float64Array elements, object fields `p.u = c ? Math.sin(p.u) : k`) accumulates into
  // ab[i] in place and then zeroes it (minimal: `a[0] += x < 5 ? x : 0.5`)
  'dot-14f01190': 'adjoint of an object-field update whose right side has a conditional',
  'dot-17b1a6e4': 'adjoint of an array-element update whose right side has a conditional',
  'dot-3bb9f639': 'adjoint of an array-element update whose right side has a conditional',
  'dot-c8e6ae6c': 'adjoint of an array-element update whose right side has a conditional',
  'dot-5163d1ff': 'adjoint of an array-element update whose right side has a conditional',
  'dot-48162217': 'adjoint of an array-element update whose right side has a conditional',
  // BUG: adjoint — the adjoint of an active entry of a nested array literal argument (`g([[0.5, y], [1, 2]])`)
  // is never propagated back to y (dot-handmade-… is hand-minimized)
  'dot-handmade-matrix-literal': 'adjoint of a nested array literal argument dropped',
  'dot-31f7ca65': 'adjoint of a nested array literal argument dropped',
  // BUG: primal — `Math.hypot(...a)` is rewritten as a loop of two-argument hypot calls, which is not
  // bit-identical to the n-ary Math.hypot (in the primal copy and in f_d / f_dv)
  'primal-20382a29': 'Math.hypot(...a) not bit-identical',
  'primal-e00a111d': 'Math.hypot(...a) not bit-identical',
  'modes-primal-5fa87780': 'Math.hypot(...a) not bit-identical',
  'modes-primal-716cce5f': 'Math.hypot(...a) not bit-identical',
  'primal-f652b14a': 'Math.hypot(...a) not bit-identical',
  'primal-8601b7f0': 'Math.hypot(...a) not bit-identical',
  'modes-primal-47f6c958': 'Math.hypot(...a) not bit-identical',
  // BUG: primal — a call is hoisted above an earlier read of an array it writes: `a[0] + x * g(a)` reads
  // a[0] after g(a) has changed it (primal copy and every mode)
  'modes-primal-c48c1851': 'call hoisted above an earlier read of an array the callee writes',
  'modes-primal-7df3bd53': 'call hoisted above an earlier read of an array the callee writes',
  'primal-69a9b688': 'call hoisted above an earlier read of an array the callee writes',
  // BUG: tangent and adjoint — a call in a loop condition (`while (k < 1 && 0.25 < g(a))`) is left as a
  // call of the primal g: what it writes into an active array gets no derivative in any mode
  'tangent-1d1a5310': 'call in a loop condition not differentiated',
  'tangent-6be1d82e': 'call in a loop condition not differentiated',
  // BUG: adjoint — with an early return inside a do…while, f_fwd calls g_fwd for an inactive call
  // (`let s = g(0.25)`) but g_fwd is never generated: ReferenceError at run time, tsc "Cannot find name"
  'runtime-1307e13a': 'f_fwd calls an undefined g_fwd',
  // BUG: tsc — vector mode passes `zerosLike(arg, nbdirs)` for an object-literal argument; its static
  // type is P (numbers), not the derivative type with Float64Array fields
  'tsc-bb0c22a0': 'vector-mode zerosLike(objectLiteral) has the primal type',
  'tsc-50a3f281': 'vector-mode zerosLike(objectLiteral) has the primal type',
  'tsc-8d5229d3': 'vector-mode zerosLike(objectLiteral) has the primal type',
  'tsc-7a46c3b8': 'vector-mode zerosLike(objectLiteral) has the primal type',
  // BUG: tsc — a passive array literal passed to a `readonly number[]` parameter becomes
  // `const arg: readonly number[] = [0.5]; g_d(arg, zerosLike(arg))`, and zerosLike's result (readonly)
  // is passed where the derivative parameter is `number[]` (minimal: `return g([x]) + g([0.5]);`)
  'tsc-917d29c4': 'zerosLike(readonly literal) passed to a mutable derivative parameter',
  'tsc-526cdf3f': 'zerosLike(readonly literal) passed to a mutable derivative parameter',
  'tsc-fbaaf9bb': 'zerosLike(readonly literal) passed to a mutable derivative parameter',
  // BUG: a call whose result is inactive (the callee returns a constant) inside a conditional expression
  // is rejected: "this expression cannot carry a derivative here (call)" (minimal: `Math.sin(x < 0 ? g(x) : 0.5) + x`)
  'accepts-435dc50e': 'inactive call in a conditional expression rejected',
  'accepts-31419a91': 'inactive call in a conditional expression rejected',
  'accepts-848c25bf': 'inactive call in a conditional expression rejected',
  'accepts-856c2b8f': 'inactive call in a conditional expression rejected',
  'accepts-34fc5c6a': 'inactive call in a conditional expression rejected',
  // BUG: the same construct inside an object or array literal makes compile() throw (LinError) instead of
  // returning a diagnostic
  'compile-56f860ec': 'compile() throws LinError',
  'compile-a28b0521': 'compile() throws LinError',
  // BUG: checkCompiled (src/api/check.ts) throws in its vector-mode check when a dependent array has no
  // derivative parameter (it does not depend on any independent): call[kv] with kv = -1
  'checker-f5208c96': 'checkCompiled throws for an inactive dependent array',
  'checker-e5d7897d': 'checkCompiled throws for an inactive dependent array',
  'checker-645d7dc1': 'checkCompiled throws for an inactive dependent array',
};

const regressions = listRegressions();
const knownSignatures = new Set(
  regressions.filter((r) => KNOWN_FAILING[r.name]).map((r) => signature({ prop: r.meta.prop, message: r.meta.message })),
);
/** a failure of the fixed-seed run that a known bug explains (a dot-product failure at a point flagged near a kink matches any known dot-product bug) */
const isKnown = (f: Finding) =>
  knownSignatures.has(signature(f)) || (f.prop === 'dot' && f.message.includes('near a kink') && [...knownSignatures].some((k) => k.startsWith('dot:')));

describe('fuzz: random programs', () => {
  it(`${COUNT} generated programs (seed ${SEED}) satisfy every property`, async () => {
    const r = await runCampaign({ seed: SEED, count: COUNT });
    const tolerated = r.failures.filter((f) => isKnown(f.finding));
    const fresh = r.failures.filter((f) => !isKnown(f.finding));
    console.log(
      `fuzz: ${r.programs} programs, ${r.totalChecks} checks (${PROPS.filter((p) => r.checks[p]).map((p) => `${p} ${r.checks[p]}`).join(', ')}) ` +
        `in ${(r.ms / 1000).toFixed(1)} s; ${r.unstable} unstable points resampled; ${tolerated.length} known-bug failures tolerated`,
    );
    for (const f of tolerated) console.log(`  known bug in program #${f.index}: ${f.finding.prop}: ${f.finding.message.slice(0, 160)}`);
    expect(r.programs).toBe(COUNT);
    const show = fresh.map((f) => `program #${f.index} [${f.prop}] ${f.finding.message}\n${f.finding.observed ? `observed: ${f.finding.observed}\nexpected: ${f.finding.expected}\n` : ''}${f.source}`);
    // to shrink and save them: npm run fuzz -- --count <COUNT> --seed <SEED>
    expect(show).toEqual([]);
  }, 400_000);
});

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
