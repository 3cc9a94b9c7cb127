// Block Jacobians (src/transform/blocks.ts, src/api/blocks.ts): loops over independent items give one
// dense block an iteration, by vector reverse mode (fewer outputs than inputs) or vector tangent mode.
// Every case is compared with the dense Jacobian, and with central differences of the function.
import { describe, expect, it } from 'vitest';
import { jacobian, sparseJacobian } from '../src/api/runtime.js';
import { toDense } from '../src/api/sparse.js';
import { compileBlocks } from '../src/api/blocks.js';

function rand(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 16807) % 2147483647) / 2147483647) - 0.3;
}

/** the block result against the dense Jacobian and central differences of f along the columns */
function agrees(f: (...a: never[]) => unknown, args: unknown[], opts: Record<string, unknown>, method = 'blocks'): void {
  const S = sparseJacobian(f as never, opts as never)(...(args as never[]));
  expect(S.info.method ?? 'colouring').toBe(method);
  const D = jacobian(f as never, opts as never)(...(args as never[]));
  const B = toDense(S);
  expect(B.length).toBe(D.length);
  for (let i = 0; i < D.length; i++) for (let j = 0; j < D[i].length; j++) expect(Math.abs(B[i][j] - D[i][j])).toBeLessThanOrEqual(1e-10 * (1 + Math.abs(D[i][j])));
}

describe('block Jacobians', () => {
  it('helpers returning arrays, rows of a nested array, two output arrays (reverse and tangent blocks)', () => {
    const R = rand(7);
    function residual(c: number[], x: number[], w: number): number[] {
      const d = x[0] - c[0];
      const e = Math.sin(x[1]) * c[1] + c[2] * d * d;
      return [w * d, w * e];
    }
    function model(cs: number[][], xs: number[][], ws: number[], link: number[], out: Float64Array, reg: Float64Array): void {
      for (let i = 0; i < ws.length; i++) {
        const r = residual(cs[link[i]], xs[i], ws[i]);
        out[2 * i] = r[0];
        out[2 * i + 1] = r[1];
      }
      for (let i = 0; i < ws.length; i++) reg[i] = Math.exp(ws[i]) - 1;
    }
    const cs = [0, 1, 2].map(() => [R(), R(), R()]);
    const xs = [0, 1, 2, 3, 4].map(() => [R(), R()]);
    const ws = [R(), R(), R(), R(), R()];
    const args = [cs, xs, ws, [0, 1, 2, 0, 1], new Float64Array(10), new Float64Array(5)];
    agrees(model, args, { wrt: [0, 1, 2], of: [4, 5], scope: { residual } });
  });

  it('a branch inside the iteration, and a returned array (tangent blocks: more outputs than inputs)', () => {
    const R = rand(11);
    const f = (x: number[]) => {
      const y = new Float64Array(3 * x.length);
      for (let i = 0; i < x.length; i++) {
        let t = x[i] * x[i];
        if (x[i] > 0) t = Math.sqrt(t + 1);
        else t = Math.cos(x[i]) * t;
        y[3 * i] = t;
        y[3 * i + 1] = t * x[i];
        y[3 * i + 2] = 2;
      }
      return y;
    };
    agrees(f, [[R(), R(), -0.5, 0.7, R()]], {});
  });

  it('a neighbour read (x[i + 1]) and an iteration reading two rows', () => {
    const R = rand(3);
    const f = (x: number[]) => {
      const r = new Float64Array(x.length - 1);
      for (let i = 0; i < x.length - 1; i++) r[i] = 10 * (x[i + 1] - x[i] * x[i]) + Math.log1p(x[i] * x[i]);
      return r;
    };
    agrees(f, [[R(), R(), R(), R(), R(), R()]], {});
  });

  it('falls back to colouring where iterations are not independent', () => {
    const carried = (x: number[]) => {
      const r = new Float64Array(x.length);
      let s = 0;
      for (let i = 0; i < x.length; i++) {
        s = s + x[i];
        r[i] = s * x[i];
      }
      return r;
    };
    agrees(carried, [[0.3, 0.5, -0.2, 0.9]], {}, 'colouring');
    // (written twice: independent in form, but two iterations write one row)
    const twice = (x: number[], at: number[]) => {
      const r = new Float64Array(2);
      for (let i = 0; i < x.length; i++) r[at[i]] = x[i] * x[i];
      return r;
    };
    const S = sparseJacobian(twice, { wrt: 0 })([0.3, 0.5, 0.7], [0, 1, 1]);
    expect(S.info.method ?? 'colouring').toBe('colouring');
    expect(toDense(S)).toEqual([
      [0.6, 0, 0],
      [0, 0, 1.4],
    ]);
  });

  it('refuses what is not a loop over independent items, saying what', () => {
    const src = `export function f(x: number[], out: Float64Array): void {
  let s = 0;
  for (let i = 0; i < x.length; i++) { s += x[i]; out[i] = s; }
}`;
    const r = compileBlocks({ 'f.ts': src }, { head: 'f', wrt: ['x'], of: ['out'] });
    expect('refused' in r && r.refused).toMatch(/declared outside it|outside the loops/);
    const read = compileBlocks({ 'f.ts': `export function f(x: number[], out: Float64Array): void {\n  for (let i = 0; i < x.length; i++) out[i] = x[i] + out[i];\n}` }, { head: 'f', wrt: ['x'], of: ['out'] });
    expect('refused' in read && read.refused).toMatch(/output 'out' is read/);
  });
});
