// Block Jacobians (src/transform/blocks.ts, src/api/blocks.ts): loops over independent items give one
// dense block an iteration, by vector reverse mode (fewer outputs than inputs) or vector tangent mode.
// Every case is compared with the dense Jacobian, and with central differences of the function.
import { describe, expect, it } from 'vitest';
import { jacobian, sparseJacobian } from '../src/api/runtime.js';
import { toDense } from '../src/api/sparse.js';
import { blockJacobian, compileBlocks } from '../src/api/blocks.js';
import { evalSource } from '../evals/tsad.js';
import { typecheckModules } from './support/typecheck.js';

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

  it('a number[] output written past its end (the write grows it): colours, never drops the rows', () => {
    // (out has 2 elements, the loop writes 3: out[2] is a new row, which the blocks cannot know of before the call)
    const grows = (x: number[], out: number[]) => {
      for (let i = 0; i < x.length; i++) out[i] = x[i] * x[i];
    };
    // (check: false: the runtime's first-call dot-product test seeds the adjoint with an array shaped like the
    // output before the call, which does not fit one the call grows, a false alarm outside the blocks)
    const S = sparseJacobian(grows, { wrt: 0, of: [1], check: false })([0.3, 0.5, -0.7], [0, 0]);
    expect(S.info.method ?? 'colouring').toBe('colouring');
    expect(toDense(S)).toEqual([
      [0.6, 0, 0],
      [0, 1, 0],
      [0, 0, -1.4],
    ]);
    // (in range: blocks; a Float64Array drops a write past its end, as the blocks do)
    agrees(grows, [[0.3, 0.5, -0.7], [0, 0, 0]], { wrt: 0, of: [1] });
    const src = `export function grows(x: number[], out: number[]): void {\n  for (let i = 0; i < x.length; i++) out[i] = x[i] * x[i];\n}`;
    const b = blockJacobian({ 'g.ts': src }, { head: 'grows', wrt: ['x'], of: ['out'] });
    if ('refused' in b) throw new Error(b.refused);
    expect(toDense(b.jacobian([0.5, 2], [0, 0]))).toEqual([
      [1, 0],
      [0, 4],
    ]);
    expect(() => b.jacobian([0.5, 2, 3], [0, 0])).toThrow(/blockJacobian of 'grows': not blocks at these arguments: an iteration of the loop at line 2 writes past the end of a number\[\] output \(which grows it\)\. sparseJacobian, or tsad --jacobian --sparse, colours such a call/);
  });

  it('blockJacobian where two iterations write one row: a clear error (blocks or nothing, as at compile time)', () => {
    const src = `export function twice(x: number[], at: number[]): Float64Array {\n  const r = new Float64Array(2);\n  for (let i = 0; i < x.length; i++) r[at[i]] = x[i] * x[i];\n  return r;\n}`;
    const b = blockJacobian({ 't.ts': src }, { head: 'twice', wrt: ['x'], of: ['return'] });
    if ('refused' in b) throw new Error(b.refused);
    expect(toDense(b.jacobian([0.3, 0.5, 0.7], [1, 0, 2]))).toEqual([
      [0, 1, 0],
      [0.6, 0, 0],
    ]);
    expect(() => b.jacobian([0.3, 0.5, 0.7], [0, 1, 1])).toThrow(/blockJacobian of 'twice': not blocks at these arguments: row 1 is written by two iterations of the loop at line 3: the iterations are not independent at these arguments/);
    // (and at arguments where they are independent again, blocks again)
    expect(toDense(b.jacobian([0.3, 0.5, 0.7], [1, 0, 5]))).toEqual([
      [0, 1, 0],
      [0.6, 0, 0],
    ]);
  });

  it('an output that is also an independent is refused (the rows no iteration writes are the identity\'s)', () => {
    const src = `export function res(x: number[], out: number[]): void {\n  for (let i = 0; i < x.length; i++) out[i] = Math.sin(x[i]);\n}`;
    const r = compileBlocks({ 'r.ts': src }, { head: 'res', wrt: ['x', 'out'], of: ['out'] });
    expect('refused' in r && r.refused).toMatch(/the output 'out' is also an independent \(line 1\)/);
    const res = (x: number[], out: number[]) => {
      for (let i = 0; i < x.length; i++) out[i] = Math.sin(x[i]);
    };
    agrees(res, [[0.3, 0.5], [0, 0, 4]], { wrt: [0, 1], of: [1] }, 'colouring');
    expect(toDense(sparseJacobian(res, { wrt: [0, 1], of: [1] })([0.3, 0.5], [0, 0, 4]))[2]).toEqual([0, 0, 0, 0, 1]);
  });

  it('the TypeScript it generates type-checks under --strict (reverse and tangent blocks, branches, rows bound, module constants, Float64Array rows)', () => {
    const sources: [string, string, { head: string; wrt: string[]; of: string[] }][] = [
      ['ba', evalSource('ba'), { head: 'baObjective', wrt: ['cams', 'points', 'weights'], of: ['reprojErr', 'wErr'] }],
      [
        'proj',
        `const LINK: number[] = [0, 1, 1, 0];
export function proj(cam: number[], pt: Float64Array): number[] {
  const px = pt[0] - cam[3];
  const z = pt[1] - cam[2] + 4;
  return [cam[0] * px / z + cam[1], Math.exp(-z * z)];
}
export function resid(cams: number[][], pts: Float64Array[], w: number[], out: Float64Array, reg: number[]): void {
  const n = w.length;
  for (let i = 0; i < n; i++) {
    const cam = cams[LINK[2 * i]];
    const p = proj(cam, pts[LINK[2 * i + 1]]);
    let t = p[0] * w[i];
    if (p[1] > 0.5) t = Math.sin(t) + cam[1];
    else t = t * cams[LINK[2 * i]][0];
    out[2 * i] = t;
    out[2 * i + 1] = w[(i + 1) % n] * p[1];
  }
  for (let i = 0; i < n; i++) reg[i] = Math.log1p(w[i] * w[i]);
}`,
        { head: 'resid', wrt: ['cams', 'pts', 'w'], of: ['out', 'reg'] },
      ],
      [
        'spread',
        `export function spread(x: number[]): Float64Array {
  const y = new Float64Array(3 * x.length);
  for (let i = 0; i < x.length; i++) {
    let t = x[i] * x[i];
    if (x[i] > 0) t = Math.sqrt(t + 1);
    y[3 * i] = t;
    if (t > 1) y[3 * i + 1] = t * x[i];
    y[3 * i + 2] = 2;
  }
  return y;
}`,
        { head: 'spread', wrt: ['x'], of: ['return'] },
      ],
    ];
    const modules: Record<string, string> = {};
    for (const [name, src, opts] of sources) {
      const r = compileBlocks({ [`${name}.ts`]: src }, opts);
      if ('refused' in r) throw new Error(`${name}: ${r.refused}`);
      expect(r.loops.map((l) => l.mode)).toContain(name === 'spread' ? 'tangent' : 'reverse');
      modules[name] = r.code;
      // (deterministic)
      expect((compileBlocks({ [`${name}.ts`]: src }, opts) as { code: string }).code).toBe(r.code);
    }
    expect(modules.proj).toContain('const cam = cams[LINK[2 * i]];');
    expect(modules.proj).toContain('const LINK: number[] = [0, 1, 1, 0];');
    expect(typecheckModules(modules)).toEqual([]);
  });
});
