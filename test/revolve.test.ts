// Binomial checkpointing schedules (src/runtime/revolve.ts): the contract generated code relies on,
// optimality against a brute-force dynamic program, a million steps, and a real adjoint driven by it.
import { describe, expect, it } from 'vitest';
import { REVOLVE_ADJOINT, REVOLVE_ADVANCE, REVOLVE_RESTORE, REVOLVE_TAKESHOT, Snapshots, revolveAdvances, revolveCost, revolveSchedule } from '../src/runtime/revolve.js';

/** Follows a schedule with the step index as the state; throws on any broken promise. */
function simulate(n: number, s: number, sched: Int32Array): { advances: number; adjoints: number[] } {
  let state = 0; // the state before step `state`; -1 once an adjoint step has consumed it
  const slots = new Map<number, number>();
  const adjoints: number[] = [];
  let advances = 0;
  for (let p = 0; p < sched.length; p += 3) {
    const [op, a, b] = [sched[p], sched[p + 1], sched[p + 2]];
    if (op === REVOLVE_ADVANCE) {
      if (state !== a || b <= a || b > n) throw new Error(`advance ${a}→${b} from state ${state}`);
      advances += b - a;
      state = b;
    } else if (op === REVOLVE_TAKESHOT) {
      if (state !== b || a < 0 || a >= s) throw new Error(`takeshot slot ${a} of ${b} at state ${state}`);
      slots.set(a, b);
    } else if (op === REVOLVE_RESTORE) {
      if (slots.get(a) !== b) throw new Error(`restore slot ${a} expecting ${b}, holds ${slots.get(a)}`);
      state = b;
    } else if (op === REVOLVE_ADJOINT) {
      if (state !== a) throw new Error(`adjoint of step ${a} at state ${state}`);
      adjoints.push(a);
      state = -1;
    } else throw new Error(`unknown op ${op}`);
  }
  return { advances, adjoints };
}

/** Fewest ADVANCE steps to reverse n steps from a saved first state with k free slots (brute force). */
function optimal(nMax: number, kMax: number): number[][] {
  const c: number[][] = [];
  for (let k = 0; k <= kMax; k++) {
    c.push([0, 0]);
    for (let n = 2; n <= nMax; n++) {
      let best = (n * (n - 1)) / 2;
      if (k > 0) for (let m = 1; m < n; m++) best = Math.min(best, m + c[k - 1][n - m] + c[k][m]);
      c[k].push(best);
    }
  }
  return c;
}

describe('revolve schedule', () => {
  const OPT = optimal(60, 8);

  it('keeps its contract and is optimal for n ≤ 60, s ≤ 8', () => {
    for (let s = 1; s <= 8; s++)
      for (let n = 0; n <= 60; n++) {
        const sched = revolveSchedule(n, s);
        const { advances, adjoints } = simulate(n, s, sched);
        expect(adjoints).toEqual(Array.from({ length: n }, (_, i) => n - 1 - i));
        expect(advances).toBe(revolveAdvances(sched));
        if (n > 0) expect(advances, `n=${n} s=${s}`).toBe(OPT[s - 1][n]);
        if (n > 0) expect(revolveCost(n, s)).toBe(OPT[s - 1][n]);
      }
  });

  it('rejects fewer than one slot and negative step counts', () => {
    expect(() => revolveSchedule(10, 0)).toThrow(/at least 1 snapshot slot/);
    expect(() => revolveSchedule(-1, 3)).toThrow(/step count/);
  });

  it('a million steps with 100 slots: linear-size schedule, about r·n re-runs', () => {
    const sched = revolveSchedule(1_000_000, 100);
    const { advances, adjoints } = simulate(1_000_000, 100, sched);
    expect(adjoints.length).toBe(1_000_000);
    // C(99 + 3, 99) = 176,851 < 10⁶ ≤ C(99 + 4, 99): four re-runs per step at most
    expect(advances).toBe(revolveCost(1_000_000, 100));
    expect(advances).toBeLessThan(4 * 1_000_000);
    expect(advances).toBeGreaterThan(2 * 1_000_000);
  });
});

describe('a real adjoint driven by the schedule', () => {
  // x' = x + h·sin(x)·y, y' = y − h·x; J = x_n² + y_n
  const h = 0.01;
  const step = (st: [number, number]): [number, number] => [st[0] + h * Math.sin(st[0]) * st[1], st[1] - h * st[0]];
  /** adjoint of one step at state st: (x̄', ȳ') → (x̄, ȳ) */
  const stepAdj = (st: [number, number], xb: number, yb: number): [number, number] => {
    const [x, y] = st;
    return [xb * (1 + h * Math.cos(x) * y) - h * yb, xb * h * Math.sin(x) + yb];
  };

  function storeAll(x0: number, y0: number, n: number): [number, number] {
    const states: [number, number][] = [[x0, y0]];
    for (let t = 0; t < n; t++) states.push(step(states[t]));
    let [xb, yb] = [2 * states[n][0], 1];
    for (let t = n - 1; t >= 0; t--) [xb, yb] = stepAdj(states[t], xb, yb);
    return [xb, yb];
  }

  function binomial(x0: number, y0: number, n: number, s: number): { grad: [number, number]; peakStates: number } {
    let st: [number, number] = [x0, y0];
    const snaps = new Snapshots(s, 2);
    // the final state first (the seed needs it): one plain forward run
    let fin: [number, number] = [x0, y0];
    for (let t = 0; t < n; t++) fin = step(fin);
    let [xb, yb] = [2 * fin[0], 1];
    const sched = revolveSchedule(n, s);
    for (let p = 0; p < sched.length; p += 3) {
      const op = sched[p], a = sched[p + 1], b = sched[p + 2];
      if (op === REVOLVE_ADVANCE) for (let t = a; t < b; t++) st = step(st);
      else if (op === REVOLVE_TAKESHOT) {
        snaps.setScalar(a, 0, st[0]);
        snaps.setScalar(a, 1, st[1]);
      } else if (op === REVOLVE_RESTORE) st = [snaps.getScalar(a, 0), snaps.getScalar(a, 1)];
      else if (op === REVOLVE_ADJOINT) [xb, yb] = stepAdj(st, xb, yb);
    }
    return { grad: [xb, yb], peakStates: s };
  }

  it('gives bit-identical gradients to store-all for 1000 steps with 10 slots', () => {
    const want = storeAll(0.7, -0.3, 1000);
    const got = binomial(0.7, -0.3, 1000, 10);
    expect(got.grad).toEqual(want);
  });

  it('Snapshots reuse their buffers and restore arrays exactly', () => {
    const s = new Snapshots(2, 1);
    const a = new Float64Array([1, 2, 3]);
    s.saveArray(1, 0, a);
    a.fill(0);
    s.restoreArray(1, 0, a);
    expect([...a]).toEqual([1, 2, 3]);
    const plain = [0, 0, 0];
    s.restoreArray(1, 0, plain);
    expect(plain).toEqual([1, 2, 3]);
  });
});
