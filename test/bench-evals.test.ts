// The GradBench evals table of `npm run bench` (bench/evals.ts, issue 18 item 7): the copy of the C++ tool's
// figures parses and covers every eval, and the quick mode runs one tiny golden input per eval end to
// end (compile, check against the golden file, interleaved timing, the table) in a few seconds; the
// divided-difference check of whole ba and ht Jacobians passes the golden-checked ones and fails wrong ones.
import { describe, expect, it } from 'vitest';
import { evalNames } from '../evals/index.js';
import { ANCHORS, NO_ANCHOR, parseAnchors } from '../bench/anchors.js';
import { evalCases, evalsBench, evalsTable, ratios } from '../bench/evals.js';
import { checkBaJacobian, checkHtJacobian } from '../bench/jacobian-check.js';
import type { BaCsr } from '../evals/ba/derivatives.js';
import { loadBaInput, type BaArgs } from '../evals/ba/io.js';
import { loadHtInput, type HtArgs } from '../evals/ht/io.js';
import { modules } from '../evals/tool.js';

describe('bench/anchors.ts', () => {
  it('parses, and every eval has C++ figures or a reason why not', () => {
    expect(ANCHORS.length).toBe(108);
    for (const ev of evalNames) {
      const n = ANCHORS.filter((a) => a.eval === ev).length;
      expect(n > 0 !== (NO_ANCHOR[ev] !== undefined), `${ev}: ${n} rows, reason ${NO_ANCHOR[ev]}`).toBe(true);
    }
    expect(ANCHORS.every((a) => evalNames.includes(a.eval))).toBe(true);
  });

  it('each d/p agrees with the quotient of its rounded times (a mistyped figure would not)', () => {
    for (const a of ANCHORS) {
      // (times have 2–3 significant digits, d/p two decimals: ode's 0.016 / 2.08 is printed 0.01)
      const q = a.derivativeMs / a.primalMs;
      expect(Math.abs(q - a.dp), `${a.eval} ${a.input}: ${a.derivativeMs} / ${a.primalMs} vs ${a.dp}`).toBeLessThanOrEqual(0.1 * Math.max(q, a.dp) + 0.006);
    }
  });

  it('rejects a malformed row', () => {
    expect(() => parseAnchors('det | 5 | 0.0011 | x | 4.92')).toThrow(/malformed/);
    expect(() => parseAnchors('det | 5 | 0.0011')).toThrow(/malformed/);
  });

  it('every ANCHORS input is produced in-repo (hand10, hand11: inputs of their sizes built from hand9)', () => {
    const { cases, skipped } = evalCases(false);
    expect(skipped).toEqual([]);
    const covered = new Set(cases.map((c) => `${c.eval} ${c.compareWith ?? c.input}`));
    for (const a of ANCHORS) expect(covered.has(`${a.eval} ${a.input}`), `${a.eval} ${a.input}`).toBe(true);
    const built = cases.filter((c) => c.compareWith !== undefined);
    expect(built.map((c) => [c.input, c.compareWith])).toEqual([
      ['hand10-sized, built from hand9 (×2)', 'hand10_t26_c25600'],
      ['hand11-sized, built from hand9 (×4)', 'hand11_t26_c51200'],
    ]);
    const args = built[0].args() as HtArgs;
    expect(args.correspondences.length).toBe(25600);
    expect(args.points[12800 + 7]).toEqual(args.points[7]);
    expect(args.us[12800 + 7]).toEqual(args.us[7]);
  });

  it('reads the gzip-compressed hand files like the plain ones', () => {
    const input = loadHtInput('complicated', 'big', 'hand2_t26_c192') as { data: { correspondences: number[] }; us: number[][] };
    expect(input.data.correspondences.length).toBe(192);
    expect(input.us.length).toBe(192);
  });
});

describe('bench/jacobian-check.ts', () => {
  it('passes ba1\'s Jacobian (golden-checked elsewhere) and fails it with one entry or column index wrong', () => {
    const a = modules.ba.prepare(loadBaInput('ba1_n49_m7776_p31843')) as BaArgs;
    const J = modules.ba.fns.jacobian.run(a) as BaCsr;
    expect(checkBaJacobian(a, J).err).toBeLessThan(1e-8);
    const e = J.rowptr[40000] + 3; // a reprojection row's point column
    const v = J.vals[e];
    J.vals[e] = v * 1.01;
    expect(checkBaJacobian(a, J)).toMatchObject({ row: 40000 });
    expect(checkBaJacobian(a, J).err).toBeGreaterThan(1e-7);
    J.vals[e] = v;
    J.colidx[e] += 1;
    expect(checkBaJacobian(a, J).err).toBeGreaterThan(1e-7);
    J.colidx[e] = 1e9;
    expect(checkBaJacobian(a, J).err).toBe(Infinity);
  });

  it('passes ht hand1\'s Jacobian and fails it with one entry wrong', () => {
    const a = modules.ht.prepare(loadHtInput('complicated', 'big', 'hand1_t26_c100')) as HtArgs;
    const J = modules.ht.fns.jacobian.run(a) as { jac: Float64Array; rows: number; cols: number };
    expect(checkHtJacobian(a, J).err).toBeLessThan(1e-8);
    J.jac[100 * 28 + 1] *= 1.01; // row 100's us[·][1] column
    expect(checkHtJacobian(a, J)).toMatchObject({ row: 100 });
    expect(checkHtJacobian(a, J).err).toBeGreaterThan(1e-7);
    J.jac[5] = NaN;
    expect(checkHtJacobian(a, J).err).toBe(Infinity);
  });
});

describe('bench/evals.ts --quick', () => {
  it('runs one tiny golden input per eval end to end', () => {
    const t0 = performance.now();
    const r = evalsBench({ quick: true });
    expect(r.rows.map((row) => row.eval)).toEqual([...evalNames]);
    for (const row of r.rows) {
      expect(row.check, `${row.eval} ${row.input}`).toMatchObject({ against: 'golden', pass: true });
      expect(row.timings).toBeDefined();
      for (const t of Object.values(row.timings!)) {
        expect(t.wall.median).toBeGreaterThan(0);
        expect(Number.isFinite(t.cpu.median)).toBe(true);
      }
      for (const fn of row.derivatives) if (row.primal) expect(ratios(row, fn).dp!.wall).toBeGreaterThan(0);
    }
    const text = evalsTable(r);
    for (const ev of evalNames) expect(text).toContain(ev);
    expect(performance.now() - t0).toBeLessThan(30_000);
  });
});
