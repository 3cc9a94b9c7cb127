// Float32Array and the integer typed arrays (src/frontend/typed-arrays.ts). Divided differences of a
// program that rounds active values to float32 are noise (the rounding error over the step), so the
// derivatives of a Float32Array program are checked against those of the same program with
// Float64Array in its place (which divided differences do check): with `fround`'s derivative the
// identity, they agree up to the float32 rounding of the primal values they are computed from.
// Integer typed arrays are passive: a float stored into one is truncated or wrapped, with no derivative.
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { compile, type CompileResult } from '../src/api/compile.js';
import { loadGenerated } from '../src/api/load.js';
import { formatDiagnostic } from '../src/frontend/diagnostics.js';
import { zerosLike } from '../src/runtime/arrays.js';
import { typecheckModules } from './support/typecheck.js';

type Fn = (...a: unknown[]) => unknown;

function build(src: string, opts: { wrt?: string[] } = {}): { r: CompileResult; mod: Record<string, Fn> } {
  const r = compile(src, { head: 'f', js: true, runtimeImport: null, ...opts });
  expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
  return { r, mod: loadGenerated(r.code, r.runtimeNames) as unknown as Record<string, Fn> };
}

/** the source itself, run as JavaScript (no tsad in between) */
function original(src: string): Fn {
  const js = ts.transpileModule(src.replace(/^export /gm, ''), { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText;
  return new Function(`${js}; return f;`)() as Fn;
}

function near(a: number, b: number, tol: number, what: string): void {
  if (!(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)))) expect.fail(`${what}: ${a} vs ${b}`);
}

const F32 = `export function f(x: number[], w: number): number {
  const buf = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) buf[i] = Math.sin(x[i]) * w;
  const c = Float32Array.from(x);
  const part = c.subarray(1);
  let s = 0;
  for (let i = 0; i < buf.length; i++) s += buf[i] * buf[i] + c[i] * w;
  for (const v of part) s += v * v * v;
  return s;
}
`;
const F64 = F32.replaceAll('Float32Array', 'Float64Array');

describe('Float32Array', () => {
  const x = [0.3, -1.1, 0.7], w = 1.3;
  const xd = [0.5, -0.25, 1], wd = -0.75;
  const f32 = build(F32), f64 = build(F64);

  it('primal values are rounded to float32 on store, exactly as the source does', () => {
    expect(f32.mod.f([...x], w)).toBe(original(F32)([...x], w));
    expect(f32.mod.f([...x], w)).not.toBe(f64.mod.f([...x], w)); // (the rounding is real)
  });

  it('the Float64Array twin passes divided differences', () => {
    const rep = checkCompiled(f64.r, f64.r.code, 'f', [x, w]);
    expect(rep.messages).toEqual([]);
  });

  it('tangent, vector tangent and adjoint equal the Float64Array twin up to float32 rounding', () => {
    const t32 = f32.mod.f_d([...x], [...xd], w, wd) as [number, number];
    const t64 = f64.mod.f_d([...x], [...xd], w, wd) as [number, number];
    near(t32[1], t64[1], 1e-6, 'tangent');
    const xb32 = [0, 0, 0], xb64 = [0, 0, 0];
    const wb32 = f32.mod.f_b([...x], xb32, w, 1) as number;
    const wb64 = f64.mod.f_b([...x], xb64, w, 1) as number;
    near(wb32, wb64, 1e-6, 'adjoint of w');
    xb32.forEach((v, i) => near(v, xb64[i], 1e-6, `adjoint of x[${i}]`));
    const rep = checkCompiled(f32.r, f32.r.code, 'f', [x, w]);
    expect(rep.dotError).toBeLessThan(1e-10);
    expect(rep.vectorError).toBeLessThan(1e-12);
    expect(rep.tapeEmpty).toBe(true);
  });

  it('its shadow is a Float64Array: in signatures, in locals, from zerosLike', () => {
    const src = `export function f(v: Float32Array, k: number): number {\n  const u = Float32Array.from(v);\n  for (let i = 0; i < u.length; i++) u[i] *= k;\n  let s = 0;\n  for (let i = 0; i < u.length; i++) s += u[i] * v[i];\n  return s;\n}\n`;
    const r = compile(src, { head: 'f', runtimeImport: 'tsad/runtime' });
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
    expect(r.code).toMatch(/vd: Float64Array/);
    expect(r.code).toMatch(/vb: Float64Array/);
    expect(r.code).toMatch(/ub = new Float64Array\(/);
    expect(r.code).not.toMatch(/: Float32Array\b.*\b(ud|ub)\b/);
    expect(typecheckModules({ float32: r.code })).toEqual([]);
    const z = zerosLike(new Float32Array(3));
    expect(z).toBeInstanceOf(Float64Array);
    expect(zerosLike({ a: new Float32Array(2), n: new Int32Array(2) })).toEqual({ a: new Float64Array(2) });
  });
});

describe('integer typed arrays', () => {
  const SRC = `export function f(x: number): number {
  const a = new Int32Array(2);
  a[0] = x * 10;
  a[1] = 2 ** 31 + x;
  const c = new Uint8ClampedArray([x * 100, 300]);
  const b = Uint8Array.from([x * 100 - 300]);
  const s = new Int8Array(3).fill(x * 200);
  return a[0] + a[1] + x + c[0] + c[1] + b[0] + s[2];
}
`;
  it('truncate, wrap and clamp as JavaScript does, with no derivative', () => {
    const { r, mod } = build(SRC);
    for (const x of [0.37, 1.91, -0.64]) {
      expect(mod.f(x)).toBe(original(SRC)(x));
      expect((mod.f_d(x, 1) as number[])[1]).toBe(1);
      expect(mod.f_b(x, 1)).toBe(1);
    }
    expect(typecheckModules({ ints: compile(SRC, { head: 'f', runtimeImport: 'tsad/runtime' }).code })).toEqual([]);
    expect(r.code).toMatch(/new Int8Array\(3\)\.fill\(x \* 200\)/);
  });

  it('index other arrays (an Int32Array permutation)', () => {
    const src = `export function f(x: number[]): number {\n  const p = new Int32Array(x.length);\n  for (let i = 0; i < p.length; i++) p[i] = p.length - 1 - i;\n  let s = 0;\n  for (let i = 0; i < p.length; i++) s += (i + 1) * x[p[i]] * x[p[i]];\n  return s;\n}\n`;
    const { r } = build(src);
    const rep = checkCompiled(r, r.code, 'f', [[0.5, -1, 2]]);
    expect(rep.messages).toEqual([]);
  });
});

describe('the runtime API', () => {
  it('takes integer typed arrays as (passive) arguments, and refuses a Float32Array argument', async () => {
    const { grad } = await import('../src/index.js');
    const perm = new Function('x', 'piv', 'let s = 0; for (let i = 0; i < x.length; i++) s += x[piv[i]] * (i + 1); return s;') as (x: number[], piv: Int32Array) => number;
    expect(grad(perm, { wrt: ['x'] })([1, 2, 3], new Int32Array([2, 0, 1]))).toEqual([[2, 3, 1]]);
    const sq = new Function('v', 'let s = 0; for (let i = 0; i < v.length; i++) s += v[i] * v[i]; return s;') as (v: Float32Array) => number;
    expect(() => grad(sq)(new Float32Array([1, 2.5]))).toThrow(/argument 1 \(v\) has a shape tsad cannot differentiate through/);
  });
});
