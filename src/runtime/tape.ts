// The tape of an adjoint run: a float stack, an int32 stack (control flow, trip counts) and a reference
// stack (reassigned arrays). Storage is chunked, so growth never copies, and chunks are kept across runs
// through a pool: each adjoint invocation acquires its own tape, so nested and re-entrant calls are safe.
// Chunks start small (a tape per nested adjoint call must be cheap) and double up to MAX_CHUNK.
import { zeros } from './arrays.js';
import { LoopCheckpoints } from './revolve.js';

const FIRST_CHUNK = 1 << 6;
const MAX_CHUNK = 1 << 16;
// Static-tape buffers given back are kept for the next run up to this many floats (8 MiB) per tape
// (and four of each size beyond):
// a function called in a loop takes a buffer per call, all alive until the backward sweep (GMM with
// classes: 25 000 of them), and allocating typed arrays again on every run cost a quarter of its time.
const MAX_FREE_FLOATS = 1 << 20;
const chunkSize = (index: number) => Math.min(MAX_CHUNK, FIRST_CHUNK << Math.min(index, 10));
const NO_FLOATS = new Float64Array(0);
const NO_INTS = new Int32Array(0);

function keepByLength<A extends { length: number }>(byLength: Map<number, A[]>, a: A): void {
  const list = byLength.get(a.length);
  if (list) list.push(a);
  else byLength.set(a.length, [a]);
}

export class Tape {
  // A new tape allocates nothing until its first push (a nested adjoint keeps one tape per call alive
  // from its forward sweep to its backward sweep); its chunks then grow from 64 entries to 64 Ki.
  // Chunk index -1: none yet.
  private fChunks: Float64Array[] = [];
  private fi = -1;
  private f: Float64Array = NO_FLOATS;
  private fp = 0;
  private iChunks: Int32Array[] = [];
  private ii = -1;
  private i: Int32Array = NO_INTS;
  private ip = 0;
  private refs: unknown[] = [];
  private rp = 0;
  private peak = 0;
  private fBase = 0; // entries in the float chunks below the current one
  private free: Float64Array[][] = []; // static-tape buffers given back, by log2 capacity (kept across runs)
  private freeFloats = 0; // their capacity, in floats
  private staticFloats = 0; // floats recorded in static-tape buffers in use
  private staticSizes: number[] = [];
  private iBase = 0;
  // arrays given back, by length (kept across runs; made on first use: nested adjoints make many tapes)
  private arraysBack: Map<number, number[][]> | null = null;
  private float64sBack: Map<number, Float64Array[]> | null = null;
  private keptBack = 0; // their elements

  pushF(v: number): void {
    if (this.fp === this.f.length) this.nextF();
    this.f[this.fp++] = v;
  }

  popF(): number {
    if (this.fp === 0) this.prevF();
    return this.f[--this.fp];
  }

  pushI(v: number): void {
    if (this.ip === this.i.length) this.nextI();
    this.i[this.ip++] = v;
  }

  popI(): number {
    if (this.ip === 0) this.prevI();
    return this.i[--this.ip];
  }

  /**
   * A float buffer for the values a counted loop records, one slot per iteration, written and read by
   * index (a static tape: no per-value push and pop). The forward sweep takes it and puts it on the
   * reference stack; the backward sweep pops it and gives it back with freeF, so runs reuse it.
   */
  bufF(n: number): Float64Array {
    // free lists by power-of-two capacity: O(1), and a buffer fits every request of its class
    const cls = n <= 1 ? 0 : 32 - Math.clz32(n - 1);
    let b = this.free[cls]?.pop();
    if (b) this.freeFloats -= b.length;
    else b = new Float64Array(1 << cls);
    // counted as the n values recorded; buffers go back in reverse order
    this.staticSizes.push(n);
    this.staticFloats += n;
    this.notePeak();
    return b;
  }

  /**
   * The stack buffer of loops nested in a fused iteration (static-tape.ts stackedTape), grown to hold
   * at least n floats with its contents kept. It goes back with freeF like the buffer it replaces.
   */
  growF(b: Float64Array, n: number): Float64Array {
    let cap = Math.max(64, b.length);
    while (cap < n) cap *= 2;
    const g = new Float64Array(cap);
    g.set(b);
    return g;
  }

  freeF(b: Float64Array): void {
    this.staticFloats -= this.staticSizes.pop() ?? 0;
    const cls = 31 - Math.clz32(b.length);
    const list = (this.free[cls] ??= []);
    // (a few of each size are kept whatever their size: one large loop's buffer serves the next run)
    if (this.freeFloats + b.length > MAX_FREE_FLOATS && list.length >= 4) return;
    list.push(b);
    this.freeFloats += b.length;
  }

  /**
   * An array of `n` zeros for a loop that allocates one afresh each pass and names it by one variable
   * only: one the backward sweep gave back (with giveBack) when it undid such an allocation, else new.
   */
  zerosA(n: number): number[] {
    const a = this.arraysBack?.get(n)?.pop();
    if (a === undefined) return zeros(n);
    this.keptBack -= n;
    for (let i = 0; i < n; i++) a[i] = 0;
    return a;
  }

  /** zerosA for a Float64Array */
  zerosF64(n: number): Float64Array {
    const a = this.float64sBack?.get(n)?.pop();
    if (a === undefined) return new Float64Array(n);
    this.keptBack -= n;
    a.fill(0);
    return a;
  }

  /**
   * An array of `n` zeros for pass `k` of a loop inside a fused reduction's iteration: the one this
   * pass took in the previous iteration (whose sweeps are over), kept in `kept`, else new.
   */
  zerosAt(kept: number[][], k: number, n: number): number[] {
    const a = kept[k];
    if (a === undefined || a.length !== n) return (kept[k] = zeros(n));
    for (let i = 0; i < n; i++) a[i] = 0;
    return a;
  }

  /** zerosAt for an array whose every element the pass writes before reading any: no zeros needed */
  keptAt(kept: number[][], k: number, n: number): number[] {
    const a = kept[k];
    return a !== undefined && a.length === n ? a : (kept[k] = zeros(n));
  }

  /** keptAt for a Float64Array */
  keptF64At(kept: Float64Array[], k: number, n: number): Float64Array {
    const a = kept[k];
    return a !== undefined && a.length === n ? a : (kept[k] = new Float64Array(n));
  }

  /** zerosAt for a Float64Array */
  zerosF64At(kept: Float64Array[], k: number, n: number): Float64Array {
    const a = kept[k];
    if (a === undefined || a.length !== n) return (kept[k] = new Float64Array(n));
    a.fill(0);
    return a;
  }

  /** An array no one can reach any more (see zerosA), kept for the next allocation of its length. */
  giveBack(a: number[] | Float64Array | undefined): void {
    if (a === undefined || this.keptBack + a.length > MAX_FREE_FLOATS) return;
    if (a instanceof Float64Array) keepByLength((this.float64sBack ??= new Map()), a);
    else keepByLength((this.arraysBack ??= new Map()), a);
    this.keptBack += a.length;
  }

  pushR<T>(v: T): void {
    this.refs[this.rp++] = v;
  }

  popR<T>(): T {
    const v = this.refs[--this.rp] as T;
    this.refs[this.rp] = undefined;
    return v;
  }

  private nextF(): void {
    this.notePeak();
    this.fi++;
    if (this.fi === this.fChunks.length) this.fChunks.push(new Float64Array(chunkSize(this.fi)));
    this.fBase += this.f.length;
    this.f = this.fChunks[this.fi];
    this.fp = 0;
  }

  private prevF(): void {
    if (this.fi <= 0) throw new Error('tsad: float tape underflow (a pop without its push)');
    this.notePeak();
    this.fi--;
    this.f = this.fChunks[this.fi];
    this.fBase -= this.f.length;
    this.fp = this.f.length;
  }

  private nextI(): void {
    this.notePeak();
    this.ii++;
    if (this.ii === this.iChunks.length) this.iChunks.push(new Int32Array(chunkSize(this.ii)));
    this.iBase += this.i.length;
    this.i = this.iChunks[this.ii];
    this.ip = 0;
  }

  private prevI(): void {
    if (this.ii <= 0) throw new Error('tsad: int tape underflow (a pop without its push)');
    this.notePeak();
    this.ii--;
    this.i = this.iChunks[this.ii];
    this.iBase -= this.i.length;
    this.ip = this.i.length;
  }

  // ---- binomial checkpointing of `$ad binomial-ckp` loops: a stack, as such loops may nest ----
  private ckps: LoopCheckpoints[] = [];
  private ckp: LoopCheckpoints | null = null;
  private ckpPeak = 0;

  /** starts reversing a loop of `steps` steps with `slots` snapshots */
  ckpBegin(steps: number, slots: number): void {
    if (this.ckp) this.ckps.push(this.ckp);
    this.ckp = new LoopCheckpoints(steps, slots);
  }

  /** the next operation of the schedule (REVOLVE_*), 0 when the loop is reversed */
  ckpNext(): number {
    return this.ckp!.next();
  }

  ckpA(): number {
    return this.ckp!.stepper.a;
  }

  ckpB(): number {
    return this.ckp!.stepper.b;
  }

  ckpSaveF(v: number): void {
    this.ckp!.saveF(v);
  }

  ckpSaveA(a: ArrayLike<number>): void {
    this.ckp!.saveA(a);
  }

  ckpSaveR<T>(v: T): void {
    this.ckp!.saveR(v);
  }

  ckpLoadF(): number {
    return this.ckp!.loadF();
  }

  ckpLoadA(dst: { [i: number]: number; length: number }): void {
    this.ckp!.loadA(dst);
  }

  ckpLoadR<T>(): T {
    return this.ckp!.loadR<T>();
  }

  /** selects the snapshot of the state before the first step, to leave the loop's state as it began */
  ckpFinish(): void {
    this.ckp!.finish();
  }

  ckpEnd(): void {
    const b = this.ckp!.bytes + this.ckps.reduce((s, c) => s + c.bytes, 0);
    if (b > this.ckpPeak) this.ckpPeak = b;
    this.ckp = this.ckps.pop() ?? null;
  }

  /** largest number of bytes the snapshots of checkpointed loops held at once */
  get checkpointPeakBytes(): number {
    return this.ckpPeak;
  }

  /** entries currently on each stack */
  get heights(): { floats: number; ints: number; refs: number } {
    return { floats: this.fBase + this.fp + this.staticFloats, ints: this.iBase + this.ip, refs: this.rp };
  }

  /** bytes currently on the tape (references count 8 bytes each) */
  get bytes(): number {
    return (this.fBase + this.fp + this.staticFloats) * 8 + (this.iBase + this.ip) * 4 + this.rp * 8;
  }

  /** largest `bytes` seen at a chunk boundary or at a call of this getter */
  get peakBytes(): number {
    this.notePeak();
    return this.peak;
  }

  notePeak(): void {
    const b = this.bytes;
    if (b > this.peak) this.peak = b;
  }

  get empty(): boolean {
    return this.ckp === null && this.fi <= 0 && this.fp === 0 && this.ii <= 0 && this.ip === 0 && this.rp === 0 && this.staticFloats === 0;
  }

  reset(): void {
    this.fi = this.fChunks.length ? 0 : -1;
    this.f = this.fChunks[0] ?? NO_FLOATS;
    this.fp = 0;
    this.fBase = 0;
    this.iBase = 0;
    this.ii = this.iChunks.length ? 0 : -1;
    this.i = this.iChunks[0] ?? NO_INTS;
    this.ip = 0;
    for (let k = 0; k < this.rp; k++) this.refs[k] = undefined;
    this.rp = 0;
    this.staticFloats = 0;
    // (a nested adjoint resets two tapes per inner call: nothing is written that is already empty)
    if (this.staticSizes.length) this.staticSizes.length = 0;
    this.peak = 0;
    if (this.ckps.length) this.ckps = [];
    this.ckp = null;
    this.ckpPeak = 0;
  }

  private static pool: Tape[] = [];

  /** A tape for one adjoint invocation, from the pool. */
  static acquire(): Tape {
    const t = Tape.pool.pop() ?? new Tape();
    t.reset();
    return t;
  }

  /** Returns a tape to the pool; its height is reset, so a primal that threw leaves nothing behind. */
  static release(t: Tape): void {
    t.reset();
    if (Tape.pool.length < 8) Tape.pool.push(t);
  }
}
