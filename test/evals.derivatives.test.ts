// Derivative outputs of the GradBench evals computed with tsad-generated code (evals/<eval>/derivatives.ts:
// the objectives are compiled with tsad at first use), checked against the golden files in
// evals/golden (provenance: evals/golden/README.md) with the suite's rule |a-e| <= tol * max(1, |a|+|e|) at tol = 1e-8
// (the eval itself uses 1e-4). A summary table (max normalised error, time) is printed at the end.
//
// Nested derivatives (kmeans' Hessian diagonal, particle, saddle) compile tsad's TypeScript output once
// more with tsad. Outputs that tsad cannot produce correctly yet are marked per function:
//   * `fails` — expected failure because of a tsad bug (it.fails: flips to a failure once the bug is
//     fixed; then remove the mark);
//   * `skip`  — would blow the time budget of this file (a tsad performance problem).

import { afterAll, describe, expect, it } from 'vitest';
import type { EvalIO } from '../evals/common.js';
import { describeMismatches, loadGolden, maxNormalisedError } from '../evals/golden.js';
import * as evals from '../evals/index.js';
import { derivatives as ba } from '../evals/ba/derivatives.js';
import { derivatives as det } from '../evals/det/derivatives.js';
import { derivatives as gmm } from '../evals/gmm/derivatives.js';
import { derivatives as hello } from '../evals/hello/derivatives.js';
import { derivatives as ht } from '../evals/ht/derivatives.js';
import { derivatives as kmeans } from '../evals/kmeans/derivatives.js';
import { derivatives as llsq } from '../evals/llsq/derivatives.js';
import { derivatives as lse } from '../evals/lse/derivatives.js';
import { derivatives as lstm } from '../evals/lstm/derivatives.js';
import { derivatives as ode } from '../evals/ode/derivatives.js';
import { derivatives as particle } from '../evals/particle/derivatives.js';
import { derivatives as saddle } from '../evals/saddle/derivatives.js';
import { gradientAndHessianDiagonal, gradientAndHessianDiagonalReverseOverForward } from '../evals/kmeans/derivatives.js';
import { gradient as lseGradient } from '../evals/lse/derivatives.js';
import { jacobian as baJacobian, jacobianCsr as baJacobianCsr } from '../evals/ba/derivatives.js';
import { baObjective, reprojError, weightError } from '../evals/ba/objective.js';
import { jacobian, sparseJacobian } from '../src/api/runtime.js';
import { toDense } from '../src/api/sparse.js';

/** Tight tolerance for everything computed in double precision (README: "e.g. 1e-8"). */
const TOL = 1e-8;

interface Row {
  eval: string;
  instance: string;
  fn: string;
  maxErr: number;
  firstMs: number;
  secondMs: number;
  note: string;
}
const summary: Row[] = [];

afterAll(() => {
  if (summary.length === 0) return;
  const lines = summary.map(
    (r) =>
      `${r.eval.padEnd(8)} ${r.instance.padEnd(34)} ${r.fn.padEnd(9)} maxErr ${r.maxErr.toExponential(2)}  ` +
      `first ${r.firstMs.toFixed(1).padStart(8)} ms  again ${r.secondMs.toFixed(1).padStart(8)} ms${r.note}`,
  );
  console.log(`derivative outputs vs golden (first run includes tsad compilation of the eval)\n${lines.join('\n')}`);
});

type DerivativeFns<A> = Record<string, (args: A) => unknown>;

/** Per derivative function: tolerance other than TOL (with the reason in a comment), or a known gap. */
interface Expectation {
  tol?: number;
  /** expected failure: the tsad bug responsible */
  fails?: string;
  /** not run: the reason (a tsad performance problem) */
  skip?: string;
}

/**
 * One test per golden instance and derivative output: prepare the input, compute the output with the
 * tsad-generated derivative twice (the second run must agree exactly: no harmful mutation, caches
 * reset), and compare with the golden value at `tol`.
 */
function derivativeSuite<A>(io: EvalIO<A>, fns: DerivativeFns<A>, expect_: Record<string, Expectation> = {}): void {
  describe(io.name, () => {
    it('provides every derivative function the eval needs', () => {
      expect(Object.keys(fns).sort()).toEqual([...io.derivatives].sort());
    });
    for (const g of loadGolden(io.name)) {
      for (const fn of io.derivatives) {
        const e = expect_[fn] ?? {};
        const t = e.tol ?? TOL;
        if (e.skip !== undefined) {
          it.skip(`${g.name}: ${fn} — SKIPPED: ${e.skip}`, () => undefined);
          continue;
        }
        const body = (): void => {
          const args = io.prepare(g.input);
          const t0 = performance.now();
          let out: unknown;
          try {
            out = fns[fn](args);
          } catch (err) {
            summary.push({ eval: io.name, instance: g.name, fn, maxErr: NaN, firstMs: performance.now() - t0, secondMs: NaN, note: `  threw: ${String(err).split('\n')[0]}` });
            throw err;
          }
          const t1 = performance.now();
          const again = fns[fn](args);
          const t2 = performance.now();
          const note = e.fails !== undefined ? '  (expected failure: tsad bug)' : '';
          summary.push({ eval: io.name, instance: g.name, fn, maxErr: maxNormalisedError(out, g.outputs[fn]), firstMs: t1 - t0, secondMs: t2 - t1, note });
          expect(describeMismatches(out, g.outputs[fn], t)).toBe('');
          expect(again).toEqual(out);
        };
        if (e.fails !== undefined) it.fails(`${g.name}: ${fn} matches golden at ${t} — EXPECTED TO FAIL: ${e.fails}`, body);
        else it(`${g.name}: ${fn} matches golden at ${t}`, body);
      }
    }
  });
}

derivativeSuite(evals.hello, hello);
derivativeSuite(evals.lse, lse);
derivativeSuite(evals.llsq, llsq);
derivativeSuite(evals.det, det);
derivativeSuite(evals.ode, ode);
derivativeSuite(evals.gmm, gmm);
derivativeSuite(evals.kmeans, kmeans);
derivativeSuite(evals.lstm, lstm);
derivativeSuite(evals.ba, ba);
derivativeSuite(evals.ht, ht);

// Nested AD: inner gradient by tsad (stage 1), its TypeScript output compiled again with the outer
// function (stage 2). See the header of evals/particle/derivatives.ts and evals/saddle/derivatives.ts.
//
derivativeSuite(evals.particle, particle, {});
derivativeSuite(evals.saddle, saddle, {});

// ---------------------------------------------------------------------------
// Extra checks on intermediate derivatives

describe('intermediate derivatives', () => {
  for (const g of loadGolden('kmeans')) {
    it(`kmeans ${g.name}: Hessian diagonal by forward-over-reverse is 2 N_j, constant per centroid, and reverse-over-forward agrees`, () => {
      const a = evals.kmeans.prepare(g.input);
      const { gradient: gr, hessianDiagonal: h } = gradientAndHessianDiagonal(a);
      const other = gradientAndHessianDiagonalReverseOverForward(a);
      expect(other.hessianDiagonal).toEqual(h);
      for (let j = 0; j < gr.length; j++) for (let u = 0; u < gr[j].length; u++) expect(Math.abs(other.gradient[j][u] - gr[j][u])).toBeLessThanOrEqual(1e-12 * (1 + Math.abs(gr[j][u])));
      let total = 0;
      for (const row of h) {
        for (const v of row) {
          expect(v).toBe(row[0]);
          total += v;
        }
        expect(row[0]).toBeGreaterThanOrEqual(2);
        expect(Number.isInteger(row[0] / 2)).toBe(true);
      }
      expect(total).toBe(2 * a.points.length * a.centroids[0].length);
    });
  }
  for (const g of loadGolden('ba').filter((x) => x.name.startsWith('tiny'))) {
    it(`ba ${g.name}: the block Jacobian agrees with the dense Jacobian and with colouring, entry by entry`, () => {
      const a = evals.ba.prepare(g.input);
      const blocks = baJacobianCsr(a);
      const args = [a.cams, a.points, a.weights, a.features, a.obs, a.reprojErr, a.wErr] as const;
      const opts = { wrt: [0, 1, 2], of: [5, 6], scope: { reprojError, weightError } };
      const dense = jacobian(baObjective, opts)(...args);
      const coloured = toDense(sparseJacobian(baObjective, { ...opts, sparse: 'colouring' })(...args));
      let worst = 0;
      for (let i = 0; i < dense.length; i++) {
        const row = new Map<number, number>();
        for (let e = blocks.rowptr[i]; e < blocks.rowptr[i + 1]; e++) row.set(blocks.colidx[e], blocks.vals[e]);
        for (let j = 0; j < dense[i].length; j++) {
          if (dense[i][j] !== 0) expect(row.has(j)).toBe(true);
          worst = Math.max(worst, Math.abs((row.get(j) ?? 0) - dense[i][j]), Math.abs(coloured[i][j] - dense[i][j]));
        }
      }
      expect(worst).toBeLessThanOrEqual(1e-12);
      expect(describeMismatches(baJacobian(a), g.outputs['jacobian'], TOL)).toBe('');
    });
  }
  for (const g of loadGolden('lse')) {
    it(`lse ${g.name}: gradient also within 1e-10 relative (softmax entries are tiny)`, () => {
      const grad = lseGradient(evals.lse.prepare(g.input));
      const e = g.outputs['gradient'] as number[];
      for (let i = 0; i < e.length; i++) expect(Math.abs(grad[i] - e[i])).toBeLessThanOrEqual(1e-10 * Math.abs(e[i]));
    });
  }
});

