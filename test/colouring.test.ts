// Colourings for sparse Jacobians and Hessians (src/runtime/colouring.ts): validity checked exhaustively,
// and the number of colours against the optimum found by brute force over every partition of ≤ 8 columns.
import { describe, expect, it } from 'vitest';
import { rng } from '../src/api/values.js';
import { columnColouring, isColumnColouring, isStarColouring, patternFromRows, recoveryIndex, starColouring, symmetricPattern, type Colouring, type SparsityPattern } from '../src/runtime/colouring.js';

function randomPattern(R: () => number, m: number, n: number, density: number): SparsityPattern {
  const rows = Array.from({ length: m }, () => Array.from({ length: n }, (_, j) => j).filter(() => R() < density));
  return patternFromRows(m, n, rows);
}

/** the fewest colours of a colouring with the property: every partition of the n columns (canonical labels: Bell(n) of them) */
function optimum(n: number, ok: (c: Colouring) => boolean): number {
  const colour = new Int32Array(n);
  let best = n;
  const walk = (v: number, used: number) => {
    if (used >= best) return;
    if (v === n) {
      if (ok({ colour, count: used })) best = used;
      return;
    }
    for (let c = 0; c <= used && c < best; c++) {
      colour[v] = c;
      walk(v + 1, Math.max(used, c + 1));
    }
  };
  walk(0, 0);
  return best;
}

describe('column (distance-1) colouring', () => {
  it('is valid and within one colour of the optimum on random patterns of ≤ 8 columns', () => {
    const R = rng(18);
    let excess = 0, cases = 0;
    for (let t = 0; t < 300; t++) {
      const n = 2 + Math.floor(R() * 7), m = 1 + Math.floor(R() * 8);
      const p = randomPattern(R, m, n, 0.1 + 0.5 * R());
      const c = columnColouring(p);
      expect(isColumnColouring(p, c)).toBe(true);
      const opt = optimum(n, (x) => isColumnColouring(p, x));
      expect(c.count).toBeGreaterThanOrEqual(opt);
      expect(c.count).toBeLessThanOrEqual(opt + 1);
      excess += c.count - opt;
      cases++;
    }
    expect(excess / cases).toBeLessThan(0.15);
  });

  it('a banded pattern takes its bandwidth in colours, a diagonal one colour', () => {
    const n = 50;
    const band = patternFromRows(n, n, Array.from({ length: n }, (_, i) => [i - 1, i, i + 1].filter((j) => j >= 0 && j < n)));
    expect(columnColouring(band).count).toBe(3);
    expect(columnColouring(patternFromRows(n, n, Array.from({ length: n }, (_, i) => [i]))).count).toBe(1);
  });
});

describe('star colouring', () => {
  it('is a star colouring (every path on 4 vertices uses ≥ 3 colours) within two colours of the optimum', () => {
    const R = rng(81);
    let excess = 0, cases = 0;
    for (let t = 0; t < 300; t++) {
      const n = 2 + Math.floor(R() * 7);
      const p = symmetricPattern(randomPattern(R, n, n, 0.1 + 0.4 * R()));
      const c = starColouring(p);
      expect(isStarColouring(p, c)).toBe(true);
      const opt = optimum(n, (x) => isStarColouring(p, x));
      expect(c.count).toBeGreaterThanOrEqual(opt);
      expect(c.count).toBeLessThanOrEqual(opt + 2);
      excess += c.count - opt;
      cases++;
    }
    expect(excess / cases).toBeLessThan(0.35);
  });

  it('the checker itself rejects a two-coloured path on four vertices', () => {
    const path = patternFromRows(4, 4, [[1], [0, 2], [1, 3], [2]]);
    expect(isStarColouring(path, { colour: Int32Array.from([0, 1, 0, 1]), count: 2 })).toBe(false);
    expect(isStarColouring(path, { colour: Int32Array.from([0, 1, 2, 0]), count: 3 })).toBe(true);
  });

  it('an arrowhead takes two colours, a tridiagonal pattern three, larger random ones stay valid', () => {
    const n = 2000;
    const arrow = symmetricPattern(patternFromRows(n, n, Array.from({ length: n }, (_, i) => (i === n - 1 ? Array.from({ length: n }, (_, j) => j) : [i]))));
    expect(starColouring(arrow).count).toBe(2);
    const tri = patternFromRows(n, n, Array.from({ length: n }, (_, i) => [i - 1, i, i + 1].filter((j) => j >= 0 && j < n)));
    expect(starColouring(tri).count).toBe(3);
    const R = rng(7);
    for (let t = 0; t < 20; t++) {
      const p = symmetricPattern(randomPattern(R, 40, 40, 0.08));
      expect(isStarColouring(p, starColouring(p))).toBe(true);
    }
  });

  it('recovers a random symmetric matrix exactly from its compressed product', () => {
    const R = rng(5);
    for (let t = 0; t < 50; t++) {
      const n = 3 + Math.floor(R() * 30);
      const p = symmetricPattern(randomPattern(R, n, n, 0.15));
      const H = Array.from({ length: n }, () => new Float64Array(n));
      for (let i = 0; i < n; i++) for (let e = p.rowPtr[i]; e < p.rowPtr[i + 1]; e++) if (p.colIdx[e] >= i) H[i][p.colIdx[e]] = H[p.colIdx[e]][i] = Math.round(R() * 100) - 50;
      const c = starColouring(p);
      const B = new Float64Array(n * c.count);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) B[i * c.count + c.colour[j]] += H[i][j];
      const at = recoveryIndex(p, c, c.count, true);
      for (let i = 0; i < n; i++) for (let e = p.rowPtr[i]; e < p.rowPtr[i + 1]; e++) expect(B[at[e]]).toBe(H[i][p.colIdx[e]]);
    }
  });
});
