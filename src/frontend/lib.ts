// The declarations tsad type-checks user code against. A small, self-contained standard library keeps
// the front end free of file-system access (it runs in a browser) and fast (no 1 MB of lib.*.d.ts to
// bind per compilation). Methods tsad does not differentiate are declared so that the type checker
// accepts them and the lowering can reject them with a tsad diagnostic that says what to write instead.
export const LIB_FILE = '/__tsad_lib.d.ts';

export const LIB_SOURCE = `
interface Object {}
interface Function { readonly length: number; }
interface CallableFunction extends Function {}
interface NewableFunction extends Function {}
interface IArguments { readonly length: number; [index: number]: any; }
interface RegExp {}
interface String { readonly length: number; charCodeAt(i: number): number; }
interface Boolean {}
interface Number { toFixed(d?: number): string; }
interface Symbol {}
interface SymbolConstructor { readonly iterator: unique symbol; }
declare var Symbol: SymbolConstructor;
interface IteratorYieldResult<TYield> { done?: false; value: TYield; }
interface IteratorReturnResult<TReturn> { done: true; value: TReturn; }
type IteratorResult<T, TReturn = any> = IteratorYieldResult<T> | IteratorReturnResult<TReturn>;
interface Iterator<T, TReturn = any, TNext = any> { next(...args: [] | [TNext]): IteratorResult<T, TReturn>; }
interface Iterable<T, TReturn = any, TNext = any> { [Symbol.iterator](): Iterator<T, TReturn, TNext>; }
interface IterableIterator<T, TReturn = any, TNext = any> extends Iterator<T, TReturn, TNext> { [Symbol.iterator](): IterableIterator<T, TReturn, TNext>; }
interface IteratorObject<T, TReturn = unknown, TNext = unknown> extends Iterator<T, TReturn, TNext> { [Symbol.iterator](): IteratorObject<T, TReturn, TNext>; }
type BuiltinIteratorReturn = any;
interface ArrayIterator<T> extends IteratorObject<T, BuiltinIteratorReturn, unknown> { [Symbol.iterator](): ArrayIterator<T>; }
interface ArrayLike<T> { readonly length: number; readonly [n: number]: T; }
interface PromiseLike<T> { then(f: (v: T) => any): any; }
interface Promise<T> { then(f: (v: T) => any): Promise<any>; }
interface TemplateStringsArray extends ReadonlyArray<string> { readonly raw: readonly string[]; }
type Record<K extends keyof any, T> = { [P in K]: T; };
type Partial<T> = { [P in keyof T]?: T[P]; };
type Readonly<T> = { readonly [P in keyof T]: T[P]; };
interface ReadonlyArray<T> {
  readonly length: number;
  readonly [n: number]: T;
  [Symbol.iterator](): ArrayIterator<T>;
  map<U>(f: (v: T, i: number, a: readonly T[]) => U): U[];
  forEach(f: (v: T, i: number, a: readonly T[]) => void): void;
  reduce<U>(f: (acc: U, v: T, i: number, a: readonly T[]) => U, init: U): U;
  reduce(f: (acc: T, v: T, i: number, a: readonly T[]) => T): T;
  slice(start?: number, end?: number): T[];
  indexOf(v: T): number;
  concat(...items: (T | readonly T[])[]): T[];
  join(sep?: string): string;
  includes(v: T): boolean;
}
interface Array<T> {
  length: number;
  [n: number]: T;
  [Symbol.iterator](): ArrayIterator<T>;
  // new Array(n).fill(0) is any[] to TypeScript; filled, it is typed by the value, as tsad lowers it
  fill<V extends T>(v: V, start?: number, end?: number): 0 extends 1 & T ? FillOf<V>[] : this;
  push(...items: T[]): number;
  pop(): T | undefined;
  map<U>(f: (v: T, i: number, a: T[]) => U): U[];
  forEach(f: (v: T, i: number, a: T[]) => void): void;
  reduce<U>(f: (acc: U, v: T, i: number, a: T[]) => U, init: U): U;
  reduce(f: (acc: T, v: T, i: number, a: T[]) => T): T;
  slice(start?: number, end?: number): T[];
  indexOf(v: T): number;
  concat(...items: (T | readonly T[])[]): T[];
  join(sep?: string): string;
  includes(v: T): boolean;
  reverse(): T[];
}
type FillOf<V> = V extends number ? number : V extends boolean ? boolean : V;
interface ArrayConstructor {
  new <T = any>(n?: number): T[];
  <T = any>(n?: number): T[];
  from<T, U>(src: ArrayLike<T> | { length: number }, f: (v: T, i: number) => U): U[];
  from<T>(src: ArrayLike<T> | Iterable<T>): T[];
  isArray(a: any): a is any[];
}
declare var Array: ArrayConstructor;
interface Float64Array {
  readonly length: number;
  [n: number]: number;
  [Symbol.iterator](): ArrayIterator<number>;
  subarray(begin?: number, end?: number): Float64Array;
  fill(v: number, start?: number, end?: number): this;
  set(a: ArrayLike<number>, offset?: number): void;
  slice(start?: number, end?: number): Float64Array;
  map(f: (v: number, i: number, a: Float64Array) => number): Float64Array;
  forEach(f: (v: number, i: number, a: Float64Array) => void): void;
  reduce(f: (acc: number, v: number, i: number, a: Float64Array) => number, init?: number): number;
  reverse(): this;
  indexOf(v: number): number;
  includes(v: number): boolean;
}
interface Float64ArrayConstructor {
  new (n: number): Float64Array;
  new (a: ArrayLike<number> | Iterable<number>): Float64Array;
  from(a: ArrayLike<number> | Iterable<number>): Float64Array;
}
declare var Float64Array: Float64ArrayConstructor;
interface Float32Array { readonly length: number; [n: number]: number; }
interface Int32Array { readonly length: number; [n: number]: number; }
interface Math {
  readonly E: number; readonly LN10: number; readonly LN2: number; readonly LOG2E: number;
  readonly LOG10E: number; readonly PI: number; readonly SQRT1_2: number; readonly SQRT2: number;
  abs(x: number): number; acos(x: number): number; acosh(x: number): number; asin(x: number): number;
  asinh(x: number): number; atan(x: number): number; atanh(x: number): number;
  atan2(y: number, x: number): number; cbrt(x: number): number; ceil(x: number): number;
  clz32(x: number): number; cos(x: number): number; cosh(x: number): number; exp(x: number): number;
  expm1(x: number): number; floor(x: number): number; fround(x: number): number;
  hypot(...xs: number[]): number; imul(a: number, b: number): number; log(x: number): number;
  log10(x: number): number; log1p(x: number): number; log2(x: number): number;
  max(...xs: number[]): number; min(...xs: number[]): number; pow(x: number, y: number): number;
  random(): number; round(x: number): number; sign(x: number): number; sin(x: number): number;
  sinh(x: number): number; sqrt(x: number): number; tan(x: number): number; tanh(x: number): number;
  trunc(x: number): number;
}
declare var Math: Math;
interface NumberConstructor {
  readonly EPSILON: number; readonly MAX_SAFE_INTEGER: number; readonly MAX_VALUE: number;
  readonly MIN_SAFE_INTEGER: number; readonly MIN_VALUE: number; readonly NaN: number;
  readonly NEGATIVE_INFINITY: number; readonly POSITIVE_INFINITY: number;
  isFinite(x: unknown): boolean; isNaN(x: unknown): boolean; isInteger(x: unknown): boolean;
  (v?: any): number;
}
declare var Number: NumberConstructor;
declare var NaN: number;
declare var Infinity: number;
declare function isFinite(x: number): boolean;
declare function isNaN(x: number): boolean;
declare function eval(x: string): any;
interface Error { name: string; message: string; }
interface ErrorConstructor { new (message?: string): Error; (message?: string): Error; }
declare var Error: ErrorConstructor;
declare var RangeError: ErrorConstructor;
declare var TypeError: ErrorConstructor;
interface DateConstructor { now(): number; }
declare var Date: DateConstructor;
interface Console { log(...a: any[]): void; }
interface Map<K, V> { get(k: K): V | undefined; set(k: K, v: V): this; }
interface MapConstructor { new <K = any, V = any>(): Map<K, V>; }
declare var Map: MapConstructor;
interface Set<T> { has(v: T): boolean; add(v: T): this; }
interface SetConstructor { new <T = any>(): Set<T>; }
declare var Set: SetConstructor;
declare var console: Console;
interface JSON { stringify(v: any): string; parse(s: string): any; }
declare var JSON: JSON;
// typed arrays (helper): Float32Array and the integer typed arrays, as TypeScript's lib declares the
// parts tsad lowers (src/frontend/typed-arrays.ts); the lowering identifies them by symbol name only
interface TsadTypedArray<Self> {
  readonly length: number;
  [n: number]: number;
  [Symbol.iterator](): ArrayIterator<number>;
  subarray(begin?: number, end?: number): Self;
  fill(v: number, start?: number, end?: number): this;
  set(a: ArrayLike<number>, offset?: number): void;
  slice(start?: number, end?: number): Self;
  map(f: (v: number, i: number, a: Self) => number): Self;
  forEach(f: (v: number, i: number, a: Self) => void): void;
  reduce(f: (acc: number, v: number, i: number, a: Self) => number, init?: number): number;
  reverse(): this;
  indexOf(v: number): number;
  includes(v: number): boolean;
}
interface TsadTypedArrayConstructor<Self> {
  new (n: number): Self;
  new (a: ArrayLike<number> | Iterable<number>): Self;
  from(a: ArrayLike<number> | Iterable<number>): Self;
}
interface Float32Array extends TsadTypedArray<Float32Array> {}
interface Int8Array extends TsadTypedArray<Int8Array> {}
interface Uint8Array extends TsadTypedArray<Uint8Array> {}
interface Uint8ClampedArray extends TsadTypedArray<Uint8ClampedArray> {}
interface Int16Array extends TsadTypedArray<Int16Array> {}
interface Uint16Array extends TsadTypedArray<Uint16Array> {}
interface Int32Array extends TsadTypedArray<Int32Array> {}
interface Uint32Array extends TsadTypedArray<Uint32Array> {}
declare var Float32Array: TsadTypedArrayConstructor<Float32Array>;
declare var Int8Array: TsadTypedArrayConstructor<Int8Array>;
declare var Uint8Array: TsadTypedArrayConstructor<Uint8Array>;
declare var Uint8ClampedArray: TsadTypedArrayConstructor<Uint8ClampedArray>;
declare var Int16Array: TsadTypedArrayConstructor<Int16Array>;
declare var Uint16Array: TsadTypedArrayConstructor<Uint16Array>;
declare var Int32Array: TsadTypedArrayConstructor<Int32Array>;
declare var Uint32Array: TsadTypedArrayConstructor<Uint32Array>;
// end typed arrays (helper)

declare module 'tsad/runtime' {
  export class Tape {
    pushF(v: number): void; popF(): number; pushI(v: number): void; popI(): number;
    pushR<T>(v: T): void; popR<T>(): T;
    bufF(n: number): Float64Array; freeF(b: Float64Array): void;
    static acquire(): Tape; static release(t: Tape): void;
  }
  /** the type of a derivative of a T: writable, with only the parts that can hold a float */
  type Tangent<T> = T extends number
    ? number
    : T extends Float64Array
      ? Float64Array
      : T extends readonly unknown[]
        ? { -readonly [K in keyof T]: Tangent<T[K]> }
        : T extends object
          ? { -readonly [K in keyof T as HoldsFloat<T[K]> extends true ? K : never]: Tangent<T[K]> }
          : never;
  /** the type of nbdirs derivatives of a T (vector mode): scalars become Float64Arrays, number arrays flat arrays */
  type Directions<T> = T extends number
    ? Float64Array
    : T extends Float64Array
      ? Float64Array
      : T extends readonly number[]
        ? number[]
        : T extends readonly unknown[]
          ? { -readonly [K in keyof T]: Directions<T[K]> }
          : T extends object
            ? { -readonly [K in keyof T as HoldsFloat<T[K]> extends true ? K : never]: Directions<T[K]> }
            : never;
  type HoldsFloat<T> = T extends number
    ? true
    : T extends Float64Array
      ? true
      : T extends readonly (infer E)[]
        ? HoldsFloat<E>
        : T extends object
          ? true extends { [K in keyof T]-?: HoldsFloat<T[K]> }[keyof T]
            ? true
            : false
          : false;
  export function zerosLike<T>(x: T): Tangent<T>;
  export function zerosLike<T>(x: T, nbdirs: number): Directions<T>;
  export function zeroFill(x: unknown): void;
  export function snapshot<T>(x: T): T;
  export function restoreInto<T>(dst: T, src: T): void;
  export function addInto<T>(dst: T, src: T): void;
}
`;
