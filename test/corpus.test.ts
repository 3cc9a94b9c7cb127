// The corpus: every function differentiated in tangent, vector-tangent and adjoint mode and checked
// against divided differences, by the dot-product test and for an empty tape; the generated modules
// type-check under --strict in one program, and compiling twice gives identical output.
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { formatDiagnostic } from '../src/frontend/diagnostics.js';
import { corpus } from './corpus/index.js';
import { compileCase, drawArgs } from './support/corpus.js';
import { typecheckModules } from './support/typecheck.js';

const SEEDS = [11, 23, 37];

describe('corpus: every mode against divided differences and each other', () => {
  for (const c of corpus) {
    it(c.name, () => {
      const r = compileCase(c);
      expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
      let checked = 0;
      for (let k = 0; checked < SEEDS.length && k < SEEDS.length + 6; k++) {
        const seed = SEEDS[k] ?? 1000 + k;
        const rep = checkCompiled(r, r.code, c.head, drawArgs(c, seed), { seed });
        // near a kink or branch switch the two step sizes disagree: draw another point
        if (rep.unstable && rep.tangentError > 1e-6) continue;
        expect(rep.messages, `seed ${seed}`).toEqual([]);
        expect(rep.tapeEmpty).toBe(true);
        checked++;
      }
      expect(checked).toBe(SEEDS.length);
    });
  }
});

describe('generated code', () => {
  it('type-checks under tsc --strict (one batched program)', () => {
    const modules: Record<string, string> = {};
    for (const c of corpus) {
      const r = compileCase(c, { js: false, runtimeImport: 'tsad/runtime' });
      modules[c.name] = r.code;
    }
    expect(typecheckModules(modules)).toEqual([]);
  });

  it('is deterministic: compiling twice gives byte-identical output', () => {
    for (const c of corpus.slice(0, 40)) {
      const a = compileCase(c, { js: false, runtimeImport: 'tsad/runtime' }).code;
      const b = compileCase(c, { js: false, runtimeImport: 'tsad/runtime' }).code;
      expect(a).toBe(b);
    }
  });
});
