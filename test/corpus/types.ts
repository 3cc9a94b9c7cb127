/**
 * The corpus format: each case names a TypeScript module (a file under test/corpus/src/),
 * the head function to differentiate, and how to draw its arguments.
 * The harness draws arguments from a seeded generator, so cases stay deterministic.
 */
export type ArgSpec =
  | { kind: 'num'; lo: number; hi: number }                 // a float in [lo, hi]
  | { kind: 'int'; value: number }                          // a fixed integer (passive)
  | { kind: 'bool'; value: boolean }
  | { kind: 'str'; value: string }                          // string-literal flag (passive)
  | { kind: 'vec'; n: number; lo: number; hi: number; typed?: boolean }   // number[] or Float64Array
  | { kind: 'mat'; rows: number; cols: number; lo: number; hi: number } // number[][]
  | { kind: 'tuple'; n: number; lo: number; hi: number }    // [number, number, ...]
  | { kind: 'obj'; fields: Record<string, ArgSpec> }        // object / interface value
  | { kind: 'list'; n: number; of: ArgSpec }                // array of n values drawn from `of` (arrays of objects)
  | { kind: 'index'; n: number; hi: number[] }              // number[] of n integers, element k in [0, hi[k % hi.length]) (passive: rows to read)
  | { kind: 'absent' };                                     // an optional argument left out: undefined

export interface CorpusCase {
  /** unique name, e.g. "loops/sum_squares" */
  name: string;
  /** module file relative to test/corpus/src/, e.g. "loops.ts" */
  file: string;
  /** head function */
  head: string;
  args: ArgSpec[];
  /** independents (parameter names); default: every float parameter */
  wrt?: string[];
  /** what the case exercises, for the coverage report */
  tags?: string[];
}
