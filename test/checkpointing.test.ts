// Binomial checkpointing of time-stepping loops (`// $ad binomial-ckp s`): the gradient equals the
// store-all adjoint's, the tape holds one step at a time (its peak does not grow with the step count),
// and a million steps are reversed with 100 snapshots.
import { describe, expect, it } from 'vitest';
import { compile } from '../src/api/compile.js';
import { loadGenerated } from '../src/api/load.js';
import { Tape } from '../src/runtime/tape.js';
import { revolveCost } from '../src/runtime/revolve.js';

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
