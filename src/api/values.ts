// Structured numeric values (numbers, nested arrays, Float64Arrays, objects) as the runtime API and the
// validator see them: cloning, flattening, seeded random directions, and the vector-mode layout.
export type Value = number | boolean | string | Float64Array | Value[] | { [k: string]: Value };

/** every element a number (a plain loop: `every` with a callback costs a call per element) */
export function numbersOnly(v: unknown[]): boolean {
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'number') return false;
  return true;
}

export function clone<T>(v: T): T {
  if (v instanceof Float64Array) return Float64Array.from(v) as T;
  // (an array of numbers, the common large argument, copied without a call per element)
  if (Array.isArray(v)) return (numbersOnly(v) ? v.slice() : v.map(clone)) as T;
  if (typeof v === 'object' && v !== null) {
    // an instance of a scope class stays one: the function copies are given calls its methods
    const r: Record<string, unknown> = Object.create(Object.getPrototypeOf(v));
    for (const k of Object.keys(v)) r[k] = clone((v as Record<string, unknown>)[k]);
    return r as T;
  }
  return v;
}

/**
 * The floats of a value in a fixed order: arrays by index, object fields by sorted key (the same for
 * every object of a type, whatever order its fields were made in), or with `own` in the object's own
 * key order (the order its caller wrote them: jacobian's rows and columns).
 */
export function flatten(v: unknown, out: number[] = [], own = false): number[] {
  if (typeof v === 'number') out.push(v);
  else if (v instanceof Float64Array) for (const x of v) out.push(x);
  else if (Array.isArray(v)) for (const x of v) flatten(x, out, own);
  else if (typeof v === 'object' && v !== null) for (const k of own ? Object.keys(v) : Object.keys(v).sort()) flatten((v as Record<string, unknown>)[k], out, own);
  return out;
}

/** flatten(v).length, without making the list (the runtime API counts the independents on every call) */
export function floatCount(v: unknown): number {
  if (typeof v === 'number') return 1;
  if (v instanceof Float64Array) return v.length;
  if (Array.isArray(v)) {
    if (numbersOnly(v)) return v.length;
    let n = 0;
    for (const x of v) n += floatCount(x);
    return n;
  }
  if (typeof v === 'object' && v !== null) {
    let n = 0;
    for (const k of Object.keys(v)) n += floatCount((v as Record<string, unknown>)[k]);
    return n;
  }
  return 0;
}

/** A value of the same shape with every float replaced by f(float, index in flatten order). */
export function mapFloats<T>(v: T, f: (x: number, i: number) => number, counter = { i: 0 }): T {
  if (typeof v === 'number') return f(v, counter.i++) as T;
  if (v instanceof Float64Array) return v.map((x) => f(x, counter.i++)) as T;
  if (Array.isArray(v)) return v.map((x) => mapFloats(x, f, counter)) as T;
  if (typeof v === 'object' && v !== null) {
    const r: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) r[k] = mapFloats((v as Record<string, unknown>)[k], f, counter);
    const ordered: Record<string, unknown> = {};
    for (const k of Object.keys(v)) ordered[k] = r[k];
    return ordered as T;
  }
  return v;
}

export function zeros<T>(v: T): T {
  return mapFloats(v, () => 0);
}

/** Deterministic generator (mulberry32) for directions and seeds. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomLike<T>(v: T, r: () => number): T {
  return mapFloats(v, () => 2 * r() - 1);
}

/** x + h·d, floatwise */
export function axpy<T>(x: T, h: number, d: T): T {
  const dd = flatten(d);
  return mapFloats(x, (xi, i) => xi + h * dd[i]);
}

export function dot(a: unknown, b: unknown): number {
  const fa = flatten(a), fb = flatten(b);
  let s = 0;
  for (let i = 0; i < fa.length; i++) s += fa[i] * fb[i];
  return s;
}

/** Vector-mode layout of `nb` directions: scalars → Float64Array(nb), innermost arrays flat with stride nb. */
export function packDirections(dirs: unknown[], nb: number): unknown {
  const first = dirs[0];
  if (typeof first === 'number') return Float64Array.from(dirs as number[]);
  // (a tuple mixing numbers and arrays has one direction array per number, as derivTy lays it out)
  if (first instanceof Float64Array || (Array.isArray(first) && first.every((x) => typeof x === 'number'))) {
    const n = (first as ArrayLike<number>).length;
    const out = first instanceof Float64Array ? new Float64Array(n * nb) : new Array<number>(n * nb).fill(0);
    for (let k = 0; k < nb; k++) {
      const d = dirs[k] as ArrayLike<number>;
      for (let i = 0; i < n; i++) out[i * nb + k] = d[i];
    }
    return out;
  }
  if (Array.isArray(first)) return first.map((_, i) => packDirections(dirs.map((d) => (d as unknown[])[i]), nb));
  if (typeof first === 'object' && first !== null) {
    const r: Record<string, unknown> = {};
    for (const key of Object.keys(first)) {
      const fv = (first as Record<string, unknown>)[key];
      if (typeof fv === 'number' || typeof fv === 'object') r[key] = packDirections(dirs.map((d) => (d as Record<string, unknown>)[key]), nb);
    }
    return r;
  }
  return first;
}

/** Direction k of a vector-mode value, in the primal shape of `like`. */
export function unpackDirection(v: unknown, like: unknown, k: number, nb: number): unknown {
  if (typeof like === 'number') return (v as number[])[k];
  if (like instanceof Float64Array || (Array.isArray(like) && like.every((x) => typeof x === 'number'))) {
    const n = (like as ArrayLike<number>).length;
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = (v as number[])[i * nb + k];
    return like instanceof Float64Array ? Float64Array.from(out) : out;
  }
  if (Array.isArray(like)) return like.map((l, i) => unpackDirection((v as unknown[])[i], l, k, nb));
  if (typeof like === 'object' && like !== null) {
    const r: Record<string, unknown> = {};
    for (const key of Object.keys(like)) {
      const lv = (like as Record<string, unknown>)[key];
      if (typeof lv === 'number' || typeof lv === 'object') r[key] = unpackDirection((v as Record<string, unknown>)[key], lv, k, nb);
    }
    return r;
  }
  return like;
}

/** Arrays (and Float64Array views) reachable from a value, with a path for messages. */
function arraysOf(v: unknown, path: string, out: { path: string; a: object }[]): void {
  if (v instanceof Float64Array) out.push({ path, a: v });
  else if (Array.isArray(v)) {
    out.push({ path, a: v });
    // (an array of numbers holds no array: not walked with a call per element)
    if (!numbersOnly(v)) v.forEach((x, i) => typeof x === 'object' && x !== null && arraysOf(x, `${path}[${i}]`, out));
  } else if (typeof v === 'object' && v !== null) {
    out.push({ path, a: v });
    for (const k of Object.keys(v)) arraysOf((v as Record<string, unknown>)[k], `${path}.${k}`, out);
  }
}

function overlap(a: Float64Array, b: Float64Array): boolean {
  if (a.buffer !== b.buffer) return false;
  const a0 = a.byteOffset, a1 = a0 + a.byteLength, b0 = b.byteOffset, b1 = b0 + b.byteLength;
  return a0 < b1 && b0 < a1;
}

/**
 * Generated code assumes that distinct array arguments do not alias: the same array passed twice, or
 * Float64Array views sharing memory, would make derivatives silently wrong. Throws a clear error instead.
 */
export function assertNoAliasing(args: unknown[], names: string[]): void {
  // (within one argument too: two rows of a matrix that are one array get one shadow each, which
  // the derivative code cannot join again)
  const seen = new Map<object, string>();
  const views = new Map<ArrayBufferLike, { path: string; a: Float64Array }[]>();
  const clash = (p: string, q: string) => {
    throw new Error(`tsad: '${p}' and '${q}' share memory, but generated derivative code assumes that distinct arrays among the arguments do not alias; pass a copy (e.g. Float64Array.from(a), a.slice() or rows.map((r) => r.slice()))`);
  };
  args.forEach((a, i) => {
    const out: { path: string; a: object }[] = [];
    arraysOf(a, names[i] ?? `argument ${i + 1}`, out);
    for (const x of out) {
      const before = seen.get(x.a);
      if (before !== undefined) clash(before, x.path);
      seen.set(x.a, x.path);
      if (!(x.a instanceof Float64Array)) continue;
      const list = views.get(x.a.buffer) ?? [];
      for (const y of list) if (overlap(x.a, y.a)) clash(y.path, x.path);
      list.push({ path: x.path, a: x.a });
      views.set(x.a.buffer, list);
    }
  });
}

/** A value in a few characters: numbers to 4 digits, arrays past 6 entries elided with their length (points in messages). */
export function compact(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
  if (v instanceof Float64Array) return compact([...v]);
  if (Array.isArray(v)) {
    const head = v.slice(0, 6).map(compact).join(', ');
    return v.length > 6 ? `[${head}, … (${v.length} entries)]` : `[${head}]`;
  }
  if (typeof v === 'object' && v !== null) return Object.keys(v).length ? `{ ${Object.entries(v).map(([k, x]) => `${k}: ${compact(x)}`).join(', ')} }` : '{}';
  return JSON.stringify(v) ?? 'undefined';
}
