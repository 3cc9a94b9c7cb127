// The runtime API's self-check (src/api/selfcheck.ts): the first call of each compiled derivative
// compares one tangent and one adjoint by the dot-product test. Here: a deliberately broken adjoint is
// caught with a useful message; a non-finite point is skipped and the check re-armed; `check: false`
// skips it; the caller's arguments are left alone; later calls do not check again; and no false alarm
// over a batch of corpus functions called through the runtime API.
//
// Two seams, both test-only mocks (no hook in the library): compileModule() (what the runtime API calls) is wrapped so that a test can
// post-process the generated code (`tamper`), and selfCheck() is wrapped so that a test can see each
// verdict (`verdicts`).
import ts from 'typescript';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { CompileResult } from '../src/api/compile.js';
import type { DotTest } from '../src/api/selfcheck.js';
import { dotTest } from '../src/api/selfcheck.js';
import { grad, jacobian, jvp, valueAndGrad, vjp } from '../src/index.js';
import { corpus } from './corpus/index.js';
import type { ArgSpec } from './corpus/types.js';
import { caseSources, drawArgs } from './support/corpus.js';

const seams = vi.hoisted(() => ({ tamper: null as null | ((code: string) => string), verdicts: [] as { kind: string }[] }));

vi.mock('../src/api/compile.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../src/api/compile.js')>();
  return {
    ...m,
    compileModule: (...a: Parameters<typeof m.compileModule>): CompileResult => {
      const r = m.compileModule(...a);
      return seams.tamper ? { ...r, code: seams.tamper(r.code) } : r;
    },
  };
});

vi.mock('../src/api/selfcheck.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../src/api/selfcheck.js')>();
  return {
    ...m,
    selfCheck: (...a: Parameters<typeof m.selfCheck>): DotTest => {
      const t = m.selfCheck(...a);
      seams.verdicts.push(t);
      return t;
    },
  };
});

beforeEach(() => {
  seams.tamper = null;
  seams.verdicts.length = 0;
});

const kinds = () => seams.verdicts.map((v) => v.kind);

/** scales what f_b returns (the scalar adjoints) by `factor`: a subtly wrong adjoint */
const scaleScalarAdjoint = (factor: number) => (code: string) => {
  const out = code.replace(/(export function \w+_b\([^)]*\) \{[\s\S]*?)return adjoints;/, `$1return adjoints * ${factor};`);
  if (out === code) throw new Error('tamper: no scalar adjoint return found');
  return out;
};

describe('a wrong derivative is caught', () => {
  it('a scalar adjoint off by 1e-6 relative: an Error naming the function, the point, both numbers and what to do', () => {
    seams.tamper = scaleScalarAdjoint(1 + 1e-6);
    const f = function wobble(x: number, w: number[]) {
      return Math.sin(x) * w[0] + x * x * w[1];
    };
    const w = [0.5, -1.25, 3, 4, 5, 6, 7, 8];
    let err: Error | undefined;
    try {
      grad(f)(0.75, w);
    } catch (e) {
      err = e as Error;
    }
    expect(err).toBeInstanceOf(Error);
    const msg = err!.message;
    expect(msg).toMatch(/self-check failed/);
    expect(msg).toContain("'wobble'");
    // the point, compactly: every argument by name, long arrays elided
    expect(msg).toContain('x = 0.75, w = [0.5, -1.25, 3, 4, 5, 6, … 2 more]');
    // both numbers of the dot-product test, and they differ
    const m = /ȳ·\(J ẋ\) = (\S+) but \(Jᵀȳ\)·ẋ = (\S+) /.exec(msg);
    expect(m).not.toBeNull();
    const [left, right] = [Number(m![1]), Number(m![2])];
    expect(Number.isFinite(left) && Number.isFinite(right)).toBe(true);
    expect(Math.abs(right / left - 1)).toBeCloseTo(1e-6, 8);
    // how to report it (the source is in the message) and how to turn the check off
    expect(msg).toMatch(/report it as an issue, with the function's source and the arguments of this call \(the point above is abridged\)/);
    expect(msg).toContain('Math.sin(x) * w[0] + x * x * w[1]');
    expect(msg).toContain('{ check: false }');
    expect(kinds()).toEqual(['mismatch']);
  });

  it('a wrong array adjoint, through each entry point', () => {
    // the adjoint of y[1] doubled (its tangent stays right)
    seams.tamper = (code) => {
      const out = code.replace(/yb\[1\] \+= resultb;/, 'yb[1] += 2 * resultb;');
      if (out === code) throw new Error('tamper: pattern not found');
      return out;
    };
    const mk = () => (y: number[]) => y[0] * y[0] + y[1];
    expect(() => grad(mk())([1, 2])).toThrow(/self-check failed/);
    expect(() => valueAndGrad(mk())([1, 2])).toThrow(/self-check failed/);
    expect(() => jacobian(mk())([1, 2])).toThrow(/self-check failed/);
    expect(() => jvp(mk(), [[1, 2]], [[1, 0]])).toThrow(/self-check failed/);
    expect(() => vjp(mk(), [[1, 2]])).toThrow(/self-check failed/);
    // the wrong derivative is there: with the check off it is returned
    expect(grad(mk(), { check: false })([1, 2])).toEqual([2, 2]);
  });

  it('at a kink (a tie of Math.max) the convention is no bug: the derivative is returned, and the next call checks', () => {
    const f = (xs: number[]) => Math.max(...xs);
    const g = grad(f);
    expect(g([2, 2, 1])).toEqual([1, 0, 0]); // ties take the first
    expect(g([3, 2, 1])).toEqual([1, 0, 0]);
    expect(kinds()).toEqual(['kink', 'pass']);
    expect(grad((x: number) => Math.abs(x) + x * x)(0)).toBe(0);
  });

  it('at a kink, a derivative beyond both one-sided derivatives is still a bug', () => {
    // the tangent and the adjoint scaled alike (7 for 3): they agree with each other, not with the function
    seams.tamper = (code) => {
      const out = code.replace('3 * mostd', '7 * mostd').replace('3 * mostd', '7 * mostd').replace('mostb += 3 * resultb', 'mostb += 7 * resultb');
      if (!out.includes('mostb += 7 * resultb')) throw new Error('tamper: pattern not found');
      return out;
    };
    expect(() => grad((xs: number[]) => 3 * Math.max(...xs))([2, 2, 1])).toThrow(/self-check failed[\s\S]*has a kink there[\s\S]*beyond both[\s\S]*This is a bug in tsad/);
  });

  it('a failed check stays armed: the next call checks (and fails) again', () => {
    seams.tamper = scaleScalarAdjoint(2);
    const g = grad((x: number) => x * x * x);
    expect(() => g(1.5)).toThrow(/self-check failed/);
    expect(() => g(1.5)).toThrow(/self-check failed/);
    expect(kinds()).toEqual(['mismatch', 'mismatch']);
  });
});

describe('large arguments', () => {
  it('an array of 300 000 numbers: the check\'s step size is found without spreading them into Math.max', () => {
    // (`Math.max(1, ...xs)` overflowed the call stack at this size: the bench's n = 10⁶ grad threw
    // "the derivative ran out of call stack" on its first, checked call)
    const f = (x: number[], a: number) => {
      let s = 0;
      for (let i = 0; i < x.length; i++) s += Math.log(1 + (x[i] * x[i] + a * x[i]) ** 2);
      return s;
    };
    const x = Array.from({ length: 300_000 }, (_, i) => Math.sin(i));
    const g = grad(f)(x, 0.3);
    const t = x[7] * x[7] + 0.3 * x[7];
    expect(g[7]).toBeCloseTo((2 * t * (2 * x[7] + 0.3)) / (1 + t * t), 12);
  });
});

describe('when the check runs', () => {
  it('once per compiled derivative: later calls, and the same shapes through another wrapper, do not check', () => {
    const f = (x: number, y: number[]) => x * y[0] + Math.exp(y[1]);
    const g = grad(f, { wrt: [0, 1] });
    g(1, [2, 3]);
    g(2, [3, 4]);
    grad(f, { wrt: [0, 1] })(3, [4, 5]);
    expect(kinds()).toEqual(['pass']);
    // new shapes or other independents: another compiled derivative, checked on its first call
    g(1, [2, 3, 4]);
    grad(f, { wrt: 1 })(1, [2, 3]);
    expect(kinds()).toEqual(['pass', 'pass', 'pass']);
  });

  it('a non-finite point skips the check without throwing and re-arms it; the next finite call checks', () => {
    const f = (x: number) => Math.log(x) + x;
    const g = grad(f);
    expect(g(0)).toBe(Infinity); // log'(0): the derivative itself is infinite
    expect(() => g(-1)).not.toThrow(); // log(-1) is NaN (its derivative is not)
    expect(kinds()).toEqual(['nonfinite', 'nonfinite']);
    expect(g(2)).toBeCloseTo(1.5, 12);
    g(3);
    expect(kinds()).toEqual(['nonfinite', 'nonfinite', 'pass']);
  });

  it('non-finite arguments skip it too, and a wrong adjoint is still caught at the next finite point', () => {
    seams.tamper = scaleScalarAdjoint(1.5);
    const g = grad((x: number, y: number[]) => x * y[0]);
    expect(() => g(NaN, [1])).not.toThrow();
    expect(() => g(1, [Infinity])).not.toThrow();
    expect(() => g(1, [2])).toThrow(/self-check failed/);
    expect(kinds()).toEqual(['nonfinite', 'nonfinite', 'mismatch']);
  });

  it('check: false skips it (no verdict, no error with a broken adjoint)', () => {
    seams.tamper = scaleScalarAdjoint(2);
    const f = (x: number) => x * x;
    expect(grad(f, { check: false })(3)).toBe(12);
    expect(valueAndGrad(f, { check: false })(3)).toEqual([9, 12]);
    expect(jvp(f, [3], [1], { check: false })[1]).toBe(6);
    expect(jacobian(f, { check: false })(3)).toEqual([[12]]);
    expect(vjp(f, [3], { check: false })[1](1)).toBe(12);
    expect(kinds()).toEqual([]);
    // the same compiled derivative through a checking wrapper: still unchecked, so it checks now
    expect(() => grad(f)(3)).toThrow(/self-check failed/);
  });

  it("leaves the caller's arguments unchanged, with functions that write into their arguments", () => {
    const f = (x: number[], m: { a: number[]; b: Float64Array }) => {
      let s = 0;
      for (let i = 0; i < x.length; i++) {
        x[i] = x[i] * m.a[i];
        m.b[i] = m.b[i] + x[i];
        s += x[i] * m.b[i];
      }
      return s;
    };
    const x = [1, 2, 3];
    const m = { a: [0.5, 1.5, -2], b: Float64Array.from([1, 1, 1]) };
    const before = JSON.stringify([x, m.a, Array.from(m.b)]);
    const g = grad(f, { wrt: [0, 1] })(x, m);
    expect(kinds()).toEqual(['pass']);
    expect(JSON.stringify([x, m.a, Array.from(m.b)])).toBe(before);
    expect(m.b).toBeInstanceOf(Float64Array);
    expect(Array.isArray(g)).toBe(true);
  });

  it('a function without a result (it only writes into its arguments) has nothing to compare: no error', () => {
    const swap = function swap(xs: number[]): void {
      const t = xs[0];
      xs[0] = xs[1];
      xs[1] = t;
    };
    expect(() => vjp(swap, [[1, 2]])).not.toThrow();
    expect(kinds()).toEqual(['pass']);
  });
});

describe('the comparison', () => {
  it('passes within 1e-8 of the terms summed, fails beyond, and calls NaN or Infinity non-finite', () => {
    // ȳ·ẏ = 2·3 = 6; x̄·ẋ = 1·(6 + δ)
    expect(dotTest([1], [6 + 6e-9], 3, 2).kind).toBe('pass');
    expect(dotTest([1], [6 + 6e-7], 3, 2).kind).toBe('mismatch');
    // the scale is the sum of |terms|, not |sum|: cancelling terms do not make it stricter
    expect(dotTest([[1, 1]], [[1e6, -1e6 + 6 + 1e-3]], 3, 2).kind).toBe('pass');
    expect(dotTest([[1, 1]], [[1e6, -1e6 + 6 + 1]], 3, 2).kind).toBe('mismatch');
    // a derivative computed by cancellation (x − tanh(x) near 0): both sides are rounding of O(1) terms,
    // so the floor 1e-14·|ȳ|₁·|ẋ|₁ applies (fuzz regression dot-e193acde)
    expect(dotTest([1], [2.0736252949763274e-18], 2.0736767678433837e-18, 1).kind).toBe('pass');
    // below the floor a wrong derivative is not seen; above it, it is
    expect(dotTest([1], [0.9e-14], 0, 1).kind).toBe('pass');
    expect(dotTest([1], [2e-14], 0, 1).kind).toBe('mismatch');
    // a NaN adjoint beside a finite tangent: one of them is wrong (a dropped store replayed, say)
    expect(dotTest([1], [NaN], 3, 2).kind).toBe('mismatch');
    // …but not where an argument the function shortened has an adjoint of another length
    expect(dotTest([[1, 1]], [[2]], 3, 2).kind).toBe('nonfinite');
    expect(dotTest([1], [1], [Infinity], [1]).kind).toBe('nonfinite');
    // terms finite, their sum overflows
    expect(dotTest([[1e308, 1e308]], [[1e308, 1e308]], 0, 0).kind).toBe('nonfinite');
  });
});

// ---------------------------------------------------------------------------------------------------
// corpus functions through the runtime API

/** Every top-level function and constant of a corpus module, evaluated as JavaScript (its imports resolved the same way). */
function loadCorpusModule(file: string, sources: Record<string, string>, cache = new Map<string, Record<string, unknown>>()): Record<string, unknown> {
  const hit = cache.get(file);
  if (hit) return hit;
  const src = sources[file];
  const sf = ts.createSourceFile(file, src, ts.ScriptTarget.ES2020);
  const names: string[] = [];
  const imported: Record<string, unknown> = {};
  for (const s of sf.statements) {
    if (ts.isFunctionDeclaration(s) && s.name) names.push(s.name.text);
    else if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    } else if (ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && s.importClause?.namedBindings && ts.isNamedImports(s.importClause.namedBindings)) {
      const dep = loadCorpusModule(s.moduleSpecifier.text.replace(/^\.\//, '').replace(/\.js$/, '.ts'), sources, cache);
      for (const el of s.importClause.namedBindings.elements) imported[el.name.text] = dep[(el.propertyName ?? el.name).text];
    }
  }
  const js = ts.transpileModule(src, { compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ESNext } }).outputText;
  const body = js.replace(/^import .*$/gm, '').replace(/^export \{\};?$/gm, '').replace(/^export /gm, '');
  const mod = new Function(...Object.keys(imported), `"use strict";\n${body}\nreturn { ${names.join(', ')} };`)(...Object.values(imported)) as Record<string, unknown>;
  const all = { ...imported, ...mod };
  cache.set(file, all);
  return all;
}

const carriesFloats = (s: ArgSpec): boolean => s.kind === 'num' || s.kind === 'vec' || s.kind === 'mat' || s.kind === 'tuple' || (s.kind === 'obj' && Object.values(s.fields).some(carriesFloats));

describe('no false alarms over corpus functions called through the runtime API', () => {
  it('every corpus function the runtime API compiles passes its self-check', () => {
    const checked: string[] = [];
    const skipped: string[] = [];
    for (const c of corpus) {
      if ((c as { of?: string[] }).of) continue; // outputs through arguments: the runtime API differentiates the result
      const mod = loadCorpusModule(c.file, caseSources(c.file));
      const f = mod[c.head] as (...a: unknown[]) => unknown;
      // the independents by position (a destructured parameter has no name to give)
      const wrt = c.wrt ?? c.args.flatMap((a, i) => (carriesFloats(a) ? [i] : []));
      const scope = Object.fromEntries(Object.entries(mod).filter(([k]) => k !== c.head));
      // a fresh function object (closed over the module's names, as the original is): its first call compiles and checks;
      // bound to its name as in the module, so that an arrow (`const legendre = (n, x) => …`) keeps the name it recurses by
      const fresh = new Function(...Object.keys(scope), `const ${c.head} = ${String(f)};\nreturn ${c.head};`)(...Object.values(scope)) as (...a: unknown[]) => unknown;
      seams.verdicts.length = 0;
      let compiled = true;
      try {
        vjp(fresh, drawArgs(c, 11), { wrt, scope });
      } catch (e) {
        const msg = (e as Error).message;
        if (/self-check/.test(msg)) throw new Error(`${c.name}: ${msg}`);
        compiled = false; // outside what the runtime API reads back from a function's source
      }
      // (a non-finite point would be skipped: the corpus keeps its functions inside their domains)
      if (compiled) expect(kinds(), c.name).toEqual(['pass']);
      (compiled ? checked : skipped).push(c.name);
    }
    console.log(`self-check over the corpus: ${checked.length} functions checked, ${skipped.length} outside the runtime API (${skipped.join(', ')})`);
    expect(checked.length).toBeGreaterThanOrEqual(100);
  });
});

describe('--check against the source as written (src/api/original.ts)', () => {
  it('runs a self-contained file as written, and not one that imports', async () => {
    const { loadOriginal } = await import('../src/api/original.js');
    const m = loadOriginal('export const k = 2;\nexport function f(x: number[]): number { x[0] = k; return x[0] + x[1]; }');
    expect((m!.f as (x: number[]) => number)([5, 1])).toBe(3);
    expect(loadOriginal("import { g } from './g.js';\nexport function f(x: number): number { return g(x); }")).toBeNull();
  });
  it('compares result and written arguments: another value is told apart', async () => {
    const { comparePrimal } = await import('../src/api/original.js');
    const source = (x: number[]) => ((x[0] = 2), x[0] * x[1]);
    expect(comparePrimal(source, (x) => (((x as number[])[0] = 2), (x as number[])[0] * (x as number[])[1]), [[1, 3]])!.same).toBe(true);
    expect(comparePrimal(source, (x) => (x as number[])[0] * (x as number[])[1] * 2, [[1, 3]])!.same).toBe(false);
    expect(comparePrimal(source, (x) => (((x as number[])[1] = 2), 6), [[1, 3]])!.same).toBe(false);
  });
});
