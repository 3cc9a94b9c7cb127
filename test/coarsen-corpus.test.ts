// Coarsening at scale (issue 19): half of the corpus (every other case) compiled with `coarsen: true`
// and checked in every mode — tangent against divided differences, adjoint against tangent by the
// dot-product test, vector against scalar tangents, an empty tape — and, where something was
// coarsened, its gradient and tangent against the same compile without coarsening (statement-level AD).
// The other half runs in the fuzz campaign's worth of time it saves: `npm run fuzz -- --coarsen` checks
// random programs the same way.
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { randomLike, rng } from '../src/api/values.js';
import { formatDiagnostic } from '../src/frontend/diagnostics.js';
import { corpus } from './corpus/index.js';
import { adjointAt, relDiff, tangentAt } from './support/coarsened.js';
import { compileCase, drawArgs } from './support/corpus.js';
import { typecheckModules } from './support/typecheck.js';

const SEEDS = [11, 23];
// (TSAD_CORPUS_ALL=1: the whole corpus, for a campaign outside the suite's time budget)
const slice = process.env.TSAD_CORPUS_ALL ? corpus : corpus.filter((_, i) => i % 2 === 0);

describe('corpus with coarsening: every mode, and against statement-level AD', () => {
  let coarsened = 0;
  for (const c of slice) {
    it(c.name, () => {
      const r = compileCase(c, { coarsen: true });
      expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
      const plain = r.coarsening?.chosen.length ? compileCase(c) : null;
      if (plain) coarsened++;
      let checked = 0;
      for (let k = 0; checked < SEEDS.length && k < SEEDS.length + 6; k++) {
        const seed = SEEDS[k] ?? 1000 + k;
        const args = drawArgs(c, seed);
        const rep = checkCompiled(r, r.code, c.head, args, { seed });
        if (rep.unstable && rep.tangentError > 1e-6) continue; // near a kink: another point
        expect(rep.messages, `seed ${seed}`).toEqual([]);
        expect(rep.tapeEmpty).toBe(true);
        // (compared where the result is one number: the helpers seed the adjoint with 1)
        const seedParam = r.manifest.find((m) => m.name === `${c.head}_b`)?.params.find((p) => p.role === 'seed');
        if (plain && seedParam?.type === 'number' && r.of.length === 1 && r.of[0] === 'return') {
          expect(relDiff(adjointAt(r, c.head, args), adjointAt(plain, c.head, args)), `gradient, seed ${seed}`).toBeLessThan(1e-9);
          const dirs = new Map<string, unknown>();
          const R = rng(seed);
          const names = r.manifest.find((m) => m.name === `${c.head}_d`)!.params.filter((p) => p.role !== 'tangent').map((p) => p.name);
          const dir = (name: string) => {
            if (!dirs.has(name)) dirs.set(name, randomLike(args[names.indexOf(name)], R));
            return dirs.get(name);
          };
          expect(relDiff(tangentAt(r, c.head, args, dir), tangentAt(plain, c.head, args, dir)), `tangent, seed ${seed}`).toBeLessThan(1e-9);
        }
        checked++;
      }
      expect(checked).toBe(SEEDS.length);
    });
  }
  it('coarsens a good share of the slice (whole functions or segments)', () => {
    expect(coarsened).toBeGreaterThan(slice.length / 4);
  });
});

describe('coarsened generated code', () => {
  it('type-checks under tsc --strict and is deterministic (the slice, one batched program)', () => {
    const modules: Record<string, string> = {};
    for (const c of slice) {
      const a = compileCase(c, { js: false, runtimeImport: 'tsad/runtime', coarsen: true });
      if (!a.coarsening?.chosen.length) continue;
      expect(compileCase(c, { js: false, runtimeImport: 'tsad/runtime', coarsen: true }).code).toBe(a.code);
      modules[c.name] = a.code;
    }
    expect(Object.keys(modules).length).toBeGreaterThan(20);
    expect(typecheckModules(modules)).toEqual([]);
  }, 400_000); // (one tsc program over ~60 modules: minutes on a shared machine)
});
