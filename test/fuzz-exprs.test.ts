// The expression forms of issue 16 (items 3–4) in the fixed-seed fuzz run of test/fuzz.test.ts: the
// programs it draws hold each form at least MIN_PER_CELL times, and the front end accepts them (their
// derivatives are checked by that run). The programs are drawn here as runCampaign draws them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frontEnd } from '../src/api/compile.js';
import { MIN_PER_CELL } from './fuzz/coverage.js';
import { countExprForms, EXPR_FORMS } from './fuzz/expr-forms.js';
import { programArb, render } from './fuzz/generator.js';

const SEED = 20_240_611; // test/fuzz.test.ts
const COUNT = 300;

describe('fuzz: expression forms', () => {
  const sources: string[] = [];
  fc.assert(
    fc.property(programArb, (spec) => {
      if (spec.exprs) sources.push(render(spec).source);
      return true;
    }),
    { seed: SEED, numRuns: COUNT },
  );

  it(`the fixed-seed run writes each form at least ${MIN_PER_CELL} times`, () => {
    const counts = countExprForms(sources);
    console.log(`expression forms in ${sources.length} programs: ${[...counts].map(([k, n]) => `${k} ${n}`).join(", ")}`);
    const under = [...counts].filter(([, n]) => n < MIN_PER_CELL).map(([k, n]) => `${k}: ${n}`);
    expect(under).toEqual([]);
  });

  it('the front end accepts every program holding one', () => {
    const refused: string[] = [];
    for (const s of sources) {
      if (!Object.values(EXPR_FORMS).some((re) => re.test(s))) continue;
      try {
        frontEnd(s);
      } catch (e) {
        refused.push(`${e instanceof Error ? e.message : String(e)}\n${s}`);
      }
    }
    expect(refused).toEqual([]);
  }, 120_000);

  it('the census tells the forms from the statements written out', () => {
    const plain = 'let k = 0;\nbuf[k] = 1;\nk++;\nconst t = M[0];\nM[0] = M[2];\nM[2] = t;\nfor (let i = 0; i < n; i++) s += Math.max(a, b);\n';
    expect([...countExprForms([plain]).values()].every((n) => n === 0)).toBe(true);
  });
});
