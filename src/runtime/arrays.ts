// Array helpers used by generated derivative code.

/** the type of a derivative of a T: writable, with only the parts that can hold a float */
export type Tangent<T> = T extends number
  ? number
  : T extends Float64Array | Float32Array
    ? Float64Array
    : T extends readonly unknown[]
      ? { -readonly [K in keyof T]: Tangent<T[K]> }
      : T extends object
        ? { -readonly [K in keyof T as HoldsFloat<T[K]> extends true ? K : never]: Tangent<T[K]> }
        : never;
/** the type of nbdirs derivatives of a T (vector mode): scalars become Float64Arrays, number arrays flat arrays */
export type Directions<T> = T extends number
  ? Float64Array
  : T extends Float64Array | Float32Array
    ? Float64Array
    : T extends readonly number[]
      ? number[]
      : T extends readonly unknown[]
        ? { -readonly [K in keyof T]: Directions<T[K]> }
        : T extends object
          ? { -readonly [K in keyof T as HoldsFloat<T[K]> extends true ? K : never]: Directions<T[K]> }
          : never;
export type HoldsFloat<T> = T extends number
  ? true
  : T extends Float64Array | Float32Array
    ? true
    : T extends IntegerArray
      ? false
    : T extends readonly (infer E)[]
      ? HoldsFloat<E>
      : T extends object
        ? true extends { [K in keyof T]-?: HoldsFloat<T[K]> }[keyof T]
          ? true
          : false
        : false;

/** the integer typed arrays: passive (their elements are integers) */
type IntegerArray = Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array;

type Shape = number | boolean | string | Float64Array | readonly unknown[] | { [k: string]: unknown };

/**
 * A zero derivative shaped like `x`. With `nbdirs` (vector mode) every innermost number array becomes a
 * flat Float64Array with `nbdirs` entries per element, and every scalar a Float64Array(nbdirs).
 */
export function zerosLike<T>(x: T): Tangent<T>;
export function zerosLike<T>(x: T, nbdirs: number): Directions<T>;
export function zerosLike<T>(x: T, nbdirs?: number): Tangent<T> | Directions<T>;
export function zerosLike(x: Shape, nbdirs?: number): unknown {
  return zerosOf(x, nbdirs);
}

function zerosOf(x: Shape, nbdirs: number | undefined): unknown {
  if (typeof x === 'number') return nbdirs === undefined ? 0 : new Float64Array(nbdirs);
  // a Float32Array's derivative is a Float64Array (derivatives are not rounded to float32)
  if (x instanceof Float64Array || x instanceof Float32Array) return new Float64Array(nbdirs === undefined ? x.length : x.length * nbdirs);
  if (Array.isArray(x)) {
    if (x.length === 0 || typeof x[0] === 'number') {
      return zeros(nbdirs === undefined ? x.length : x.length * nbdirs);
    }
    return x.map((e) => zerosOf(e as Shape, nbdirs));
  }
  if (typeof x === 'object' && x !== null) {
    const r: Record<string, unknown> = {};
    for (const k of Object.keys(x)) {
      const v = (x as Record<string, unknown>)[k];
      if (typeof v === 'number' || (typeof v === 'object' && !isIntegerArray(v))) r[k] = zerosOf(v as Shape, nbdirs);
    }
    return r;
  }
  return x;
}

/** zeros(n)'s arrays are copied from this one, grown on demand up to ZEROS_KEPT elements */
let zerosTemplate = packedDoubles(0);
const ZEROS_KEPT = 1 << 16;

/**
 * A plain array of `n` zeros that V8 keeps as packed doubles. `new Array(n).fill(0)` makes a holey
 * array, and every read of a holey array checks for a hole: derivative code reading its shadows in
 * inner loops ran about 15% slower (GMM written with map/reduce). Copying a packed template is also
 * faster than filling for all but the smallest lengths. Throws like `new Array(n)` on a length that is
 * not a whole number from 0 to 2³² − 1.
 */
export function zeros(n: number): number[] {
  if (n >>> 0 !== n) throw new RangeError('Invalid array length');
  if (n > ZEROS_KEPT) return packedDoubles(n);
  if (zerosTemplate.length < n) zerosTemplate = packedDoubles(Math.min(ZEROS_KEPT, Math.max(n, 2 * zerosTemplate.length)));
  return zerosTemplate.slice(0, n);
}

/**
 * The shadow of an array a loop allocates afresh each pass (`const diff = xi.map(…)`) that nothing else
 * ever names: the buffer the previous pass used when it has length `n`, else a new one. Derivative code
 * calls this only where the buffer is all zeros (see src/transform/adjoint/reused-shadows.ts).
 */
export function zerosAgain(buffer: number[] | undefined, n: number): number[] {
  return buffer !== undefined && buffer.length === n ? buffer : zeros(n);
}

/** zerosAgain for a Float64Array */
export function float64Again(buffer: Float64Array | undefined, n: number): Float64Array {
  return buffer !== undefined && buffer.length === n ? buffer : new Float64Array(n);
}

/**
 * Where the backward sweep undoes such an allocation: the buffer, zeroed, becomes the shadow of the
 * array the variable held before (`previous`), or a new one when that array is of another length.
 */
export function zeroedFor<T extends number[] | Float64Array>(buffer: T, previous: T | undefined, zeroBelow = 0): T {
  if (previous === undefined || previous.length === buffer.length) {
    // (a loop: Array.prototype.fill costs more than the ten stores of a short shadow)
    // (`zeroBelow`: the elements below it are zero already, the backward sweep has just reset them)
    for (let i = zeroBelow; i < buffer.length; i++) buffer[i] = 0;
    return buffer;
  }
  return (buffer instanceof Float64Array ? new Float64Array(previous.length) : zeros(previous.length)) as T;
}

/** n zeros in an array whose elements are doubles from the start (its first store was 0.5) */
function packedDoubles(n: number): number[] {
  const a = [0.5];
  a[0] = 0;
  for (let i = 1; i < n; i++) a.push(0);
  if (n === 0) a.pop();
  return a;
}

function isIntegerArray(v: unknown): v is IntegerArray {
  return ArrayBuffer.isView(v) && !(v instanceof Float64Array || v instanceof Float32Array || v instanceof DataView);
}

/** Sets every number in a (nested) derivative structure to zero, in place. */
export function zeroFill(x: unknown): void {
  if (x instanceof Float64Array) {
    x.fill(0);
    return;
  }
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      if (typeof x[i] === 'number') x[i] = 0;
      else zeroFill(x[i]);
    }
    return;
  }
  if (typeof x === 'object' && x !== null) {
    const o = x as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (typeof o[k] === 'number') o[k] = 0;
      else zeroFill(o[k]);
    }
  }
}

/**
 * The object each snapshot copy was taken from. Restoring puts the same objects back in their
 * places, not only their numbers: a row swapped by reference (`A[i] = A[j]`) after the snapshot
 * comes back where it was, so references held elsewhere, and the adjoints that mirror them, stay right.
 */
const snapshotOrigin = new WeakMap<object, object>();

/** A deep copy of the numbers of `x` that remembers which object each part was copied from. */
export function snapshot<T>(x: T): T {
  if (ArrayBuffer.isView(x)) return remember((x as unknown as Float64Array).slice() as unknown as T, x as object);
  if (Array.isArray(x)) return remember(x.map((e) => (typeof e === 'object' && e !== null ? snapshot(e) : e)) as T, x);
  if (typeof x === 'object' && x !== null) {
    const r: Record<string, unknown> = {};
    for (const k of Object.keys(x)) r[k] = snapshot((x as Record<string, unknown>)[k]);
    return remember(r as T, x);
  }
  return x;
}

function remember<T>(copy: T, from: object): T {
  snapshotOrigin.set(copy as object, from);
  return copy;
}

/**
 * Puts `dst` back in the state `src` (a snapshot of it) recorded: the same nested objects in the same
 * places, holding the same numbers, and plain arrays at the same length.
 */
export function restoreInto<T>(dst: T, src: T): void {
  if (ArrayBuffer.isView(dst)) {
    (dst as unknown as Float64Array).set(src as unknown as Float64Array);
    return;
  }
  if (Array.isArray(dst)) {
    const s = src as unknown as unknown[];
    if (dst.length !== s.length) dst.length = s.length;
    for (let i = 0; i < s.length; i++) dst[i] = restoredPart(dst[i], s[i]);
    return;
  }
  if (typeof dst === 'object' && dst !== null) {
    const d = dst as Record<string, unknown>, s = src as Record<string, unknown>;
    for (const k of Object.keys(s)) d[k] = restoredPart(d[k], s[k]);
  }
}

/** The value a slot holds once restored from its snapshot part `saved`. */
function restoredPart(current: unknown, saved: unknown): unknown {
  if (typeof saved !== 'object' || saved === null) return saved;
  const target = snapshotOrigin.get(saved) ?? current;
  if (typeof target !== 'object' || target === null) return snapshot(saved);
  restoreInto(target, saved);
  return target;
}

/** dst += src elementwise over a (nested) array or object structure; src is left unchanged. */
export function addInto<T>(dst: T, src: T | Float64Array | readonly number[]): void {
  if (dst instanceof Float64Array || Array.isArray(dst)) {
    const d = dst as unknown as unknown[], s = src as unknown as unknown[];
    // (elements past the end of src were pushed after it was taken: their seed is zero)
    const n = Math.min(d.length, s.length);
    for (let i = 0; i < n; i++) {
      if (typeof d[i] === 'number') (d as number[])[i] += s[i] as number;
      else addInto(d[i], s[i]);
    }
    return;
  }
  if (typeof dst === 'object' && dst !== null) {
    const d = dst as Record<string, unknown>, s = src as Record<string, unknown>;
    for (const k of Object.keys(d)) {
      if (typeof d[k] === 'number') (d as Record<string, number>)[k] += s[k] as number;
      else addInto(d[k], s[k]);
    }
  }
}
