// Binomial checkpointing of time-stepping loops (`// $ad binomial-ckp s`): the gradient equals the
// store-all adjoint's, the tape holds one step at a time (its peak does not grow with the step count),
// and a million steps are reversed with 100 snapshots.
import { describe, expect, it } from 'vitest';
import { compile } from '../src/api/compile.js';
import { loadGenerated } from '../src/api/load.js';
import { Tape } from '../src/runtime/tape.js';
import { revolveCost } from '../src/runtime/revolve.js';
import { checkCompiled } from '../src/api/check.js';
import { directiveArgs } from '../src/ir/util.js';

/** A small predator–prey system, integrated by explicit Euler; the objective reads the final state. */
const ode = (directive: string) => `
function rhs(x: number, y: number, p: readonly number[]): number {
  return p[0] * x - p[1] * x * y;
}

export function ode(p: number[], u0: number[], n: number, h: number): number {
  let x = u0[0];
  let y = u0[1];
  const hist = [0, 0];
  let ok = true;
  ${directive}
  for (let t = 0; t < n; t++) {
    const dx = rhs(x, y, p);
    const dy = -p[2] * y + p[3] * x * y;
    x = x + h * dx;
    y = y + h * Math.sin(dy);
    hist[t % 2] = x;
    ok = ok && x > 0;
  }
  return ok ? x * x + y + hist[0] : 0;
}`;

type Mod = Record<string, (...a: unknown[]) => unknown>;
const load = (src: string): Mod => loadGenerated(compile(src, { head: 'ode', wrt: ['p', 'u0'], js: true, runtimeImport: null }).code) as Mod;

function gradient(m: Mod, n: number): { p: number[]; u0: number[]; peak: number; empty: boolean } {
  const p = [0.7, 0.4, 0.5, 0.3];
  const u0 = [1.2, 0.8];
  const pb = [0, 0, 0, 0];
  const u0b = [0, 0];
  const tape = Tape.acquire();
  m.ode_fwd(tape, p, pb, u0, u0b, n, 0.001);
  m.ode_bwd(tape, p, pb, u0, u0b, n, 0.001, 1);
  const out = { p: pb, u0: u0b, peak: tape.peakBytes, empty: tape.empty };
  Tape.release(tape);
  return out;
}

describe('$ad binomial-ckp', () => {
  const storeAll = load(ode(''));

  it('gives the store-all gradient exactly, with 1, 2, 7 and 100 snapshots', () => {
    const want = gradient(storeAll, 300);
    for (const s of [1, 2, 7, 100]) {
      const got = gradient(load(ode(`// $ad binomial-ckp ${s}`)), 300);
      expect(got.p, `s=${s}`).toEqual(want.p);
      expect(got.u0, `s=${s}`).toEqual(want.u0);
      expect(got.empty).toBe(true);
    }
  });

  it('keeps the tape at one step whatever the step count, where store-all grows with it', () => {
    const ckp = load(ode('// $ad binomial-ckp 10'));
    const peaks = [1000, 20000].map((n) => gradient(ckp, n).peak);
    expect(peaks[0]).toBeGreaterThan(0);
    expect(peaks[1]).toBe(peaks[0]);
    const all = [1000, 20000].map((n) => gradient(storeAll, n).peak);
    expect(all[1]).toBeGreaterThan(10 * all[0]);
    expect(peaks[1]).toBeLessThan(all[1] / 100);
  });

  it('reverses 10⁶ steps with 100 snapshots in bounded memory', () => {
    const ckp = load(ode('// $ad binomial-ckp 100'));
    const g = gradient(ckp, 1_000_000);
    const small = gradient(ckp, 1000);
    expect(g.peak).toBe(small.peak);
    expect(g.empty).toBe(true);
    for (const v of [...g.p, ...g.u0]) expect(Number.isFinite(v)).toBe(true);
    // divided differences on the million-step objective, for one parameter
    const f = (p0: number) => ckp.ode([p0, 0.4, 0.5, 0.3], [1.2, 0.8], 1_000_000, 0.001) as number;
    const e = 1e-6;
    const dd = (f(0.7 + e) - f(0.7 - e)) / (2 * e);
    expect(Math.abs(g.p[0] - dd) / Math.max(1, Math.abs(dd))).toBeLessThan(1e-5);
    expect(revolveCost(1_000_000, 100)).toBeLessThan(4_000_000);
  }, 60_000);

  it('rejects a loop that is not counted, with a located diagnostic', () => {
    const src = `export function f(x: number): number {
  let s = x;
  let k = 0;
  // $ad binomial-ckp 4
  while (s < 10) { s = s * 1.5 + x; k++; }
  return s;
}`;
    const r = compile(src, { head: 'f', js: true, runtimeImport: null });
    expect(r.diagnostics.map((d) => d.message).join('\n')).toMatch(/binomial-ckp' needs a counted loop/);
  });
});

describe('directives', () => {
  it('a directive opens its comment or a line of it; prose that mentions one is not one', () => {
    expect(directiveArgs('// $ad binomial-ckp 7', 'binomial-ckp')).toBe(' 7');
    expect(directiveArgs('/* $ad store x, y */', 'store')).toBe(' x, y ');
    expect(directiveArgs('/**\n * the time loop\n * $ad binomial-ckp\n */', 'binomial-ckp')).toBe('');
    expect(directiveArgs('// we do not use $ad binomial-ckp here: the loop is short', 'binomial-ckp')).toBeNull();
    expect(directiveArgs('// $ad binomial-ckpt', 'binomial-ckp')).toBeNull();
    // a loop under a comment that only mentions the directive is reversed store-all
    const prose = compile(ode('// (a $ad binomial-ckp directive would checkpoint this loop)'), { head: 'ode', wrt: ['p', 'u0'], js: true, runtimeImport: null }).code;
    expect(prose).not.toMatch(/revolve|snapshot/i);
  });
});

describe('joint mode: checkpointed calls and regions', () => {
  const SRC = (callDirective: string, funcDirective: string, start: string, end: string) => `
${funcDirective}
function smooth(v: number[], w: number): number {
  let s = 0;
  for (let i = 1; i < v.length; i++) {
    v[i] = v[i] + w * Math.sin(v[i - 1]);
    s += v[i] * v[i];
  }
  return s;
}

export function model(v0: number[], w: number, k: number): number {
  const v = v0.slice();
  let acc = 0;
  ${callDirective}
  acc += smooth(v, w);
  ${start}
  for (let j = 0; j < v.length; j++) v[j] = Math.exp(-k * v[j]) * v[j];
  acc = acc * Math.cos(v[0]) + v[1];
  ${end}
  acc += smooth(v, 0.5 * w);
  return acc * acc + v[v.length - 1];
}`;
  const run = (src: string, adjoint = {}) => {
    const r = compile(src, { head: 'model', js: true, runtimeImport: null, adjoint });
    expect(r.diagnostics.map((d) => d.message)).toEqual([]);
    const m = loadGenerated(r.code) as Mod;
    const v0b = [0, 0, 0, 0, 0];
    const tape = Tape.acquire();
    const v0 = [0.3, -0.2, 0.5, 0.1, 0.7];
    m.model_fwd(tape, v0, v0b, 0.4, 0.8);
    const pushes = tape.heights.floats + tape.heights.refs;
    const adj = m.model_bwd(tape, v0, v0b, 0.4, 0.8, 1) as number[];
    const empty = tape.empty;
    Tape.release(tape);
    return { grad: [...v0b, ...adj], pushes, empty, code: r.code };
  };

  it('gives the split-mode gradient with a checkpointed call, a checkpointed region, every call, and nocheckpoint', () => {
    const split = run(SRC('', '', '', ''));
    const variants = [
      run(SRC('// $ad checkpoint', '', '', '')),
      run(SRC('', '// $ad checkpoint', '', '')),
      run(SRC('', '', '// $ad checkpoint-start', '// $ad checkpoint-end')),
      run(SRC('', '', '', ''), { checkpointCalls: true }),
      run(SRC('// $ad nocheckpoint', '', '', ''), { checkpointCalls: true }),
    ];
    for (const v of variants) {
      expect(v.empty).toBe(true);
      v.grad.forEach((g, i) => expect(g).toBeCloseTo(split.grad[i], 12));
    }
    // the checkpointed calls leave only their snapshot on the tape until the backward sweep
    expect(variants[3].pushes).toBeLessThan(split.pushes);
    expect(variants[1].code).toMatch(/\$ad checkpoint: snapshot/);
    expect(variants[4].code.match(/\$ad checkpoint: snapshot/g)?.length).toBe(1);
  });

  it('a region at the end of a block and divided differences', () => {
    const src = `export function g(x: number[], a: number): number {
  let s = 0;
  for (let r = 0; r < 3; r++) {
    // $ad checkpoint-start
    for (let i = 0; i < x.length; i++) x[i] = Math.tanh(a * x[i] + r);
    s += x[0] * x[1];
    // $ad checkpoint-end
  }
  return s;
}`;
    const r = compile(src, { head: 'g', js: true, runtimeImport: null });
    expect(r.diagnostics.map((d) => d.message)).toEqual([]);
    expect(r.code).toMatch(/\$ad checkpoint: snapshot/);
    const rep = checkCompiled(r, r.code, 'g', [[0.3, -0.4, 0.2], 0.7], { seed: 5 });
    expect(rep.messages).toEqual([]);
    expect(rep.tapeEmpty).toBe(true);
  });

  it('reports unmatched markers and jumps out of a region', () => {
    const bad = [
      [`export function f(x: number): number {\n  // $ad checkpoint-start\n  let y = x * x;\n  return y;\n}`, /without a matching '\$ad checkpoint-end'/],
      [`export function f(x: number): number {\n  let y = x * x;\n  // $ad checkpoint-end\n  return y;\n}`, /checkpoint-end' without a '\$ad checkpoint-start'/],
      [`export function f(x: number): number {\n  let y = x;\n  for (let i = 0; i < 3; i++) {\n    // $ad checkpoint-start\n    y = y * x;\n    if (y > 2) break;\n    // $ad checkpoint-end\n  }\n  return y;\n}`, /cannot be left by 'break'/],
    ] as const;
    for (const [src, msg] of bad) {
      const r = compile(src, { head: 'f', js: true, runtimeImport: null });
      expect(r.diagnostics.map((d) => `${d.loc?.line}: ${d.message}`).join('\n')).toMatch(msg);
    }
  });
});
