// The front end's results are shared between compiles, not copied (src/api/compile.ts sharedModule):
// a compile must not change the module it is given, or a later compile of the same source would start
// from what it left. With freezing on, such a change throws; this runs the corpus through the back end
// in every mode and under the options that take other paths (the naive adjoint, joint mode,
// coarsening, the Hessian-vector product), some twice (the second compile reuses derivatives).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetFrontEnds, freezeSharedModules, type CompileOptions } from '../src/api/compile.js';
import { compileHvp } from '../src/api/hessian.js';
import { forgetReusedDerivatives } from '../src/transform/reuse.js';
import { corpus } from './corpus/index.js';
import { caseSources, compileCase } from './support/corpus.js';

const VARIANTS: Partial<CompileOptions>[] = [{ adjoint: { tbr: false } }, { adjoint: { checkpointCalls: true } }, { coarsen: true }];

describe('a compile leaves the module it is given unchanged', () => {
  beforeAll(() => {
    forgetFrontEnds();
    forgetReusedDerivatives();
    freezeSharedModules(true);
  });
  afterAll(() => {
    freezeSharedModules(false);
    forgetFrontEnds();
  });

  it(`${corpus.length} corpus cases in all modes (every fourth twice)`, () => {
    corpus.forEach((c, i) => {
      const first = compileCase(c);
      if (i % 4 === 0) expect(compileCase(c).code, c.name).toBe(first.code);
    });
  });

  it('every sixth case under the naive adjoint, joint mode and coarsening, and as a Hessian-vector product', () => {
    let hvp = 0;
    corpus.forEach((c, i) => {
      if (i % 6) return;
      for (const v of VARIANTS) compileCase(c, v);
      if (c.wrt || Object.keys(caseSources(c.file)).length > 1) return;
      const r = compileHvp(caseSources(c.file), { head: c.head, js: true, runtimeImport: null });
      if (!r.diagnostics.length) hvp++;
    });
    expect(hvp).toBeGreaterThan(10);
  });
});
