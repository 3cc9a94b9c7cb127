// The GradBench evals table of `npm run bench` (bench/evals.ts, issue 18 item 7): the copy of the C++ tool's
// figures parses and covers every eval, and the quick mode runs one tiny golden input per eval end to
// end (compile, check against the golden file, interleaved timing, the table) in a few seconds.
import { describe, expect, it } from 'vitest';
import { evalNames } from '../evals/index.js';
import { ANCHORS, NO_ANCHOR, parseAnchors } from '../bench/anchors.js';
import { evalCases, evalsBench, evalsTable, ratios } from '../bench/evals.js';

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

  it('every ANCHORS input is produced in-repo or listed as skipped', () => {
    const { cases, skipped } = evalCases(false);
    const covered = new Set([...cases, ...skipped].map((c) => `${c.eval} ${c.input}`));
    for (const a of ANCHORS) expect(covered.has(`${a.eval} ${a.input}`), `${a.eval} ${a.input}`).toBe(true);
    // only the data files the repository does not keep
    expect(new Set(skipped.map((s) => s.eval))).toEqual(new Set(['ba', 'ht']));
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
