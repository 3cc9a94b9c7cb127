// Declarations tsad adds to TypeScript's standard library (stdlib.ts) for the user's code: the
// runtime module generated code imports, \`console\` (declared by the DOM lib, which tsad leaves out),
// and a typing of \`new Array(n).fill(v)\` by its value, as tsad lowers it. Declared later than the
// standard library, the \`fill\` overload here is tried first.
export const LIB_FILE = '/__tsad_lib.d.ts';

export const LIB_SOURCE = `
interface Array<T> {
  // new Array(n).fill(0) is any[] to TypeScript; filled, it is typed by the value, as tsad lowers it
  fill<V extends T>(v: V, start?: number, end?: number): 0 extends 1 & T ? FillOf<V>[] : this;
}
type FillOf<V> = V extends number ? number : V extends boolean ? boolean : V;
interface Console { log(...a: any[]): void; warn(...a: any[]): void; error(...a: any[]): void; }
declare var console: Console;
// globals of the browser's and Node's environments that tsc's default DOM lib declares
declare function structuredClone<T>(value: T): T;
declare var performance: { now(): number };

declare module 'tsad/runtime' {
  export class Tape {
    pushF(v: number): void; popF(): number; pushI(v: number): void; popI(): number;
    pushR<T>(v: T): void; popR<T>(): T;
    bufF(n: number): Float64Array; growF(b: Float64Array, n: number): Float64Array; freeF(b: Float64Array): void;
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
  export function zeros(n: number): number[];
  export function zerosAgain(buffer: number[] | undefined, n: number): number[];
  export function float64Again(buffer: Float64Array | undefined, n: number): Float64Array;
  export function zeroedFor<T extends number[] | Float64Array>(buffer: T, previous: T | undefined, zeroBelow?: number): T;
  export function zeroFill(x: unknown): void;
  export function snapshot<T>(x: T): T;
  export function restoreInto<T>(dst: T, src: T): void;
  export function addInto<T>(dst: T, src: T | Float64Array | readonly number[]): void;
}
`;
