// Shared plumbing for the per-eval io.ts modules: the shape of an eval's
// input/output adapter and small JSON-decoding helpers.
// (Not part of the code fed to the AD compiler.)

/** One function of an eval, split into the timed work and the untimed JSON conversion. */
export interface EvalFn<A> {
  /** The work to time: computes the result from prepared arguments. Must not mutate `args` observably. */
  run: (args: A) => unknown;
  /** Converts a result of `run` into the eval's output JSON (outside the timed region). */
  toJson: (result: unknown) => unknown;
}

/** Builds an EvalFn while keeping the result type of `run` and `toJson` in sync. */
export function evalFn<A, R>(run: (args: A) => R, toJson: (result: R) => unknown): EvalFn<A> {
  return { run, toJson: (r: unknown) => toJson(r as R) };
}

/** Input/output adapter of one eval (module). */
export interface EvalIO<A> {
  /** module name = eval name */
  name: string;
  /** JSON `input` of an evaluate request (min_runs / min_seconds are ignored) → prepared arguments */
  prepare: (input: unknown) => A;
  /** primal functions of the module, implemented with the plain objective code */
  primal: Record<string, EvalFn<A>>;
  /** names of the functions that need derivatives (provided by the AD compiler, not here) */
  derivatives: string[];
}

// ---------------------------------------------------------------------------
// JSON decoding helpers (throw a readable error on malformed input)

export function field(obj: unknown, key: string): unknown {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new Error(`expected an object with field "${key}"`);
  const rec = obj as Record<string, unknown>;
  if (!(key in rec)) throw new Error(`missing field "${key}"`);
  return rec[key];
}

export function num(v: unknown, what: string): number {
  if (typeof v !== 'number') throw new Error(`${what}: expected a number, got ${typeof v}`);
  return v;
}

export function int(v: unknown, what: string): number {
  const x = num(v, what);
  if (!Number.isInteger(x)) throw new Error(`${what}: expected an integer, got ${x}`);
  return x;
}

export function vec(v: unknown, what: string, len?: number): number[] {
  if (!Array.isArray(v)) throw new Error(`${what}: expected an array`);
  if (len !== undefined && v.length !== len) throw new Error(`${what}: expected length ${len}, got ${v.length}`);
  const out = new Array<number>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = num(v[i], `${what}[${i}]`);
  return out;
}

export function mat(v: unknown, what: string, rows?: number, cols?: number): number[][] {
  if (!Array.isArray(v)) throw new Error(`${what}: expected an array of arrays`);
  if (rows !== undefined && v.length !== rows) throw new Error(`${what}: expected ${rows} rows, got ${v.length}`);
  const out = new Array<number[]>(v.length);
  for (let i = 0; i < v.length; i++) out[i] = vec(v[i], `${what}[${i}]`, cols);
  return out;
}

/** Float64Array (or any array of numbers) → plain number[] for JSON output. */
export function toList(a: ArrayLike<number>): number[] {
  return Array.from(a);
}

/** Flat row-major buffer → nested rows × cols number[][] for JSON output. */
export function toRows(a: ArrayLike<number>, rows: number, cols: number): number[][] {
  const out = new Array<number[]>(rows);
  for (let r = 0; r < rows; r++) {
    const row = new Array<number>(cols);
    for (let c = 0; c < cols; c++) row[c] = a[r * cols + c];
    out[r] = row;
  }
  return out;
}
