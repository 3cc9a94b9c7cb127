// Binomial checkpointing (Griewank's Revolve) for the adjoint of a time-stepping loop of n steps with
// s snapshot slots: memory for s states instead of n tapes, at the price of re-running primal steps
// (about r·n of them, r the smallest integer with C(s + r, s) ≥ n). The schedule is data, not callbacks,
// so generated code can follow it with a plain loop and a switch on the operation:
//
//   for (let p = 0; p < sched.length; p += 3) {
//     const op = sched[p], a = sched[p + 1], b = sched[p + 2];
//     if (op === REVOLVE_ADVANCE) { /* state before step a → run primal steps a … b − 1 → before step b */ }
//     else if (op === REVOLVE_TAKESHOT) { /* save the state (it is the state before step b) in slot a */ }
//     else if (op === REVOLVE_RESTORE) { /* load slot a: the state is then the one before step b */ }
//     else if (op === REVOLVE_ADJOINT) { /* state before step a: run step a taped, then its adjoint */ }
//   }
//
// The loop starts with the state before step 0 and no snapshot. Adjoint steps come for t = n − 1, …, 0,
// once each and in that order; slots 0 … s − 1 are used, slot 0 holding the state before step 0.

export const REVOLVE_ADVANCE = 1;
export const REVOLVE_TAKESHOT = 2;
export const REVOLVE_RESTORE = 3;
export const REVOLVE_ADJOINT = 4;

/** C(s + r, s) capped at `cap` (the longest loop s free snapshots reverse with r re-runs per step) */
function beta(s: number, r: number, cap: number): number {
  let b = 1;
  for (let i = 1; i <= s; i++) {
    b = (b * (r + i)) / i;
    if (b >= cap) return cap;
  }
  return Math.round(b);
}

/** The smallest r with C(c + r, c) ≥ n: c snapshots (the first state's included) reverse n steps. */
function repetitions(n: number, c: number): number {
  let r = 0;
  while (beta(c, r, n) < n) r++;
  return r;
}

/** Fewest primal re-runs to reverse n steps with c snapshots, the first state's included (Griewank). */
function cost(n: number, c: number): number {
  if (n <= 1) return 0;
  if (c === 1) return (n * (n - 1)) / 2;
  const r = repetitions(n, c);
  return r * n - beta(c + 1, r - 1, Number.MAX_SAFE_INTEGER);
}

/**
 * Where to take the next snapshot when reversing `n` steps whose first state is saved, with `k` free
 * slots: the split m minimizing m + cost(n − m, k) + cost(m, k + 1). The optimum lies near the ends
 * of the range where both parts stay within their repetition budget, so those points and their
 * neighbourhoods are searched (all of it when the range is short).
 */
function split(n: number, k: number): number {
  const c = k + 1;
  const r = repetitions(n, c);
  const lo = Math.max(1, n - beta(k, r, n));
  const hi = Math.max(lo, Math.min(n - 1, beta(c, r - 1, n)));
  const total = (m: number) => m + cost(n - m, k) + cost(m, c);
  const candidates = new Set<number>();
  const around = (m: number) => {
    for (let d = -16; d <= 16; d++) if (m + d >= lo && m + d <= hi) candidates.add(m + d);
  };
  if (hi - lo <= 64) for (let m = lo; m <= hi; m++) candidates.add(m);
  else for (const m of [lo, hi, beta(c, Math.max(0, r - 2), n), n - beta(k, r - 1, n)]) around(m);
  let best = lo;
  let bestCost = Infinity;
  for (const m of [...candidates].sort((a, b) => a - b)) {
    const t = total(m);
    if (t < bestCost) {
      bestCost = t;
      best = m;
    }
  }
  return best;
}

type Task =
  | { kind: 'reverse'; l: number; r: number; slot: number; current: boolean }
  | { kind: 'release'; slot: number }
  | { kind: 'linear'; l: number; step: number; slot: number; first: boolean };

/**
 * The schedule for n steps and s ≥ 1 slots, produced one operation at a time with O(s) memory (a
 * million-step loop needs no million-entry schedule): `next()` returns the operation (0 when done) and
 * sets `a` and `b`.
 */
export class RevolveStepper {
  a = 0;
  b = 0;
  private free: number[] = [];
  private todo: Task[] = [];
  private queue: number[] = []; // operations decided but not yet handed out, as triples
  private qp = 0;

  constructor(n: number, s: number) {
    if (!Number.isInteger(n) || n < 0) throw new Error(`tsad: revolve needs a step count ≥ 0, got ${n}`);
    if (!Number.isInteger(s) || s < 1) throw new Error(`tsad: revolve needs at least 1 snapshot slot, got ${s}`);
    if (n === 0) return;
    for (let slot = s - 1; slot >= 1; slot--) this.free.push(slot);
    this.emit(REVOLVE_TAKESHOT, 0, 0);
    this.todo.push({ kind: 'reverse', l: 0, r: n, slot: 0, current: true });
  }

  next(): number {
    while (this.qp === this.queue.length) {
      this.queue.length = 0;
      this.qp = 0;
      const t = this.todo.pop();
      if (!t) return 0;
      this.expand(t);
    }
    const op = this.queue[this.qp];
    this.a = this.queue[this.qp + 1];
    this.b = this.queue[this.qp + 2];
    this.qp += 3;
    return op;
  }

  private emit(op: number, a: number, b: number): void {
    this.queue.push(op, a, b);
  }

  private expand(t: Task): void {
    if (t.kind === 'release') {
      this.free.push(t.slot);
      return;
    }
    if (t.kind === 'linear') {
      // no slot left: each step from the saved state, last step first
      if (!t.first) this.emit(REVOLVE_RESTORE, t.slot, t.l);
      if (t.step > t.l) this.emit(REVOLVE_ADVANCE, t.l, t.step);
      this.emit(REVOLVE_ADJOINT, t.step, t.step + 1);
      if (t.step > t.l) this.todo.push({ kind: 'linear', l: t.l, step: t.step - 1, slot: t.slot, first: false });
      return;
    }
    const { l, r, slot } = t;
    if (!t.current) this.emit(REVOLVE_RESTORE, slot, l);
    if (r - l === 1) {
      this.emit(REVOLVE_ADJOINT, l, l + 1);
      return;
    }
    if (this.free.length === 0) {
      this.todo.push({ kind: 'linear', l, step: r - 1, slot, first: true });
      return;
    }
    const m = l + split(r - l, this.free.length);
    this.emit(REVOLVE_ADVANCE, l, m);
    const mid = this.free.pop()!;
    this.emit(REVOLVE_TAKESHOT, mid, m);
    // right part first (its state is current), then give its slot back, then the left part
    this.todo.push({ kind: 'reverse', l, r: m, slot, current: false });
    this.todo.push({ kind: 'release', slot: mid });
    this.todo.push({ kind: 'reverse', l: m, r, slot: mid, current: true });
  }
}

/** The whole schedule for n steps and s ≥ 1 slots, as triples [op, a, b] (see the top of this file). */
export function revolveSchedule(n: number, s: number): Int32Array {
  const st = new RevolveStepper(n, s);
  const out: number[] = [];
  for (let op = st.next(); op !== 0; op = st.next()) out.push(op, st.a, st.b);
  return Int32Array.from(out);
}

/** The optimal number of ADVANCE steps for n steps and s slots: r·n − C(s + r, r − 1) (Griewank). */
export function revolveCost(n: number, s: number): number {
  return cost(n, s);
}

/** Primal steps the schedule runs in ADVANCE operations (the adjoint steps' own forward runs excluded). */
export function revolveAdvances(schedule: Int32Array): number {
  let steps = 0;
  for (let p = 0; p < schedule.length; p += 3) if (schedule[p] === REVOLVE_ADVANCE) steps += schedule[p + 2] - schedule[p + 1];
  return steps;
}

/**
 * Snapshot storage for generated code: per slot, a few scalars and a few float arrays, with buffers
 * reused from one save to the next (no allocation once a slot has been used at its size).
 */
export class Snapshots {
  private scalars: Float64Array[];
  private arrays: Float64Array[][];

  constructor(slots: number, scalarsPerSlot: number) {
    this.scalars = Array.from({ length: slots }, () => new Float64Array(scalarsPerSlot));
    this.arrays = Array.from({ length: slots }, () => []);
  }

  setScalar(slot: number, k: number, v: number): void {
    this.scalars[slot][k] = v;
  }

  getScalar(slot: number, k: number): number {
    return this.scalars[slot][k];
  }

  saveArray(slot: number, k: number, src: ArrayLike<number>): void {
    let buf = this.arrays[slot][k];
    if (!buf || buf.length !== src.length) buf = this.arrays[slot][k] = new Float64Array(src.length);
    for (let i = 0; i < src.length; i++) buf[i] = src[i];
  }

  restoreArray(slot: number, k: number, dst: { [i: number]: number; length: number }): void {
    const buf = this.arrays[slot][k];
    for (let i = 0; i < dst.length; i++) dst[i] = buf[i];
  }
}

/**
 * The checkpoints of one `$ad binomial-ckp` loop being reversed: its schedule and, per slot, the loop's
 * state as generated code saves it — scalars in order, flat arrays copied into buffers reused from one
 * save to the next, and deep copies of nested structures. A TAKESHOT or RESTORE operation selects its
 * slot and rewinds the cursors; `finish()` selects slot 0 (the state before the first step).
 */
export class LoopCheckpoints {
  readonly stepper: RevolveStepper;
  private floats: Float64Array[] = [];
  private arrays: Float64Array[][] = [];
  private refs: unknown[][] = [];
  private slot = 0;
  private fk = 0;
  private ak = 0;
  private rk = 0;
  /** bytes held by the snapshots (floats and flat arrays; deep copies counted by their numbers) */
  bytes = 0;

  constructor(steps: number, slots: number) {
    this.stepper = new RevolveStepper(steps, slots);
    for (let k = 0; k < slots; k++) {
      this.floats.push(new Float64Array(4));
      this.arrays.push([]);
      this.refs.push([]);
    }
  }

  next(): number {
    const op = this.stepper.next();
    if (op === REVOLVE_TAKESHOT || op === REVOLVE_RESTORE) this.select(this.stepper.a);
    return op;
  }

  finish(): void {
    this.select(0);
  }

  private select(slot: number): void {
    this.slot = slot;
    this.fk = this.ak = this.rk = 0;
  }

  saveF(v: number): void {
    let f = this.floats[this.slot];
    if (this.fk === f.length) {
      const g = new Float64Array(f.length * 2);
      g.set(f);
      this.floats[this.slot] = f = g;
      this.bytes += g.length * 4;
    }
    f[this.fk++] = v;
  }

  loadF(): number {
    return this.floats[this.slot][this.fk++];
  }

  saveA(src: ArrayLike<number>): void {
    const list = this.arrays[this.slot];
    let buf = list[this.ak];
    if (!buf || buf.length !== src.length) {
      this.bytes += (src.length - (buf ? buf.length : 0)) * 8;
      buf = list[this.ak] = new Float64Array(src.length);
    }
    for (let i = 0; i < src.length; i++) buf[i] = src[i];
    this.ak++;
  }

  loadA(dst: { [i: number]: number; length: number }): void {
    const buf = this.arrays[this.slot][this.ak++];
    for (let i = 0; i < dst.length; i++) dst[i] = buf[i];
  }

  saveR(v: unknown): void {
    this.refs[this.slot][this.rk++] = v;
  }

  loadR<T>(): T {
    return this.refs[this.slot][this.rk++] as T;
  }
}
