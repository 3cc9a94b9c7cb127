// The lean-adjoint refinements, level by level (Tapenade §4.9): naive store-all → diff-liveness → TBR →
// recomputation. Tapenade's trajectory example (report §3.9, figure 11) shows the pushes falling at each
// level with identical gradients; the corpus passes at every level (each case at the ends and one level between).
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { compile, type CompileOptions } from '../src/api/compile.js';
import { loadGenerated } from '../src/api/load.js';
import { formatDiagnostic } from '../src/frontend/diagnostics.js';
import { Tape } from '../src/runtime/tape.js';
import { corpus } from './corpus/index.js';
import { compileCase, drawArgs } from './support/corpus.js';
import { typecheckModules } from './support/typecheck.js';

/** the refinement levels, each adding one to the previous; results of the primal are not kept */
const LEVELS: { name: string; adjoint: NonNullable<CompileOptions['adjoint']> }[] = [
  { name: 'naive', adjoint: { tbr: false, recompute: false, diffLiveness: false, merge: false, primalResults: false } },
  { name: 'diff-liveness', adjoint: { tbr: false, recompute: false, merge: false, primalResults: false } },
  { name: 'TBR', adjoint: { recompute: false, merge: false, primalResults: false } },
  { name: 'recomputation', adjoint: { merge: false, primalResults: false } },
  { name: 'merged increments', adjoint: { primalResults: false } },
];
/** joint mode: every call checkpointed (and re-run in the backward sweep) */
const JOINT = { name: 'joint', adjoint: { checkpointCalls: true } };

// Figure 11's code (the whole body of the differentiated procedure), in TypeScript
const TRAJECTORY = `export function traj(A: number[], B: number[], Z: number[], T: number[], x: number, IND1: readonly number[], IND2: readonly number[], i: number): void {
  let n = IND1[i];
  B[n] = (A[n] + B[n]) * 0.5;
  A[n] = A[n] + x;
  let c = A[n] * B[n];
  A[n] = A[n] * A[n + 1];
  n = IND2[i];
  Z[n] = Z[n] + c;
  n = IND2[i + 1];
  c = A[n] / B[n];
  T[n] = T[n] - c;
}`;

type Fn = (...a: unknown[]) => unknown;

function trajectoryRun(level: (typeof LEVELS)[number], ind1: number[], ind2: number[]) {
  const r = compile(TRAJECTORY, { head: 'traj', wrt: ['A', 'B', 'x'], of: ['Z', 'T'], js: true, runtimeImport: null, adjoint: level.adjoint });
  expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
  const m = loadGenerated(r.code) as Record<string, Fn>;
  const A = [1.3, 0.7, -0.4, 2.1], B = [0.9, 1.6, 0.5, -1.2], Z = [0, 0, 0, 0], T = [0, 0, 0, 0];
  const Ab = [0, 0, 0, 0], Bb = [0, 0, 0, 0], Zb = [0.3, -1.1, 0.8, 0.45], Tb = [-0.6, 0.25, 1.4, 0.9];
  const tape = Tape.acquire();
  m.traj_fwd(tape, A, Ab, B, Bb, Z, Zb, T, Tb, 0.37, ind1, ind2, 1);
  const pushes = tape.heights.floats + tape.heights.ints + tape.heights.refs;
  const xb = m.traj_bwd(tape, A, Ab, B, Bb, Z, Zb, T, Tb, 0.37, ind1, ind2, 1) as number;
  const empty = tape.empty;
  Tape.release(tape);
  return { pushes, grad: [...Ab, ...Bb, xb], empty, code: r.code };
}

/** Zb·Z + Tb·T after the primal, by central differences in direction e of (A, B, x) */
function trajectoryDD(ind1: number[], ind2: number[], k: number): number {
  const f = (h: number) => {
    const A = [1.3, 0.7, -0.4, 2.1], B = [0.9, 1.6, 0.5, -1.2], Z = [0, 0, 0, 0], T = [0, 0, 0, 0];
    let x = 0.37;
    if (k < 4) A[k] += h;
    else if (k < 8) B[k - 4] += h;
    else x += h;
    let n = ind1[1];
    B[n] = (A[n] + B[n]) * 0.5;
    A[n] = A[n] + x;
    let c = A[n] * B[n];
    A[n] = A[n] * A[n + 1];
    n = ind2[1];
    Z[n] = Z[n] + c;
    n = ind2[2];
    c = A[n] / B[n];
    T[n] = T[n] - c;
    const zb = [0.3, -1.1, 0.8, 0.45], tb = [-0.6, 0.25, 1.4, 0.9];
    return Z.reduce((s, z, j) => s + z * zb[j], 0) + T.reduce((s, t, j) => s + t * tb[j], 0);
  };
  return (f(1e-6) - f(-1e-6)) / 2e-6;
}

describe("Tapenade's trajectory example (figure 11)", () => {
  const cases: [string, number[], number[]][] = [
    ['distinct indices', [0, 1, 0], [0, 2, 0]],
    ['IND1(i) = IND2(i+1)', [0, 1, 0], [0, 2, 1]],
    ['IND1(i) = IND2(i) = IND2(i+1) (aliasing)', [0, 2, 0], [0, 2, 2]],
  ];
  for (const [name, ind1, ind2] of cases)
    it(`pushes fall level by level with identical gradients: ${name}`, () => {
      const runs = LEVELS.map((l) => trajectoryRun(l, ind1, ind2));
      // naive: every overwritten value (9: n twice, B(n), A(n) twice, Z(n), c, T(n), and n handed to the
      // backward sweep); diff-liveness drops Z(n), T(n) and c; TBR the initial A(n), B(n) and n; only
      // A(n) is left once n is recomputed
      expect(runs.map((r) => r.pushes)).toEqual([9, 6, 4, 1, 1]);
      for (const r of runs) {
        expect(r.grad).toEqual(runs[0].grad);
        expect(r.empty).toBe(true);
      }
      runs[0].grad.forEach((g, k) => expect(Math.abs(g - trajectoryDD(ind1, ind2, k))).toBeLessThan(1e-7));
      // the recomputations of figure 11 (4): n = ind2(i+1), n = ind2(i), n = ind1(i) in the backward sweep
      const bwd = runs[4].code.slice(runs[4].code.indexOf('function traj_bwd'));
      expect(bwd).toMatch(/n = IND2\[i \+ 1\];[\s\S]*n = IND2\[i\];[\s\S]*n = IND1\[i\];/);
      expect(bwd).not.toMatch(/n = tape\.pop/);
    });
});

describe("corpus at the refinement levels", () => {
  // every case at the two ends (naive store-all, joint) and at one of the levels between them, taken in
  // turn, so that each level still sees a quarter of the corpus (the default level is the corpus test's)
  const between = LEVELS.slice(1);
  corpus.forEach((c, i) =>
    it(c.name, () => {
      for (const level of [LEVELS[0], between[i % between.length], JOINT]) {
        // the vector tangent does not depend on the adjoint's level: it is checked once, by the corpus test
        const r = compileCase(c, { adjoint: level.adjoint, modes: ['tangent', 'reverse'] });
        expect(r.diagnostics.map(formatDiagnostic), level.name).toEqual([]);
        let ok = false;
        for (let k = 0; k < 6 && !ok; k++) {
          const seed = 11 + 100 * k;
          const rep = checkCompiled(r, r.code, c.head, drawArgs(c, seed), { seed });
          if (rep.unstable && rep.tangentError > 1e-6) continue;
          expect(rep.messages, `${level.name}, seed ${seed}`).toEqual([]);
          expect(rep.tapeEmpty, level.name).toBe(true);
          ok = true;
        }
        expect(ok, `${level.name}: a stable point`).toBe(true);
      }
    }),
  );
});

describe('recomputation and the $ad store directive', () => {
  it("'$ad store n' keeps n on the tape instead of recomputing it (trajectory example)", () => {
    const withStore = (src: string) => {
      const r = compile(src, { head: 'traj', wrt: ['A', 'B', 'x'], of: ['Z', 'T'], js: true, runtimeImport: null, adjoint: { primalResults: false } });
      const m = loadGenerated(r.code) as Record<string, Fn>;
      const tape = Tape.acquire();
      const A = [1.3, 0.7, -0.4, 2.1], B = [0.9, 1.6, 0.5, -1.2], Ab = [0, 0, 0, 0], Bb = [0, 0, 0, 0];
      m.traj_fwd(tape, A, Ab, B, Bb, [0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], [1, 2, 3, 4], 0.37, [0, 1, 0], [0, 2, 0], 1);
      const pushes = tape.heights.floats;
      const xb = m.traj_bwd(tape, A, Ab, B, Bb, [0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], [1, 2, 3, 4], 0.37, [0, 1, 0], [0, 2, 0], 1);
      Tape.release(tape);
      return { pushes, grad: [...Ab, ...Bb, xb] };
    };
    const plain = withStore(TRAJECTORY);
    const stored = withStore(TRAJECTORY.replace('  let n = IND1[i];', '  // $ad store n\n  let n = IND1[i];'));
    expect(plain.pushes).toBe(1);
    expect(stored.pushes).toBe(4);
    expect(stored.grad).toEqual(plain.grad);
  });

  // scratch arrays filled at the top of each iteration: recomputed in the reversed iteration by
  // default (nothing recorded per element), recorded with '$ad store' on the filling loop
  const SCRATCH = (directive: string) => `export function energy(x: number[][], c: number[], w: number[]): number {
  const d = c.length;
  const diff = new Float64Array(d);
  let total = 0;
  for (let i = 0; i < x.length; i++) {
    const xi = x[i];
    ${directive}
    for (let j = 0; j < d; j++) {
      diff[j] = xi[j] - c[j];
    }
    let s = 0;
    for (let j = 0; j < d; j++) s += w[j] * diff[j] * diff[j];
    total += Math.log(1 + s);
  }
  return total;
}`;
  it('scratch arrays are recomputed per reversed iteration unless stored, with the same gradient', () => {
    const run = (src: string) => {
      // (fused, the loop over points would run each point's adjoint at once: nothing to recompute)
      const r = compile(src, { head: 'energy', js: true, runtimeImport: null, adjoint: { tbr: true, fuseReductions: false } });
      expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
      const x = Array.from({ length: 50 }, (_, i) => [Math.sin(i), Math.cos(i), 0.1 * i]);
      const rep = checkCompiled(r, r.code, 'energy', [x, [0.2, -0.1, 0.4], [1, 0.5, 2]], { seed: 3 });
      expect(rep.messages).toEqual([]);
      const m = loadGenerated(r.code) as Record<string, Fn>;
      const cb = [0, 0, 0], wb = [0, 0, 0], xb = x.map(() => [0, 0, 0]);
      const tape = Tape.acquire();
      m.energy_fwd(tape, x, xb, [0.2, -0.1, 0.4], cb, [1, 0.5, 2], wb);
      const pushes = tape.heights.floats;
      m.energy_bwd(tape, x, xb, [0.2, -0.1, 0.4], cb, [1, 0.5, 2], wb, 1);
      Tape.release(tape);
      return { pushes, grad: [cb, wb, xb] };
    };
    const recomputed = run(SCRATCH(''));
    const stored = run(SCRATCH('// $ad store'));
    // one running sum per iteration is recorded either way; the three elements of diff only when stored
    expect(recomputed.pushes).toBeLessThan(60);
    expect(stored.pushes).toBeGreaterThanOrEqual(200);
    expect(recomputed.grad).toEqual(stored.grad);
  });
});

describe('merging differentiated statements (Tapenade figure 10)', () => {
  const FIG10 = `export function merge(tau: number, w: number[][], g: number[][], z: number[], v: number[], i: number, j: number): void {
  const res = ((tau - w[i][j]) * g[i][j] * (z[j] - 2.0)) / v[j];
  g[i][j] = res * v[j];
}`;
  it('a reset followed by an increment becomes one assignment, with the same gradient', () => {
    const run = (merge: boolean) => {
      const r = compile(FIG10, { head: 'merge', wrt: ['tau', 'w', 'g', 'z', 'v'], js: true, runtimeImport: null, adjoint: { merge } });
      const m = loadGenerated(r.code) as Record<string, Fn>;
      const w = [[0.3, 0.7]], g = [[1.1, -0.4]], z = [2.5, 3.1], v = [1.7, 0.9];
      const wb = [[0, 0]], gb = [[0.6, -1.3]], zb = [0, 0], vb = [0, 0];
      const taub = m.merge_b(0.8, w, wb, g, gb, z, zb, v, vb, 0, 1);
      return { code: r.code, grad: [taub, wb, gb, zb, vb] };
    };
    const merged = run(true), plain = run(false);
    expect(merged.grad).toEqual(plain.grad);
    expect(plain.code).toMatch(/gb\[i\]\[j\] = 0;[\s\S]*gb\[i\]\[j\] \+= /);
    expect(merged.code).toMatch(/gb\[i\]\[j\] = temp \* tempb0;/);
    expect(merged.code).not.toMatch(/gb\[i\]\[j\] = 0;/);
  });

  it("an iteration's temporary adjoint is assigned at its first increment and never reset (it lives one iteration)", () => {
    const src = `export function dist(a: number[], b: number[]): number {
  let s = 0;
  for (let u = 0; u < a.length; u++) {
    const t = a[u] - b[u];
    s += t * t;
  }
  return s;
}`;
    const run = (merge: boolean) => {
      const r = compile(src, { head: 'dist', wrt: ['b'], js: true, runtimeImport: null, modes: ['reverse'], adjoint: { merge } });
      const m = loadGenerated(r.code) as Record<string, Fn>;
      const bb = [0, 0, 0];
      m.dist_b([0.5, -1.25, 2], [0.25, 0.75, -1], bb, 1.5);
      return { code: r.code, bb };
    };
    const merged = run(true), plain = run(false);
    expect(merged.bb).toEqual(plain.bb);
    expect(plain.code).toMatch(/^\s*tb = 0;/m);
    expect(merged.code).toMatch(/tb = t \* sb \+ t \* sb;/);
    expect(merged.code).not.toMatch(/^\s*tb = 0;|tb = tb \+/m);
    // a loop that jumps out keeps the reset (an iteration may end early)
    const early = src.replace('s += t * t;', 's += t * t;\n    if (s > 4) break;');
    const e = compile(early, { head: 'dist', wrt: ['b'], js: false, runtimeImport: 'tsad/runtime', modes: ['reverse'] });
    expect(e.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const ej = compile(early, { head: 'dist', wrt: ['b'], js: true, runtimeImport: null });
    expect(checkCompiled(ej, ej.code, 'dist', [[0.5, -1.25, 2], [0.25, 0.75, -1]], { seed: 2 }).messages).toEqual([]);
  });

  it("a scratch array's adjoint is assigned by its first loop in each iteration and never cleared; same gradient", () => {
    const src = `export function f(x: number[][], w: number[], l: number[]): number {
  const n = x.length;
  const d = w.length;
  const y = new Float64Array(d);
  const z = new Float64Array(d);
  let s = 0;
  for (let i = 0; i < n; i++) {
    const xi = x[i];
    for (let j = 0; j < d; j++) {
      y[j] = xi[j] - w[j];
      z[j] = Math.exp(l[j]) * y[j];
    }
    for (let c = 0; c < d; c++) {
      for (let r = c + 1; r < d; r++) z[r] += l[c] * y[c];
    }
    let q = 0;
    for (let j = 0; j < d; j++) q += z[j] * z[j];
    s += Math.log(1 + q);
  }
  return s;
}`;
    const x = [[0.5, -1.25, 2], [0.25, 0.75, -1], [1.5, 0.1, -0.3]];
    const run = (code: string, merge: boolean) => {
      const r = compile(code, { head: 'f', wrt: ['w', 'l'], js: true, runtimeImport: null, modes: ['reverse'], adjoint: { merge } });
      const m = loadGenerated(r.code) as Record<string, Fn>;
      const wb = [0, 0, 0], lb = [0, 0, 0];
      m.f_b(x, [0.2, -0.1, 0.4], wb, [0.3, -0.2, 0.1], lb, 1);
      return { r, grad: [wb, lb] };
    };
    const on = run(src, true), off = run(src, false);
    expect(on.grad).toEqual(off.grad);
    // the first backward loop of an iteration assigns zb; no loop clears it
    expect(off.r.code).toMatch(/zb\[j0\] \+= 2 \* z\[j0\] \* qb;/);
    expect(on.r.code).toMatch(/zb\[j0\] = 2 \* z\[j0\] \* qb;/);
    expect(on.r.code).not.toMatch(/zb\[\w+\] = 0;/);
    const all = (code: string) => compile(code, { head: 'f', wrt: ['w', 'l'], js: true, runtimeImport: null });
    const full = all(src);
    expect(checkCompiled(full, full.code, 'f', [x, [0.2, -0.1, 0.4], [0.3, -0.2, 0.1]], { seed: 3 }).messages).toEqual([]);
    // a first loop that skips an element leaves the adjoint accumulated and cleared
    const partial = src.replace('for (let j = 0; j < d; j++) q +=', 'for (let j = 1; j < d; j++) q +=');
    const p = run(partial, true), pOff = run(partial, false);
    expect(p.grad).toEqual(pOff.grad);
    expect(p.r.code).toMatch(/zb\[j0\] \+= 2/);
    const fullP = all(partial);
    expect(checkCompiled(fullP, fullP.code, 'f', [x, [0.2, -0.1, 0.4], [0.3, -0.2, 0.1]], { seed: 4 }).messages).toEqual([]);
  });

  it('two increments merge only when nothing between reads or writes the location (self-reference kept apart)', () => {
    const src = `export function f(x: number, y: number): number {
  let s = x * y;
  s = s + Math.sin(x) * s;
  return s * 0.125;
}`;
    const a = compile(src, { head: 'f', js: true, runtimeImport: null, adjoint: { primalResults: false } });
    const b = compile(src, { head: 'f', js: true, runtimeImport: null, adjoint: { primalResults: false, merge: false } });
    const ma = loadGenerated(a.code) as Record<string, Fn>, mb = loadGenerated(b.code) as Record<string, Fn>;
    expect(ma.f_b(0.7, -1.3, 1)).toEqual(mb.f_b(0.7, -1.3, 1));
  });
});

describe('generated code at other levels', () => {
  it('type-checks under tsc --strict in joint mode and without primal results (one batched program)', () => {
    const modules: Record<string, string> = {};
    for (const c of corpus) {
      modules[`joint_${c.name}`] = compileCase(c, { js: false, runtimeImport: 'tsad/runtime', adjoint: { checkpointCalls: true } }).code;
      modules[`lean_${c.name}`] = compileCase(c, { js: false, runtimeImport: 'tsad/runtime', adjoint: { primalResults: false } }).code;
    }
    expect(typecheckModules(modules)).toEqual([]);
  }, 600_000); // (one tsc program over the whole corpus: slow on a loaded machine)
});

describe('scalar replacement in the backward sweep', () => {
  it('an accumulated element with an invariant index lives in a local over the inner loop; same gradient bits', () => {
    const src = `export function tri(l: number[], x: Float64Array): number {
  const d = x.length;
  const q = new Float64Array(d);
  let t = 0;
  for (let c = 0; c < d; c++) {
    for (let r = c + 1; r < d; r++) {
      q[r] += l[t] * Math.sin(x[c]);
      t++;
    }
  }
  let s = 0;
  for (let j = 0; j < d; j++) s += q[j] * q[j];
  return s;
}`;
    const on = compile(src, { head: 'tri', js: true, runtimeImport: null });
    const off = compile(src, { head: 'tri', js: true, runtimeImport: null, adjoint: { merge: false } });
    expect(on.code).toMatch(/let acc = xb\[\w+\];/);
    expect(off.code).not.toMatch(/let acc/);
    const run = (code: string) => {
      const m = loadGenerated(code) as Record<string, Fn>;
      const lb = [0, 0, 0, 0, 0, 0], xb = new Float64Array(4);
      m.tri_b([0.3, -0.2, 0.5, 0.7, 0.1, -0.4], lb, new Float64Array([0.2, 0.9, -0.5, 0.4]), xb, 1);
      return [lb, [...xb]];
    };
    expect(run(on.code)).toEqual(run(off.code));
    const rep = checkCompiled(on, on.code, 'tri', [[0.3, -0.2, 0.5, 0.7, 0.1, -0.4], new Float64Array([0.2, 0.9, -0.5, 0.4])], { seed: 2 });
    expect(rep.messages).toEqual([]);
  });

  it('an element of a fresh array stored and read again in the iteration is read from a local', () => {
    const src = `export function f(x: number[], w: number[]): number {
  const n = x.length;
  const y = new Float64Array(n);
  const z = new Float64Array(n);
  let s = 0;
  for (let j = 0; j < n; j++) {
    y[j] = x[j] - w[j];
    z[j] = Math.exp(w[j]) * y[j];
    y[j] = z[j] + 1;
    s += y[j] * z[j];
  }
  return s;
}`;
    const on = compile(src, { head: 'f', js: true, runtimeImport: null });
    const tangent = on.code.slice(on.code.indexOf('export function f_d('), on.code.indexOf('export function f_dv('));
    // each store is forwarded up to the next store into the same array; then nothing reads y or z,
    // and their stores and allocations go
    expect(tangent).toMatch(/const y_elem = x\[j\] - w\[j\];/);
    expect(tangent).toMatch(/const y_elem0 = z_elem \+ 1;/);
    expect(tangent).not.toMatch(/\b[yz]d?\[j\]|new Float64Array/);
    // and no copy of a local survives (`const temp0 = y_elem` reads y_elem)
    expect(tangent).not.toMatch(/const \w+ = \w+;/);
    const args = [[0.3, -1.2, 0.8], [0.5, 0.1, -0.4]];
    const m = loadGenerated(on.code) as Record<string, Fn>;
    const [, sd] = m.f_d(args[0], [1, 0, 0], args[1], [0, 0, 0]) as unknown as [number, number];
    const xb = [0, 0, 0], wb = [0, 0, 0];
    m.f_b(args[0], xb, args[1], wb, 1);
    // by hand: y = x - w, z = e^w y, s = sum (z + 1) z
    args[0].forEach((x, j) => {
      const w = args[1][j], e = Math.exp(w), z = e * (x - w);
      expect(xb[j]).toBeCloseTo((2 * z + 1) * e, 12);
      expect(wb[j]).toBeCloseTo((2 * z + 1) * (z - e), 12);
    });
    expect(sd).toBeCloseTo(xb[0], 14);
    expect(checkCompiled(on, on.code, 'f', args, { seed: 5 }).messages).toEqual([]);
  });

  it('an element two statements of an iteration read is loaded once, up to a store that may change it; same bits', () => {
    // the adjoint of q[r] += l[t] * x[c] reads qb[r] twice (for lb[t] and for xb[c]); the store to
    // lb[t] between them does not touch qb's storage
    const src = `export function tri(l: number[], x: number[]): number {
  const d = x.length;
  const q = new Float64Array(d);
  let t = 0;
  for (let c = 0; c < d; c++) {
    for (let r = c + 1; r < d; r++) {
      q[r] += l[t] * x[c];
      t++;
    }
  }
  let s = 0;
  for (let j = 0; j < d; j++) s += q[j] * q[j];
  return s;
}`;
    const on = compile(src, { head: 'tri', js: true, runtimeImport: null });
    const off = compile(src, { head: 'tri', js: true, runtimeImport: null, adjoint: { merge: false } });
    expect(on.code).toMatch(/const qb_elem = qb\[r\];/);
    expect(on.code).toMatch(/lb\[t\] \+= \w+ \* qb_elem;/);
    expect(off.code).not.toMatch(/_elem = /);
    const run = (code: string) => {
      const m = loadGenerated(code) as Record<string, Fn>;
      const lb = [0, 0, 0, 0, 0, 0], xb = [0, 0, 0, 0];
      m.tri_b([0.3, -0.2, 0.5, 0.7, 0.1, -0.4], lb, [0.2, 0.9, -0.5, 0.4], xb, 1);
      return [lb, xb];
    };
    expect(run(on.code)).toEqual(run(off.code));
    const rep = checkCompiled(on, on.code, 'tri', [[0.3, -0.2, 0.5, 0.7, 0.1, -0.4], [0.2, 0.9, -0.5, 0.4]], { seed: 3 });
    expect(rep.messages).toEqual([]);
  });
});
