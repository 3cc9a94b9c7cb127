// Types from values (the runtime API types plain JavaScript from its arguments) and values from types
// (random arguments for `tsad --check` without --input).
import { printTy } from '../backend/print.js';
import type { Ty } from '../ir/types.js';
import { typedArrayTy } from '../frontend/typed-arrays.js';
import { rng } from './values.js';

/** The TypeScript type of a runtime value, or null if tsad cannot differentiate through it. */
export function tyOfValue(v: unknown): Ty | null {
  if (typeof v === 'number') return { k: 'num' };
  if (typeof v === 'boolean') return { k: 'bool' };
  if (typeof v === 'string') return { k: 'str', lits: [] };
  if (v instanceof Float64Array) return { k: 'arr', elem: { k: 'num' }, typed: true, ro: false };
  // the integer typed arrays (passive: indices, counts), by their constructor's name
  // (src/frontend/typed-arrays.ts); a Float32Array argument is not supported here (no float32 shadows)
  if (ArrayBuffer.isView(v)) {
    const t = typedArrayTy(v.constructor.name);
    return t && t.elem.k === 'int' ? t : null;
  }
  if (Array.isArray(v)) {
    if (v.length === 0) return { k: 'arr', elem: { k: 'num' }, typed: false, ro: false };
    const e = tyOfValue(v[0]);
    if (!e) return null;
    const s = JSON.stringify(e);
    const all: Ty[] = [];
    for (const x of v) {
      const t = tyOfValue(x);
      if (!t) return null;
      all.push(t);
    }
    if (all.every((t) => JSON.stringify(t) === s)) return { k: 'arr', elem: e, typed: false, ro: false };
    const records = mergedRecords(all);
    return records && { k: 'arr', elem: records, typed: false, ro: false };
  }
  if (typeof v === 'object' && v !== null) {
    const fields = [];
    for (const k of Object.keys(v)) {
      const t = tyOfValue((v as Record<string, unknown>)[k]);
      if (!t) return null;
      fields.push({ name: k, ty: t });
    }
    return { k: 'obj', name: null, fields };
  }
  return null;
}

/**
 * Records of an array where some lack a field the others have (`[{ t: 0 }, { t: 1, weight: 2 }]`), as
 * one type with that field optional (`weight?: number`), as the TypeScript a user writes for such data
 * declares it: the strict front end then makes the code test it (`weight ?? 1`). Null when they are not
 * all plain records, or a field has two types.
 */
function mergedRecords(all: readonly Ty[]): Ty | null {
  const fields = new Map<string, { ty: Ty; count: number }>();
  for (const t of all) {
    if (t.k !== 'obj' || t.fields.some((f) => f.optional)) return null;
    for (const f of t.fields) {
      const have = fields.get(f.name);
      if (have && JSON.stringify(have.ty) !== JSON.stringify(f.ty)) return null;
      fields.set(f.name, { ty: f.ty, count: (have?.count ?? 0) + 1 });
    }
  }
  return {
    k: 'obj',
    name: null,
    fields: [...fields].map(([name, f]) => (f.count === all.length ? { name, ty: f.ty } : { name, ty: { k: 'opt', base: f.ty, none: ['undefined'] }, optional: true })),
  };
}

export function typeText(t: Ty): string {
  if (t.k === 'obj' && !t.name) return `{ ${t.fields.map((f) => (f.optional && f.ty.k === 'opt' ? `${f.name}?: ${typeText(f.ty.base)}` : `${f.name}: ${typeText(f.ty)}`)).join('; ')} }`;
  if (t.k === 'arr' && !t.typed) {
    const el = typeText(t.elem);
    return /[ |{]/.test(el) ? `(${el})[]` : `${el}[]`;
  }
  return printTy(t);
}

/**
 * Where in a value of no usable shape the problem is, for messages: `data[1].w: null`,
 * `xs: elements of different types (number, an array)`; null when tyOfValue accepts it.
 */
export function whereUnusable(v: unknown, path: string): string | null {
  if (tyOfValue(v)) return null;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const inner = whereUnusable(v[i], `${path}[${i}]`);
      if (inner) return inner;
    }
    return `${path}: its elements have different types (${[...new Set(v.map((x) => (tyOfValue(x) ? typeText(tyOfValue(x)!) : describeJson(x))))].slice(0, 3).join(', ')})`;
  }
  if (typeof v === 'object' && v !== null && !ArrayBuffer.isView(v)) {
    for (const [k, x] of Object.entries(v)) {
      const inner = whereUnusable(x, `${path}.${k}`);
      if (inner) return inner;
    }
  }
  return `${path}: ${describeJson(v)}`;
}

/** A shape signature for caching compiled code per argument shapes. */
export function shapeKey(v: unknown): string {
  if (typeof v === 'number') return 'n';
  if (typeof v === 'boolean') return 'b';
  if (typeof v === 'string') return 's';
  if (v instanceof Float64Array) return `F${v.length}`;
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}${(v as Float32Array).length}`;
  if (Array.isArray(v)) return arrayKey(v);
  if (typeof v === 'object' && v !== null) return `{${Object.keys(v).map((k) => `${k}:${shapeKey((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return typeof v;
}

/**
 * Every element counts: code compiled for an array of numbers (or of objects with a field) must not
 * be reused for one whose later element is `undefined` or lacks the field (it would run, and give NaN).
 */
function arrayKey(v: unknown[]): string {
  if (!v.length) return '[0:]';
  const first = shapeKey(v[0]);
  let same = true;
  for (let i = 1; i < v.length && same; i++) same = first === 'n' ? typeof v[i] === 'number' : shapeKey(v[i]) === first;
  return same ? `[${v.length}:${first}]` : `[${v.length}:${v.map(shapeKey).join('|')}]`;
}

/** What a value is, for messages: `a string ("abc")`, `an array of 2`, `null`. */
export function describeJson(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'string') return `a string (${JSON.stringify(v.length > 20 ? v.slice(0, 20) + '…' : v)})`;
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v} (${String(v)})`;
}

/**
 * Why `v` (parsed JSON) cannot be an argument of type `t`, naming the offending part (`w[2]`, `p.mass`),
 * or null if it can. Typed arrays are given as JSON arrays of numbers.
 */
export function jsonMismatch(v: unknown, t: Ty, path: string): string | null {
  const bad = () => `'${path}' must be ${typeText(t)}, but is ${describeJson(v)}`;
  switch (t.k) {
    case 'num':
    case 'int':
      return typeof v === 'number' ? null : bad();
    case 'bool':
      return typeof v === 'boolean' ? null : bad();
    case 'str':
      return typeof v === 'string' && (!t.lits.length || t.lits.includes(v)) ? null : bad();
    case 'arr':
      if (!Array.isArray(v)) return bad();
      for (let i = 0; i < v.length; i++) {
        const m = jsonMismatch(v[i], t.elem, `${path}[${i}]`);
        if (m) return m;
      }
      return null;
    case 'tuple':
      if (!Array.isArray(v) || v.length !== t.elems.length) return bad();
      for (let i = 0; i < v.length; i++) {
        const m = jsonMismatch(v[i], t.elems[i], `${path}[${i}]`);
        if (m) return m;
      }
      return null;
    case 'obj': {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return bad();
      const o = v as Record<string, unknown>;
      for (const f of t.fields) {
        if (!(f.name in o)) {
          if (f.optional) continue;
          return `'${path}' has no field '${f.name}' (${typeText(f.ty)})`;
        }
        const m = jsonMismatch(o[f.name], f.ty, `${path}.${f.name}`);
        if (m) return m;
      }
      return null;
    }
    case 'opt':
      // JSON has null (and false); undefined is a field left out
      if ((v === null && t.none.includes('null')) || (v === false && t.none.includes('false'))) return null;
      return jsonMismatch(v, t.base, path);
    default:
      return bad();
  }
}

/** A JSON value checked by jsonMismatch as the argument the function expects (Float64Arrays made). */
export function fromJson(v: unknown, t: Ty): unknown {
  if (t.k === 'arr' && Array.isArray(v)) return t.typed ? Float64Array.from(v as number[]) : v.map((x) => fromJson(x, t.elem));
  if (t.k === 'tuple' && Array.isArray(v)) return v.map((x, i) => fromJson(x, t.elems[i]));
  if (t.k === 'obj' && typeof v === 'object' && v !== null) {
    const o: Record<string, unknown> = { ...(v as Record<string, unknown>) };
    for (const f of t.fields) if (f.name in o) o[f.name] = fromJson(o[f.name], f.ty);
    return o;
  }
  return v;
}

/** The value a size parameter takes in random arguments, and the arrays' length until a probe says more. */
const SIZE = 4;

/**
 * Random arguments of the given types: numbers in [0.5, 1.5], size parameters (positions in `sizes`)
 * the integer 4, arrays of length 4 or the length `lengths` gives for their place ('0', '0[]', '1.f').
 */
export function randomArgs(types: Ty[], seed: number, sizes: ReadonlySet<number> = new Set(), lengths: ReadonlyMap<string, number> = new Map()): unknown[] {
  const r = rng(seed);
  const draw = (t: Ty, at: string): unknown => {
    switch (t.k) {
      case 'num':
      case 'int':
        return 0.5 + r();
      case 'bool':
        return false;
      case 'str':
        return t.lits[0] ?? '';
      case 'arr': {
        const length = lengths.get(at) ?? SIZE;
        if (t.typed) return Float64Array.from({ length }, () => 0.5 + r());
        return Array.from({ length }, () => draw(t.elem, at + '[]'));
      }
      case 'tuple':
        return t.elems.map((e, i) => draw(e, `${at}.${i}`));
      case 'obj': {
        const o: Record<string, unknown> = {};
        // (an optional field is left out, not set to undefined: `{ ...opts }` would copy an undefined)
        for (const f of t.fields) {
          const v = draw(f.ty, `${at}.${f.name}`);
          if (v !== undefined || !(f.optional || f.ty.k === 'opt')) o[f.name] = v;
        }
        return o;
      }
      default:
        return undefined;
    }
  };
  return types.map((t, j) => (sizes.has(j) && (t.k === 'num' || t.k === 'int') ? SIZE : draw(t, String(j))));
}

/**
 * Random arguments long enough for what `run` reads and writes: the primal runs on arguments whose
 * arrays record every index past their end, and each place ('0[]': the rows of argument 0) grows to the
 * largest such index until none is left (a few rounds; the last draw is returned either way).
 */
export function sizedRandomArgs(types: Ty[], seed: number, sizes: ReadonlySet<number>, run: (args: unknown[]) => unknown): unknown[] {
  const lengths = new Map<string, number>();
  let args = randomArgs(types, seed, sizes, lengths);
  for (let round = 0; round < 6; round++) {
    const need = readsPastEnd(args, run);
    let grown = false;
    for (const [at, n] of need)
      if (n > (lengths.get(at) ?? SIZE) && n <= 100_000) {
        lengths.set(at, n);
        grown = true;
      }
    if (!grown) break;
    args = randomArgs(types, seed, sizes, lengths);
  }
  return args;
}

/**
 * The places ('0': argument 0, '0[]': its rows, '1.f': field f of argument 1) whose arrays `run` reads or
 * writes past their end, with the length that access needs. Runs on copies.
 */
export function readsPastEnd(args: unknown[], run: (args: unknown[]) => unknown): Map<string, number> {
  const need = new Map<string, number>();
  try {
    run(args.map((a, j) => watch(a, String(j), need)));
  } catch {
    // a read past the end gives undefined, which may fail later: the lengths seen so far still tell
  }
  return need;
}

/** `v` with every array behind a proxy that records, per place, the length an access past its end needs. */
function watch(v: unknown, at: string, need: Map<string, number>): unknown {
  const isArr = Array.isArray(v) || v instanceof Float64Array;
  if (!isArr) {
    if (typeof v !== 'object' || v === null) return v;
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v)) o[k] = watch((v as Record<string, unknown>)[k], `${at}.${k}`, need);
    return o;
  }
  const target = Array.isArray(v) ? v.map((x) => watch(x, at + '[]', need)) : Float64Array.from(v as Float64Array);
  const note = (key: string | symbol) => {
    if (typeof key !== 'string' || !/^\d+$/.test(key)) return;
    const i = Number(key);
    if (i >= target.length) need.set(at, Math.max(need.get(at) ?? 0, i + 1));
  };
  return new Proxy(target, {
    get(t, key) {
      note(key);
      // typed-array getters and methods check their receiver: run them on the array itself
      const x = Reflect.get(t, key) as unknown;
      return typeof x === 'function' ? (x as (...a: unknown[]) => unknown).bind(t) : x;
    },
    set(t, key, value) {
      note(key);
      return Reflect.set(t, key, value);
    },
  });
}
