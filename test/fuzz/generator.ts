// Random programs in tsad's differentiable subset, for property-based testing (issue "Trust").
//
// A program is generated as a *raw tree* (ProgSpec) whose references to variables, arrays, loop
// counters and helper functions are plain numbers ("selectors"). The renderer resolves each selector
// against what is in scope at that point (modulo the number of candidates), so every tree fast-check
// produces — and every tree it shrinks to — renders to a valid, terminating, deterministic module:
//
//   - counted `for` loops over literal bounds or `.length`s, `for…of`, `while`/`do…while` with a
//     data-dependent condition and a counter capped by a constant (incremented first, so `continue`
//     cannot skip it); at most two loops nested per function;
//   - array indices always in range: `i` when the counter's range fits, `(i + c) % n`, `n - 1 - i`,
//     literals reduced mod n, or data-dependent `(|tanh(e)| · (n − ½)) | 0`;
//   - recursion only through a depth parameter that decreases to 0; calls only to earlier helpers;
//   - every Math intrinsic with its argument kept inside its domain (`Math.log(1 + e * e)`,
//     `Math.asin(Math.tanh(e) * 0.9)`, `Math.acosh(1.5 + e * e)`, …); kinks (abs, min, max, %,
//     floor, branches) are allowed: the checker flags points near them as unstable;
//   - values stay bounded: every assignment's right-hand side is squashed (tanh, sin, atan, e/(1+|e|)),
//     `*=` and `/=` contract, exponentials take squashed arguments, inputs are in [-1.5, 1.5];
//   - distinct array arguments of one call never alias (the subset's assumption).
import fc from 'fast-check';
import { drawArg } from '../support/corpus.js';
import { rng } from '../../src/api/values.js';
import type { ArgSpec } from '../corpus/types.js';

// ------------------------------------------------------------------------------------------------
// Raw trees
// ------------------------------------------------------------------------------------------------

export type Idx =
  | { k: 'c'; v: number } // literal, reduced mod n
  | { k: 'i'; s: number; off: number; form: number } // a loop counter: i, n-1-i, (i + off) % n
  | { k: 'ij'; s: number; t: number; off: number } // (i + 2 * j + off) % n
  | { k: 'd'; e: Expr }; // data-dependent: (|tanh(e)| * (n - 0.5)) | 0

export type Expr =
  | { k: 'lit'; v: number }
  | { k: 'var'; s: number }
  | { k: 'int'; s: number } // a counter as a (passive) float
  | { k: 'rd'; s: number; i: Idx }
  | { k: 'rd2'; s: number; i: Idx; j: Idx }
  | { k: 'fld'; s: number; f: number }
  | { k: 'mc'; c: number } // Math / Number constant
  | { k: 'len'; s: number }
  | { k: 'neg'; a: Expr }
  | { k: 'bin'; op: number; a: Expr; b: Expr }
  | { k: 'm1'; fn: number; a: Expr }
  | { k: 'm2'; fn: number; a: Expr; b: Expr }
  | { k: 'mn'; fn: number; a: Expr; b: Expr; c: Expr }
  | { k: 'spread'; fn: number; s: number }
  | { k: 'tern'; c: Cond; a: Expr; b: Expr }
  | { k: 'call'; s: number; args: Expr[]; arrs: number[] };

export type Cond =
  | { k: 'cmp'; op: number; a: Expr; b: Expr }
  | { k: 'and' | 'or'; a: Cond; b: Cond }
  | { k: 'not'; a: Cond }
  | { k: 'ic'; s: number; m: number } // on counters: i % m === 0, i < j
  | { k: 'fin'; a: Expr }; // isFinite / !isNaN

export type Stmt =
  | { k: 'let'; e: Expr; q: number; cst: boolean }
  | { k: 'set'; s: number; op: number; e: Expr; q: number }
  | { k: 'aset'; s: number; i: Idx; op: number; e: Expr; q: number }
  | { k: 'aset2'; s: number; i: Idx; j: Idx; op: number; e: Expr; q: number }
  | { k: 'alias'; s: number; i: Idx; j: Idx; c: number } // a[i] = c * a[j]
  | { k: 'fset'; s: number; f: number; op: number; e: Expr; q: number }
  | { k: 'inc'; s: number; dec: boolean }
  | { k: 'if'; c: Cond; t: Stmt[]; e: Stmt[] }
  | { k: 'for'; b: number; form: number; body: Stmt[] }
  | { k: 'forof'; s: number; body: Stmt[] }
  | { k: 'while'; cap: number; c: Cond; body: Stmt[]; dw: boolean }
  | { k: 'jump'; j: number; c: Cond; t: number; lab: boolean; e: Expr; q: number }
  | { k: 'from'; n: number; e: Expr; q: number; idx: boolean }
  // how: 0 in a counted loop, 1 straight-line, 2 in a while loop
  | { k: 'push'; n: number; e: Expr; q: number; how: number }
  | { k: 'fill'; n: number; v: number; f64: boolean }
  | { k: 'copy'; s: number; f64: boolean }
  | { k: 'mfrom'; e: Expr; q: number; loop: number }
  | { k: 'obj'; a: Expr; b: Expr; c: Expr; q: number }
  | { k: 'destr'; s: number; arr: boolean }
  | { k: 'callv'; s: number; args: Expr[]; arrs: number[] }
  | { k: 'sw'; s: number; e: Expr; cases: Stmt[][]; ft: number }
  // a sum over iterations of private work with an inner loop (what the adjoint fuses)
  | { k: 'red'; b: number; b2: number; e1: Expr; e2: Expr; e3: Expr; e4: Expr; q: number }
  | { k: 'block'; body: Stmt[]; c: Cond }
  // a state variable rebound, in a loop or once: kind 0 number[], 1 [number, number], 2 P, 3 number[][], 4 P[];
  // mode 0 to a literal built from its own old value, 1 to a fresh literal, 2 to another variable (alias),
  // 3 to a copy of itself (`s = s.slice()`; a tuple or an object aliases instead);
  // loop 0 none, 1 counted, 2 while
  | { k: 'state'; kind: number; mode: number; loop: number; n: number; e: Expr; q: number; s: number }
  // a second name for an array, matrix, object or tuple in scope (`const b = a`), then a write through it
  | { k: 'twin'; s: number; i: Idx; e: Expr; q: number; kind: number }
  // rows of a matrix or an array of objects: mode 0 swap by reference, 1 `M[i] = M[j]`, 2 `M[i] = <fresh row>`
  | { k: 'rows'; s: number; i: Idx; j: Idx; mode: number; e: Expr; q: number; loop: number }
  // an array of objects P[]: a literal, or pushed in a loop
  | { k: 'aobj'; n: number; e: Expr; q: number; push: boolean; loop: number }
  // an object with an array field (Q), its field rebound to a literal of its old elements when `rebind`;
  // a third of them also spread into a copy sharing the array (`{ ...q, s: … }`), written through the copy
  | { k: 'qobj'; e: Expr; f: Expr; q: number; rebind: boolean; loop: number }
  // Gaussian elimination with partial pivoting (row swaps by reference) of a 3×3 matrix near a
  // well-conditioned base: its determinant, or (solve) the solution of a linear system
  | { k: 'lu'; e: Expr; q: number; solve: boolean; helper: boolean };

/**
 * `var` as pre-ES2015 code and bundlers write it, rendered for the mutable `let`s of one squash choice (q = 6) (drawn as
 * those, so that adding it changed no other program of a seed): mode 0 a counter declared again in two
 * loops, 1 a variable declared again in a loop body carrying its value to the next pass, 2 declared without
 * a value and assigned on both branches (every other one declared with its first value only in the body of
 * a loop of literal bounds, read after it), 3 declared without a value in a loop body, given its first value
 * above the loop.
 */
interface VarSpec { mode: number; b: number; c: Cond; e: Expr; f: Expr; q: number }

/**
 * Arrays as JavaScript writes them (src/frontend/arrays.ts), written at the end of the head: form 0
 * `const t = []` + pushes, 1 `new Array(n)` (or `[]`) filled by the loop after it, 2 spread literal, 3 `slice(a,
 * b)`, 4 `concat`, 5 `fill` as a value, 6 `reverse`, 7 `indexOf`/`includes`, 8 `slice()`/`slice(1)` of
 * an array of rows or of objects (a new array sharing the rows), 9 a `for` whose update moves a
 * second index (`for (let i = 0, j = n - 1; i < n; j = i++)`), 10 a stack of numbers (`push`, `pop()`
 * as a statement and as a value), 11 `length` assignments truncating an array (a fresh one, or an
 * array of the head's with no other name) and emptying it (a copy grown again by a store at its old
 * last index, its length read), 12 calls of helpers with rest parameters
 * (numbers, a spread array, rows, none; a call writing an array among the trailing arguments), 13
 * `push` of several values at once, 14 optional booleans (a parameter, an object's field: absent, given,
 * computed), 15 `||`/`&&` whose left operand is computed (`a[k] || 0.5`), or reads past either end of
 * an array with their fallbacks (`a[j + 1] ?? c`, `a[j - 1] === undefined ? c : a[j - 1]`), 16 a nullable `var`/`let` never
 * assigned again (or declared without a value and assigned once later in its block), 17 a tuple mixing an array and a number (a local one written through its parts, or a
 * helper's result), 18 a float the loop header sets and steps, with a `continue`, 19 rows or objects taken off a stack
 * (`pop()` as a value and as a statement, in a `while`, `length` assignments), 20 a fresh array or
 * object read at once (`[a, b][i]`, `({ u: a }).u`, `a.slice()[i]`, `[...a, b][i]`, `new Array(n).fill(v)[i]` with a computed v, literals spread into `Math.max`/`min`/`hypot`), 21 a number rebuilt from its old value by a call (`y = relax(y, k)`, a method, a
 * static method, a loop header's update, a number of the head's), 22 an array or object written again through a name rebound to it (a pool
 * picked per iteration, a double buffer swapped, one array bound twice); loop 0 straight-line, 1 in a counted loop, 2 in a while, 3 two loops deep.
 */
export interface JsArraySpec {
  form: number;
  s: number;
  t: number;
  e: Expr;
  q: number;
  n: number;
  v: number;
  loop: number;
}

/** parameter kinds of helpers: number, number[] (of a fixed length), readonly number[], number[][], P */
export type PKind = 'num' | 'vec' | 'rovec' | 'mat' | 'obj';

export interface HelperSpec {
  params: { kind: PKind; len: number }[];
  /** 0: number, 1: number[], 2: void (writes its first array parameter), 3: P (a new object),
   * 4: number[][] (2×2: a copy of a matrix parameter, or a literal), 5: [number, number] */
  ret: number;
  retLen: number;
  rec: boolean;
  /** recursive helpers: default value for the depth parameter (0: none) */
  dflt: number;
  arrow: boolean;
  body: Stmt[];
  base: Expr;
  retE: Expr;
  q: number;
}

/**
 * A function `fb` made of loops over independent items (the block Jacobian's form,
 * src/transform/blocks.ts), declared before the head, which calls it once (so every mode checks it as a
 * callee) and mixes its outputs into its result; the property `blocks` differentiates it as a head of its
 * own (its independents and arguments in the comment above it). Each iteration reads rows of nested independents through an
 * index array (`cams[obs[2 * i]]`: a parameter, or a module constant) or by the counter, binds them to
 * constants or reads them in place, may pass them to a helper returning a small array, computes a few
 * numbers (one of them given in a branch), and writes `per` outputs of a returned array or of array
 * parameters (two outputs: the second written by a second loop). One in six carries a number to the
 * next iteration and one in eight names an output among the independents: forms the blocks refuse
 * (the property `blocks` then checks the colouring method's answer).
 */
export interface BlocksSpec {
  items: number;
  /** rows and columns of `cams` and of `pts` */
  ncams: number;
  ccols: number;
  npts: number;
  pcols: number;
  /** outputs an iteration writes */
  per: number;
  /** 0 a returned Float64Array, 1 a returned number[], 2 a Float64Array parameter, 3 two number[] parameters */
  out: number;
  /** the rows an iteration reads: 0 through an index parameter, 1 through a module constant, 2 by the counter */
  idx: number;
  bind: boolean;
  helper: boolean;
  /** the helper's two locals and two results */
  he: Expr[];
  /** the iteration's numbers, its outputs, the second loop's output */
  body: Expr[];
  outs: Expr[];
  second: Expr;
  /** a number given in a branch (then and else), and whether the last output is written inside it */
  branch: { c: Cond; a: Expr; b: Expr; out: boolean } | null;
  /** 0: nothing carried; 5: a number carried to the next iteration (refused) */
  carry: number;
  /** 0: the outputs are not independents; 7: the first one is (refused) */
  wrtOut: number;
  /** drops `w` (bit 0) or `pts` (bit 1) from the independents */
  drop: number;
  q: number;
}

export interface ProgSpec {
  hp: { x: boolean; y: boolean; a: boolean; b: boolean; m: boolean; p: boolean; c: boolean };
  la: number;
  lb: number;
  rows: number;
  cols: number;
  /** 0: number, 1: void writing `out`, 2: number[] */
  ret: number;
  rl: number;
  helpers: HelperSpec[];
  body: Stmt[];
  retE: Expr;
  mix: boolean;
  gbl: boolean;
  /** allow Math.fround on active values (then the tangent is not checked against divided differences) */
  fround: boolean;
  wrtDrop: number;
  seed: number;
  /** a rare family of forms rendered at the end of the head, in the loop context it needs (null: none) */
  focus: FocusSpec | null;
  /** expressions in JavaScript's evaluation order and destructuring, rendered after the focus (null: none) */
  exprs: ExprsSpec | null;
  /** arrays as JavaScript writes them, after the focus (drawn last: nothing before depends on them) */
  jsArrays?: JsArraySpec[];
  /** array methods with callbacks, after the arrays (drawn after them, for the same reason) */
  callbacks?: CallbackSpec[];
  /** Float32Array and the integer typed arrays, after the JavaScript arrays (drawn after them) */
  typedArrays?: TypedArraySpec[];
  /** rest elements of array patterns, after the typed arrays (drawn after them) */
  rests?: RestSpec[];
  /** a class and its instances, at the end of the head (null: none) */
  classes?: ClassSpec | null;
  /** rest elements of object patterns, after the class (drawn after it) */
  objRests?: ObjRestSpec[];
  /** typed arrays' `set`, after the object rests (drawn after them) */
  typedSets?: TypedSetSpec[];
  /** calls of functions with hand-written derivatives and of a passive one, at the end of the head (null: none) */
  customs?: CustomSpec | null;
  /** local functions and functions passed to helpers, after the custom derivatives (drawn last) */
  closures?: ClosureSpec[];
  /** helpers with rest parameters, `push` of several values, optional booleans (JsArraySpec forms 12-16), after the closures (drawn last) */
  jsCalls?: JsArraySpec[];
  /** a function of loops over independent items, called by the head (drawn last; null: none) */
  blocks?: BlocksSpec | null;
  /** a gradient-descent helper whose loop coarsening replays (DescentSpec; drawn last; null: none) */
  descent?: DescentSpec | null;
  /** TypeScript spellings counted by syntax (TsFormSpec), after the descent helper (drawn last) */
  tsForms?: TsFormSpec[];
}

/**
 * TypeScript spellings the front end accepts that lower to forms written elsewhere (test/fuzz/syntax-forms.ts
 * counts them on the source), written at the end of the head in a loop context of their own (`loop` as
 * JsArraySpec's): form 0 `type` aliases of an object and a tuple and an interface extending P (module
 * level, TS_FORM_BODY), 1 a `throw` guarding a helper's argument and one in the head (never taken: the
 * values are finite and the widths positive), 2 loose equality (`y == null`, `k != 1`), 3 casts (`e as
 * number`, `{ … } satisfies P`, `<number>e`), 4 bitwise operators on counters (`&`, `^`, `<<`, `>>>`, `~`,
 * compound `|=`, `^=`, `&=`, `<<=`, `>>=`, `>>>=`), 5 Number's statics (`Number.isFinite`, `Number.isNaN`,
 * `Number.isInteger`, `Number.MAX_VALUE`, `Number.NEGATIVE_INFINITY`, `Number.MIN_VALUE`), 6 an object's
 * fields by string keys (`o['u']`, `o['v'] = e`), 7 `Uint16Array`, `Uint32Array` and `Uint8ClampedArray`
 * (passive: indices and clamped weights). Their values flow into a number that the head's result adds.
 */
export interface TsFormSpec {
  form: number;
  s: number;
  e: Expr;
  q: number;
  loop: number;
}

/** the module-level declarations of TsFormSpec's form 0 and 1 */
const TS_FORM_BODY = [
  'type Span = { lo: number; hi: number };',
  'type Pair = [number, number];',
  '',
  'export interface Scaled extends P {',
  '  k: number;',
  '}',
  '',
  'function spanOf(lo: number, width: number): Span {',
  "  if (!(width >= 0)) throw new RangeError('spanOf: the width must not be negative');",
  '  return { lo, hi: lo + width };',
  '}',
  '',
  'function scaledSum(s: Scaled): number {',
  '  return s.k * (s.u + s.v * s.w);',
  '}',
  '',
];

/**
 * A helper of BGDHyperOpt's shape (issue 19: the loop whose trip count and exit only the run knows,
 * replayed from its closed form by src/transform/coarsen/replay.ts), called by the head with its rate
 * from the head's numbers and constant data (so that only the rate is active and the helper is
 * coarsened): `form` the loop (0 `while (k < cap)`, 1 `for (let k = 0; k < cap; k++)`, 2 `do … while (k <
 * cap && |g| > c)` with g carried, 3 `while (k < cap && w > -8)`); `body` the reduction (affine in the
 * state w); `test` the break (0 `d < c`, 1 `Math.abs(d) < c`, 2 `d > c`, 3 none, 4 `d <= d0` with d0 the
 * same reduction at w = 0 computed before the loop: an exact tie in the first iteration, which the
 * replay cannot certify and leaves to the recorded run); `loop` where the head calls it.
 */
export interface DescentSpec {
  form: number;
  body: number;
  test: number;
  rate: number;
  cap: number;
  thr: number;
  n: number;
  loop: number;
  e: Expr;
}

/**
 * Closures and functions as values (src/frontend/closures.ts), written at the end of the head in a loop
 * context of their own (`loop` as JsArraySpec's): form 0 a local `const g = (x) => …` reading the head's
 * variables, called on an element and on a literal (or `const g = c ? (x) => … : (x) => …`, chosen by a test); 1 a nested `function g(v: number[])` with a loop and
 * an early return, called before its declaration (hoisted); 2 a local function assigning a variable of the
 * head (`tot += …`), called in a loop and once more; 3 a local function storing into a captured array;
 * 4 an arrow literal passed to the module's `twice(g, v)`, which calls it (a copy `twice__lambda`), or to
 * `damped(g, v)`, which passes it on inside a closure of its own, or a closure the module's factory
 * `makeBlend(w, xs)` returns; 5 a
 * local right-hand side passed to the module's `euler(rhs, s0, h, n)` (a copy `euler__rhs`), or a
 * top-level function when `v` is odd. Their values flow into a number the head's result adds.
 */
export interface ClosureSpec {
  form: number;
  s: number;
  e: Expr;
  q: number;
  v: number;
  loop: number;
}

/**
 * `t.set(src, offset)` on a fresh typed array of length 4 (src/frontend/arrays.ts), in a loop context of its
 * own (`loop` as JsArraySpec's): the source is a literal (form 0), two elements of a number array in scope
 * held in a variable (1), or a view of the array itself (`t.subarray(0, 2)`, overlapping the stores, 2); the offset is a
 * literal or, inside the loop, its index.
 */
export interface TypedSetSpec {
  form: number;
  f32: boolean;
  s: number;
  e: Expr;
  q: number;
  loop: number;
}

/**
 * A rest element of an object pattern (src/frontend/rest-elements.ts), in a loop context of its own
 * (`loop` as JsArraySpec's): kind 0 from a P (an object in scope or a literal; the rest is a fresh object,
 * so writing its field leaves the source as it was), 1 from a Q literal (the rest's array field is the
 * source's: a write through it writes the source). The rest is written, then read with the source.
 */
export interface ObjRestSpec {
  kind: number;
  s: number;
  e: Expr;
  q: number;
  loop: number;
}

/**
 * Hand-written derivatives (src/frontend/custom-derivatives.ts): the module declares `cdSoftplus` with
 * companion rules `cdSoftplus_jvp`/`cdSoftplus_vjp`, `cdDot` with a `$ad custom-derivative` directive
 * naming its rules, and `cdRank` marked `$ad passive` (piecewise constant: its true derivative is zero
 * almost everywhere, so divided differences agree). The rules are correct. The head calls a custom
 * function (form 0 the softplus, 1 the dot product of two arrays in scope, then sometimes (`w`) writes
 * into one of them: the adjoint must restore what the rule reads) and the passive one, in a loop context
 * of its own (`loop` as JsArraySpec's). Its values flow into a number that the head's result adds.
 */
export interface CustomSpec {
  form: number;
  loop: number;
  e: Expr;
  e2: Expr;
  q: number;
  s: number;
  w: boolean;
}

/** the functions of a CustomSpec and their rules, declared at module level */
const CUSTOM_BODY = [
  'export function cdSoftplus(u: number, t: number): number {',
  '  return t * Math.log1p(Math.exp(u / t));',
  '}',
  '',
  'export function cdSoftplus_jvp(u: number, ud: number, t: number, td: number): [number, number] {',
  '  const z = u / t;',
  '  const s = 1 / (1 + Math.exp(-z));',
  '  const y = t * Math.log1p(Math.exp(z));',
  '  return [y, s * ud + (y / t - s * z) * td];',
  '}',
  '',
  'export function cdSoftplus_vjp(u: number, t: number, yb: number): [number, number] {',
  '  const z = u / t;',
  '  const s = 1 / (1 + Math.exp(-z));',
  '  const y = t * Math.log1p(Math.exp(z));',
  '  return [s * yb, (y / t - s * z) * yb];',
  '}',
  '',
  '// $ad custom-derivative tangent=cdDotTangent adjoint=cdDotAdjoint',
  'export function cdDot(a: number[], b: number[]): number {',
  '  let s = 0;',
  '  for (let i = 0; i < Math.min(a.length, b.length); i++) s += a[i] * b[i];',
  '  return s;',
  '}',
  '',
  'export function cdDotTangent(a: number[], ad: number[], b: number[], bd: number[]): [number, number] {',
  '  let s = 0;',
  '  let sd = 0;',
  '  for (let i = 0; i < Math.min(a.length, b.length); i++) {',
  '    s += a[i] * b[i];',
  '    sd += ad[i] * b[i] + a[i] * bd[i];',
  '  }',
  '  return [s, sd];',
  '}',
  '',
  'export function cdDotAdjoint(a: number[], ab: number[], b: number[], bb: number[], yb: number): void {',
  '  for (let i = 0; i < Math.min(a.length, b.length); i++) {',
  '    ab[i] += b[i] * yb;',
  '    bb[i] += a[i] * yb;',
  '  }',
  '}',
  '',
  '// $ad passive',
  'export function cdRank(a: number[], v: number): number {',
  '  let c = 0;',
  '  for (let i = 0; i < a.length; i++) if (a[i] < v) c++;',
  '  return 0.25 * c;',
  '}',
  '',
];

/**
 * A rest element of an array pattern (src/frontend/rest-elements.ts), rendered at the end of the head in
 * a loop context of its own (`loop` as JsArraySpec's): kind 0 from a number array (one in scope of
 * length ≥ 2, or a literal), 1 from a matrix (rows shared with it: a write through the rest writes the
 * matrix), 2 from a tuple literal (the rest is the shorter tuple). The rest is written, then read.
 */
export interface RestSpec {
  kind: number;
  s: number;
  e: Expr;
  q: number;
  loop: number;
}

/**
 * Typed arrays (src/frontend/typed-arrays.ts), rendered at the end of the head in a loop context of their
 * own (`loop` as JsArraySpec's): form 0 an `Int32Array` permutation filled by a loop and used as
 * indices, 1 an `Int8Array` sign vector (`new Int8Array(n).fill(1)`), 2 an integer copy of an array
 * (`new Int16Array(a)`, `Uint8Array.from(a)`: truncated, passive), 3 a `Float32Array` filled by a
 * loop, 4 a `Float32Array` copy. A Float32Array holds active values only in programs marked `fround`
 * (stored through `Math.fround`, which the store does anyway: divided differences of float32 values are
 * noise, and those programs skip the tangent check), elsewhere values float32 represents exactly.
 */
export interface TypedArraySpec {
  form: number;
  s: number;
  n: number;
  e: Expr;
  q: number;
  loop: number;
}

/**
 * Array methods with callbacks (src/frontend/callbacks.ts), written at the end of the head: form 0
 * `map` (sometimes after `map(Math.tanh)`), 1 `Array.from(a, fn)`, 2 `forEach` writing a variable of the head, 3 `reduce` with an initial
 * value (sometimes after a `map`, fused), 4 `reduce` without one or `reduceRight` (sometimes after a
 * call writing the array, in the same expression), 5 `filter` (its result
 * summed by a reduce), 6 `some`/`every` (sometimes behind `||` or `&&`), 7 `findIndex`/`find`, 8 `flatMap`, 9 a local `const f = (x) =>
 * …` passed to `map`; loop as for JsArraySpec.
 */
export interface CallbackSpec {
  form: number;
  s: number;
  e: Expr;
  q: number;
  v: number;
  loop: number;
}

/**
 * Classes (src/frontend/classes.ts): the module declares `Body` (a field initializer, parameter
 * properties, a method mutating `this`, a getter, a setter, a method returning a new instance, a static
 * factory) and two subclasses (`Damped`: `super(…)` and `super.step`; `Drift`: the implicit constructor),
 * and the head builds instances with `new`, calls each member on them, keeps them in an array (`arr`)
 * and reads them back, in a loop of its own (`loop`: straight-line, counted, while, two
 * loops deep). A third of them call a method on scratch buffers it starts afresh (`Scratchy`), in a
 * sum over calls, and one on a buffer carried from call to call (`Carry`). Its values flow into a
 * number that the head's result adds. Another third call the functions of a namespace object (`kin.mid(…)`).
 */
export interface ClassSpec {
  loop: number;
  arr: boolean;
  e: Expr;
  e2: Expr;
  q: number;
}

/** the class of a ClassSpec, declared at module level */
const CLASS_BODY = [
  // a namespace object of functions (src/frontend/namespaces.ts): a method, an arrow writing into its
  // argument, a function expression calling a member by the object's name, a method calling one through `this`
  'const kin = {',
  '  lerp(a: number, b: number, t: number): number {',
  '    return a + (b - a) * t;',
  '  },',
  '  axpy: (out: number[], a: number, xs: number[]): number[] => {',
  '    for (let i = 0; i < xs.length; i++) out[i] += a * xs[i];',
  '    return out;',
  '  },',
  '  mid: function (xs: number[]): number {',
  '    return kin.lerp(xs[0], xs[xs.length - 1], 0.5);',
  '  },',
  '  smooth(a: number, b: number): number {',
  '    return this.lerp(a, Math.tanh(b), 0.25);',
  '  },',
  // (a member taking a function: a copy of it per function passed)
  '  twice(g: (v: number) => number, v: number): number {',
  '    return g(g(v));',
  '  },',
  '};',
  '',
  'export class Body {',
  '  vel = 0;',
  '  constructor(public pos: number, public k: number) {}',
  '',
  '  step(dt: number): void {',
  '    this.vel = Math.tanh(this.vel - this.k * this.pos * dt);',
  '    this.pos += this.vel * dt;',
  '  }',
  '',
  '  get energy(): number {',
  '    return 0.5 * this.vel * this.vel + 0.5 * this.k * this.pos * this.pos;',
  '  }',
  '',
  '  set speed(v: number) {',
  '    this.vel = Math.sin(v);',
  '  }',
  '',
  // a getter and a setter of one property, updated in place (`b.x += e`, `b.x++`)
  '  get x(): number {',
  '    return this.pos;',
  '  }',
  '',
  '  set x(v: number) {',
  '    this.pos = Math.tanh(v);',
  '  }',
  '',
  '  scaled(s: number): Body {',
  '    return new Body(this.pos * s, this.k);',
  '  }',
  '',
  // a method named like Array's (a call of it is the method's) and one whose arrow callback reads `this`
  '  push(x: number): void {',
  '    this.pos = 0.5 * (this.pos + Math.tanh(x));',
  '  }',
  '',
  '  weigh(xs: readonly number[]): number {',
  '    return xs.reduce((s, x) => s + this.k * Math.tanh(x * this.pos), 0);',
  '  }',
  '',
  // a fluent method: returns the instance itself (its type is `this`)
  '  nudge(d: number): this {',
  '    this.pos += 0.25 * Math.tanh(d);',
  '    return this;',
  '  }',
  '',
  '  static at(x: number): Body {',
  '    return new Body(Math.tanh(x), 0.5);',
  '  }',
  '',
  // overridden below: called only on a `const` made by `new` (its class known), never dispatched
  '  kick(v: number): number {',
  '    return this.pos * Math.tanh(v);',
  '  }',
  '}',
  '',
  // (a destructured parameter and a default computed from another parameter)
  'export class Damped extends Body {',
  '  c: number;',
  '',
  '  constructor(pos: number, k: number, c: number, { lag = 0.5 * c }: { lag?: number } = {}, kick: number = lag * k) {',
  '    super(pos, k);',
  '    this.c = c * (1 - 0.5 * lag);',
  '    this.vel += 0.25 * kick;',
  '  }',
  '',
  '  kick(v: number): number {',
  '    return super.kick(v) * this.c;',
  '  }',
  '',
  '  settle(dt: number): void {',
  '    super.step(dt);',
  '    this.vel *= this.c;',
  '  }',
  '}',
  '',
  'export class Drift extends Body {}',
  '',
  // a helper that only adds into two arrays, given one array for both (as `dot(x, x)`'s backward sweep is)
  'function addBoth(a: number[], b: number[], v: number): void {',
  '  a[0] += v;',
  '  b[1] -= 0.5 * v;',
  '}',
  '',
  // an instance that keeps the array it was given (a polynomial of its coefficients)
  'export class Poly {',
  '  constructor(readonly cs: number[]) {}',
  '',
  '  at(t: number): number {',
  '    let v = 0;',
  '    for (let k = this.cs.length - 1; k >= 0; k--) v = v * t + this.cs[k];',
  '    return v;',
  '  }',
  '',
  '  get coefs(): number[] {',
  '    return this.cs;',
  '  }',
  '',
  // returns the array it was given, or a new one, by the number of coefficients (a layer stack's `predict`)
  '  through(x: number[]): number[] {',
  '    let h = x;',
  '    for (let k = 3; k < this.cs.length; k++) {',
  '      const next: number[] = [];',
  '      for (const v of h) next.push(v * this.cs[k]);',
  '      h = next;',
  '    }',
  '    return h;',
  '  }',
  '}',
  '',
  // an instance's scratch buffers, started afresh by every call before they are read (GMM's `centered`):
  // their adjoint records nothing for callers and hands the contents over (analysis/scratch-fields.ts)
  'export class Scratchy {',
  '  private readonly buf: Float64Array;',
  '  private readonly sq: number[];',
  '',
  '  constructor(readonly ws: number[]) {',
  '    this.buf = new Float64Array(ws.length);',
  '    this.sq = new Array(ws.length).fill(0);',
  '  }',
  '',
  '  score(x: number): number {',
  '    const n = this.ws.length;',
  '    const b = this.buf;',
  '    const q = this.sq;',
  '    for (let j = 0; j < n; j++) {',
  '      b[j] = Math.tanh(this.ws[j] * x + 0.5 * j);',
  '      q[j] = b[j] * b[j];',
  '    }',
  '    for (let c = 0; c < n; c++) {',
  '      for (let r = c + 1; r < n; r++) b[r] += 0.25 * b[c] * q[c];',
  '    }',
  '    for (let j = 0; j < n; j++) q[j] = Math.sin(q[j]) * b[j];',
  '    let s = 0;',
  '    for (let j = 0; j < n; j++) s += b[j] * q[j];',
  '    return Math.tanh(s);',
  '  }',
  '}',
  '',
  // …and a buffer whose values pass from one call to the next (read before written): an ordinary field
  'export class Carry {',
  '  private readonly hist: number[];',
  '  private readonly buf: Float64Array;',
  '',
  '  constructor(n: number) {',
  // (a field filled by a loop through `this` before the next one is given its buffer)
  '    this.hist = [];',
  '    for (let j = 0; j < n; j++) this.hist.push(0.25 * j);',
  '    this.buf = new Float64Array(n);',
  '  }',
  '',
  '  feed(x: number): number {',
  '    const b = this.buf;',
  '    const n = b.length;',
  '    for (let j = 0; j < n; j++) b[j] = 0.5 * b[j] + Math.tanh(x * (j + 1) + this.hist[j]);',
  '    let s = 0;',
  '    for (let j = 0; j < n; j++) s += b[j] * b[j];',
  '    return Math.tanh(s);',
  '  }',
  '}',
  '',
];

/**
 * Expression forms of issue 16 (items 3–4), rendered at the end of the head (renderExprs), in a loop
 * of their own (`loop`: straight-line, counted, while):
 *   fam 0  `++`/`--` inside index expressions and arithmetic (`buf[k++] = e`, `t++ * b + ++t`);
 *   fam 1  assignments inside expressions (`s += (t = e) * t`, `u = t = e`, `(w[0] = e)`, `u * (u += t)`);
 *   fam 2  the comma operator in `for` headers (`i = 0, j = n - 1`, `i++, j--`) and in an expression;
 *   fam 3  assignments in loop conditions (`while ((k *= 2) < 8)`, `do … while (++n < 2)`, `… && ++n < 3`)
 *          and in a branch of `?:`;
 *   fam 4  destructuring assignment: swaps of scalars and of matrix rows, fields of an object, an array's `length`;
 *   fam 5  a helper with destructured parameters and defaults, destructuring declarations with defaults,
 *          defaults of plain parameters (constant or computed from earlier ones; arguments left out,
 *          passed as undefined or maybe undefined);
 *   fam 6  spread in calls (`Math.max(...xs)`, `Math.min(e, ...xs)`, `Math.hypot(...xs)`, `h(...tuple)`).
 * Its values flow into a number that the head's result adds.
 */
export interface ExprsSpec {
  fam: number;
  s: number;
  e: Expr;
  e2: Expr;
  q: number;
  loop: number;
  i: Idx;
}

/**
 * A "focus": one family of forms that random statements reach too rarely to cover every loop strategy
 * (see test/fuzz/coverage.ts), generated on purpose in the loop context it needs:
 *   fam 0–2  a second name (`const T = X`) for a matrix, an array of objects or a tuple, written through
 *            inside a `while` loop and inside a `for` around a `while`;
 *   fam 3–6  a helper returning number[], number[][], P or [number, number], called straight-line, in a
 *            counted loop, in a `while` loop and two loops deep;
 *   fam 7    rows swapped by reference two loops deep (mostly of a matrix, else of an array of objects);
 *   fam 8    a matrix built by pushing rows in a `while` loop;
 *   fam 9–11 a `switch`, a labelled block or a `while` two loops deep;
 *   fam 12   a `while` (or `do`) loop with a `continue`, every third one inside a counted loop;
 *   fam 13   a nullable number assigned in loops (`let best: number | null = null`, `let prev: number[] | null`, `let prev: number |
 *            undefined`): the least value seen, or the gaps between successive ones, straight-line, in a
 *            counted loop, in a `while` and two loops deep.
 * Its values flow into a number `fo` that the head's result adds.
 */
export interface FocusSpec {
  fam: number;
  s: number;
  i: Idx;
  j: Idx;
  e: Expr;
  q: number;
  c: Cond;
  cap: number;
  dw: boolean;
  body: Stmt[];
  cases: Stmt[][];
  ft: number;
  /** the helper of fam 3–6 (its return kind set by the family) */
  helper: HelperSpec;
}

// ------------------------------------------------------------------------------------------------
// Arbitraries
// ------------------------------------------------------------------------------------------------

const sel = fc.nat({ max: 15 });
const small = fc.nat({ max: 3 });

export const LITS = [0.5, 1, 2, 0.25, 1.5, 3, 0.75, -0.5, -1, 0, 0.1, -2];
export const MATH_CONSTS = ['Math.PI', 'Math.E', 'Math.LN2', 'Math.LN10', 'Math.LOG2E', 'Math.LOG10E', 'Math.SQRT2', 'Math.SQRT1_2', 'Number.EPSILON'];

/** binary operators, with the right operand kept in a safe range */
export const BIN: ((a: string, b: string) => string)[] = [
  (a, b) => `(${a} + ${b})`,
  (a, b) => `(${a} - ${b})`,
  (a, b) => `(${a} * ${b})`,
  (a, b) => `(${a} / (1 + ${b} * ${b}))`,
  (a, b) => `(${a} / (2 + Math.sin(${b})))`,
  (a, b) => `(${a} % (1 + ${b} * ${b}))`,
  (a) => `(${a} % 1.5)`,
  (a, b) => `((1 + ${a} * ${a}) ** Math.tanh(${b}))`,
  (a) => `(${a} ** 2)`,
  (a) => `(Math.abs(${a}) ** 1.5)`,
  (a, b) => `(${a} * ${b})`,
  (a, b) => `(${a} + ${b})`,
  (a) => `(${a} / 3)`,
];

/** one-argument intrinsics, every one inside its domain */
export const M1: ((a: string) => string)[] = [
  (a) => `Math.sin(${a})`,
  (a) => `Math.cos(${a})`,
  (a) => `Math.tan(Math.tanh(${a}))`,
  (a) => `Math.asin(Math.tanh(${a}) * 0.9)`,
  (a) => `Math.acos(Math.tanh(${a}) * 0.9)`,
  (a) => `Math.atan(${a})`,
  (a) => `Math.sinh(Math.tanh(${a}))`,
  (a) => `Math.cosh(Math.tanh(${a}))`,
  (a) => `Math.tanh(${a})`,
  (a) => `Math.asinh(${a})`,
  (a) => `Math.acosh(1.5 + ${a} * ${a})`,
  (a) => `Math.atanh(Math.tanh(${a}) * 0.9)`,
  (a) => `Math.exp(Math.tanh(${a}))`,
  (a) => `Math.exp(-(${a} * ${a}))`,
  (a) => `Math.expm1(Math.tanh(${a}))`,
  (a) => `Math.log(1 + ${a} * ${a})`,
  (a) => `Math.log1p(${a} * ${a})`,
  (a) => `Math.log2(1 + ${a} * ${a})`,
  (a) => `Math.log10(0.5 + ${a} * ${a})`,
  (a) => `Math.sqrt(1 + ${a} * ${a})`,
  (a) => `Math.cbrt(0.5 + ${a} * ${a})`,
  (a) => `Math.pow(${a}, 2)`,
  (a) => `Math.pow(${a}, 3)`,
  (a) => `Math.abs(${a})`,
  (a) => `Math.sign(${a})`,
  (a) => `Math.floor(${a})`,
  (a) => `Math.ceil(${a})`,
  (a) => `Math.round(${a})`,
  (a) => `Math.trunc(${a})`,
  (a) => `Math.fround(${a})`, // only in programs with `fround` set: see renderExpr
  (a) => `(((${a} * 4) | 0) * 0.25)`,
  (a) => `Number(${a}) * 0.5`,
];

const FROUND = M1.find((f) => f('A') === 'Math.fround(A)')!;

export const M2: ((a: string, b: string) => string)[] = [
  (a, b) => `Math.atan2(${a}, 0.5 + ${b} * ${b})`,
  (a, b) => `Math.pow(1 + ${a} * ${a}, Math.tanh(${b}))`,
  (a, b) => `Math.hypot(${a}, ${b})`,
  (a, b) => `Math.min(${a}, ${b})`,
  (a, b) => `Math.max(${a}, ${b})`,
  (a, b) => `(Math.sign(${a}) * ${b})`,
  (a, b) => `Math.atan2(Math.tanh(${a}), 1.25 + Math.cos(${b}))`,
  (a, b) => `Math.max(-Infinity, ${a}, ${b})`,
];

export const MN = ['Math.min', 'Math.max', 'Math.hypot'];

const CMP = ['<', '>', '<=', '>=', '<', '>'];

/** squashing functions applied to right-hand sides */
function squash(q: number, e: string, simple: boolean): string {
  switch (q % 4) {
    case 0:
      return `Math.tanh(${e})`;
    case 1:
      return `Math.sin(${e})`;
    case 2:
      return `Math.atan(${e})`;
    default:
      return simple ? `(${e} / (1 + Math.abs(${e})))` : `Math.tanh(${e})`;
  }
}
/** squashing into [-1, 1] */
function squash1(q: number, e: string): string {
  return q % 2 === 0 ? `Math.tanh(${e})` : `Math.sin(${e})`;
}

const idxArbs = new Map<number, fc.Arbitrary<Idx>>();
function idxArb(d: number): fc.Arbitrary<Idx> {
  let a = idxArbs.get(d);
  if (a) return a;
  const base: fc.WeightedArbitrary<Idx>[] = [
    { weight: 2, arbitrary: fc.record({ k: fc.constant('c' as const), v: small }) },
    { weight: 6, arbitrary: fc.record({ k: fc.constant('i' as const), s: sel, off: small, form: small }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('ij' as const), s: sel, t: sel, off: small }) },
  ];
  if (d > 0) base.push({ weight: 1, arbitrary: fc.record({ k: fc.constant('d' as const), e: exprArb(d - 1) }) });
  a = fc.oneof({ withCrossShrink: true }, ...base);
  idxArbs.set(d, a);
  return a;
}

const exprArbs = new Map<number, fc.Arbitrary<Expr>>();
export function exprArb(d: number): fc.Arbitrary<Expr> {
  let a = exprArbs.get(d);
  if (a) return a;
  const leaves: fc.WeightedArbitrary<Expr>[] = [
    { weight: 3, arbitrary: fc.record({ k: fc.constant('lit' as const), v: fc.nat({ max: LITS.length - 1 }) }) },
    { weight: 8, arbitrary: fc.record({ k: fc.constant('var' as const), s: sel }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('int' as const), s: sel }) },
    { weight: 6, arbitrary: fc.record({ k: fc.constant('rd' as const), s: sel, i: idxArb(d > 0 ? 1 : 0) }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('rd2' as const), s: sel, i: idxArb(0), j: idxArb(0) }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('fld' as const), s: sel, f: small }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('mc' as const), c: fc.nat({ max: MATH_CONSTS.length - 1 }) }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('len' as const), s: sel }) },
  ];
  if (d === 0) a = fc.oneof({ withCrossShrink: true }, ...leaves);
  else {
    const sub = exprArb(d - 1);
    a = fc.oneof(
      { withCrossShrink: true },
      ...leaves,
      { weight: 2, arbitrary: fc.record({ k: fc.constant('neg' as const), a: sub }) },
      { weight: 12, arbitrary: fc.record({ k: fc.constant('bin' as const), op: fc.nat({ max: BIN.length - 1 }), a: sub, b: sub }) },
      { weight: 10, arbitrary: fc.record({ k: fc.constant('m1' as const), fn: fc.nat({ max: M1.length - 1 }), a: sub }) },
      { weight: 4, arbitrary: fc.record({ k: fc.constant('m2' as const), fn: fc.nat({ max: M2.length - 1 }), a: sub, b: sub }) },
      { weight: 1, arbitrary: fc.record({ k: fc.constant('mn' as const), fn: fc.nat({ max: MN.length - 1 }), a: sub, b: sub, c: sub }) },
      { weight: 1, arbitrary: fc.record({ k: fc.constant('spread' as const), fn: fc.nat({ max: MN.length - 1 }), s: sel }) },
      { weight: 3, arbitrary: fc.record({ k: fc.constant('tern' as const), c: condArb(d - 1), a: sub, b: sub }) },
      { weight: 3, arbitrary: fc.record({ k: fc.constant('call' as const), s: sel, args: fc.array(sub, { maxLength: 3 }), arrs: fc.array(sel, { maxLength: 3 }) }) },
    );
  }
  exprArbs.set(d, a);
  return a;
}

const condArbs = new Map<number, fc.Arbitrary<Cond>>();
export function condArb(d: number): fc.Arbitrary<Cond> {
  let a = condArbs.get(d);
  if (a) return a;
  const e = exprArb(Math.min(d, 1));
  const base: fc.WeightedArbitrary<Cond>[] = [
    { weight: 8, arbitrary: fc.record({ k: fc.constant('cmp' as const), op: fc.nat({ max: CMP.length - 1 }), a: e, b: e }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('ic' as const), s: sel, m: small }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('fin' as const), a: e }) },
  ];
  if (d > 0) {
    const sub = condArb(d - 1);
    base.push(
      { weight: 1, arbitrary: fc.record({ k: fc.constant('and' as const), a: sub, b: sub }) },
      { weight: 1, arbitrary: fc.record({ k: fc.constant('or' as const), a: sub, b: sub }) },
      { weight: 1, arbitrary: fc.record({ k: fc.constant('not' as const), a: sub }) },
    );
  }
  a = fc.oneof({ withCrossShrink: true }, ...base);
  condArbs.set(d, a);
  return a;
}

const stmtArbs = new Map<number, fc.Arbitrary<Stmt>>();
export function stmtArb(d: number): fc.Arbitrary<Stmt> {
  let a = stmtArbs.get(d);
  if (a) return a;
  const e = exprArb(2);
  const q = fc.nat({ max: 7 });
  const op = fc.nat({ max: 6 });
  const simple: fc.WeightedArbitrary<Stmt>[] = [
    { weight: 6, arbitrary: fc.record({ k: fc.constant('let' as const), e, q, cst: fc.boolean() }) },
    { weight: 8, arbitrary: fc.record({ k: fc.constant('set' as const), s: sel, op, e, q }) },
    { weight: 5, arbitrary: fc.record({ k: fc.constant('aset' as const), s: sel, i: idxArb(1), op, e, q }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('aset2' as const), s: sel, i: idxArb(0), j: idxArb(0), op, e, q }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('alias' as const), s: sel, i: idxArb(0), j: idxArb(0), c: small }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('fset' as const), s: sel, f: small, op, e, q }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('inc' as const), s: sel, dec: fc.boolean() }) },
    { weight: 4, arbitrary: fc.record({ k: fc.constant('jump' as const), j: fc.nat({ max: 3 }), c: condArb(1), t: small, lab: fc.boolean(), e, q }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('from' as const), n: sel, e, q, idx: fc.nat({ max: 3 }).map((x) => x > 0) }) },
    { weight: 3, arbitrary: fc.record({ k: fc.constant('push' as const), n: sel, e, q, how: fc.nat({ max: 2 }) }) },
    { weight: 14, arbitrary: fc.record({ k: fc.constant('state' as const), kind: fc.nat({ max: 4 }), mode: fc.nat({ max: 3 }), loop: fc.nat({ max: 2 }), n: fc.integer({ min: 1, max: 3 }), e, q, s: sel }) },
    { weight: 4, arbitrary: fc.record({ k: fc.constant('twin' as const), s: sel, i: idxArb(0), e, q, kind: fc.nat({ max: 4 }) }) },
    { weight: 4, arbitrary: fc.record({ k: fc.constant('rows' as const), s: sel, i: idxArb(0), j: idxArb(0), mode: fc.nat({ max: 2 }), e, q, loop: fc.nat({ max: 2 }) }) },
    { weight: 3, arbitrary: fc.record({ k: fc.constant('aobj' as const), n: fc.integer({ min: 2, max: 3 }), e, q, push: fc.boolean(), loop: fc.nat({ max: 2 }) }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('qobj' as const), e, f: e, q, rebind: fc.boolean(), loop: fc.nat({ max: 2 }) }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('lu' as const), e: exprArb(1), q, solve: fc.boolean(), helper: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('fill' as const), n: sel, v: fc.nat({ max: LITS.length - 1 }), f64: fc.boolean() }) },
    { weight: 3, arbitrary: fc.record({ k: fc.constant('copy' as const), s: sel, f64: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('mfrom' as const), e, q, loop: fc.nat({ max: 2 }) }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('obj' as const), a: e, b: e, c: e, q }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('destr' as const), s: sel, arr: fc.boolean() }) },
    { weight: 6, arbitrary: fc.record({ k: fc.constant('callv' as const), s: sel, args: fc.array(e, { maxLength: 3 }), arrs: fc.array(sel, { maxLength: 3 }) }) },
  ];
  if (d === 0) a = fc.oneof({ withCrossShrink: true }, ...simple);
  else {
    const block = fc.array(stmtArb(d - 1), { maxLength: 4 });
    a = fc.oneof(
      { withCrossShrink: true },
      ...simple,
      { weight: 5, arbitrary: fc.record({ k: fc.constant('if' as const), c: condArb(1), t: block, e: fc.array(stmtArb(d - 1), { maxLength: 2 }) }) },
      { weight: 6, arbitrary: fc.record({ k: fc.constant('for' as const), b: sel, form: fc.nat({ max: 5 }), body: block }) },
      { weight: 1, arbitrary: fc.record({ k: fc.constant('forof' as const), s: sel, body: block }) },
      { weight: 4, arbitrary: fc.record({ k: fc.constant('while' as const), cap: fc.integer({ min: 1, max: 4 }), c: condArb(1), body: block, dw: fc.boolean() }) },
      { weight: 3, arbitrary: fc.record({ k: fc.constant('block' as const), body: block, c: condArb(1) }) },
      { weight: 2, arbitrary: fc.record({ k: fc.constant('red' as const), b: sel, b2: sel, e1: e, e2: e, e3: e, e4: e, q }) },
      { weight: 3, arbitrary: fc.record({ k: fc.constant('sw' as const), s: sel, e, cases: fc.array(fc.array(stmtArb(d - 1), { maxLength: 2 }), { minLength: 1, maxLength: 3 }), ft: small }) },
    );
  }
  stmtArbs.set(d, a);
  return a;
}

const pkindArb: fc.Arbitrary<{ kind: PKind; len: number }> = fc.record({
  kind: fc.oneof({ withCrossShrink: true }, { weight: 4, arbitrary: fc.constant('num' as PKind) }, { weight: 3, arbitrary: fc.constant('vec' as PKind) }, { weight: 1, arbitrary: fc.constant('rovec' as PKind) }, { weight: 1, arbitrary: fc.constant('mat' as PKind) }, { weight: 1, arbitrary: fc.constant('obj' as PKind) }),
  len: fc.integer({ min: 1, max: 4 }),
});

export const helperArb: fc.Arbitrary<HelperSpec> = fc.record({
  params: fc.array(pkindArb, { minLength: 1, maxLength: 3 }),
  ret: fc.oneof(
    { weight: 5, arbitrary: fc.constant(0) },
    { weight: 2, arbitrary: fc.constant(1) },
    { weight: 2, arbitrary: fc.constant(2) },
    { weight: 2, arbitrary: fc.constant(3) },
    { weight: 2, arbitrary: fc.constant(4) },
    { weight: 2, arbitrary: fc.constant(5) },
  ),
  retLen: fc.integer({ min: 1, max: 4 }),
  rec: fc.nat({ max: 3 }).map((x) => x === 3),
  dflt: small,
  arrow: fc.nat({ max: 3 }).map((x) => x === 3),
  body: fc.array(stmtArb(2), { maxLength: 4 }),
  base: exprArb(2),
  retE: exprArb(2),
  q: fc.nat({ max: 7 }),
});

export const programArb: fc.Arbitrary<ProgSpec> = fc.record({
  hp: fc.record({ x: fc.boolean(), y: fc.boolean(), a: fc.boolean(), b: fc.boolean(), m: fc.boolean(), p: fc.boolean(), c: fc.nat({ max: 4 }).map((k) => k === 4) }),
  la: fc.integer({ min: 1, max: 4 }),
  lb: fc.integer({ min: 1, max: 4 }),
  rows: fc.integer({ min: 1, max: 3 }),
  cols: fc.integer({ min: 1, max: 3 }),
  ret: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) }),
  rl: fc.integer({ min: 1, max: 4 }),
  helpers: fc.array(helperArb, { maxLength: 3 }),
  body: fc.array(stmtArb(3), { maxLength: 6 }),
  retE: exprArb(3),
  mix: fc.nat({ max: 4 }).map((x) => x > 0),
  gbl: fc.boolean(),
  fround: fc.nat({ max: 9 }).map((x) => x === 9),
  wrtDrop: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat({ max: 63 }) }),
  seed: fc.nat({ max: 1_000_000 }),
  // (last: fields drawn before it, hence every program without a focus, do not depend on it)
  focus: fc.option(
    fc.record({
      fam: fc.nat({ max: 13 }),
      s: sel,
      i: idxArb(0),
      j: idxArb(0),
      e: exprArb(2),
      q: fc.nat({ max: 7 }),
      c: condArb(1),
      cap: fc.integer({ min: 1, max: 4 }),
      dw: fc.boolean(),
      body: fc.array(stmtArb(0), { maxLength: 3 }),
      cases: fc.array(fc.array(stmtArb(0), { maxLength: 2 }), { minLength: 1, maxLength: 3 }),
      ft: small,
      helper: helperArb,
    }),
    { nil: null, freq: 2 },
  ),
  // (drawn after the focus: programs without these forms are the ones drawn before they existed)
  exprs: fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.record({ fam: fc.nat({ max: 6 }), s: sel, e: exprArb(2), e2: exprArb(1), q: fc.nat({ max: 7 }), loop: fc.nat({ max: 2 }), i: idxArb(0) }) },
  ),
  // (last: every field before it draws as it did before these forms existed)
  jsArrays: fc.array(
    fc.record({ form: fc.nat({ max: 14 }).map((f) => [0, 1, 2, 3, 4, 5, 6, 7, 8, 3, 9, 8, 5, 10, 11][f]), s: sel, t: sel, e: exprArb(2), q: fc.nat({ max: 7 }), n: sel, v: sel, loop: fc.nat({ max: 3 }) }),
    { maxLength: 3 },
  ),
  // (last: every field before it draws as it did before these forms existed)
  callbacks: fc.array(fc.record({ form: fc.nat({ max: 9 }), s: sel, e: exprArb(2), q: fc.nat({ max: 7 }), v: sel, loop: fc.nat({ max: 3 }) }), { maxLength: 2 }),
  // (after the callbacks: every field before it draws as it did before typed arrays existed)
  typedArrays: fc.array(fc.record({ form: fc.nat({ max: 4 }), s: sel, n: sel, e: exprArb(2), q: fc.nat({ max: 7 }), loop: fc.nat({ max: 3 }) }), { maxLength: 2 }),
  // (after the typed arrays: every field before it draws as it did before rest elements existed)
  rests: fc.array(fc.record({ kind: fc.nat({ max: 2 }), s: sel, e: exprArb(2), q: fc.nat({ max: 7 }), loop: fc.nat({ max: 3 }) }), { maxLength: 2 }),
  // (last: every field before it draws as it did before classes existed)
  classes: fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.record({ loop: fc.nat({ max: 3 }), arr: fc.boolean(), e: exprArb(2), e2: exprArb(1), q: fc.nat({ max: 7 }) }) },
  ),
  // (last: every field before it draws as it did before object rests existed)
  objRests: fc.array(fc.record({ kind: fc.nat({ max: 1 }), s: sel, e: exprArb(2), q: fc.nat({ max: 7 }), loop: fc.nat({ max: 3 }) }), { maxLength: 1 }),
  // (last: every field before it draws as it did before typed arrays' set existed)
  typedSets: fc.array(fc.record({ form: fc.nat({ max: 2 }), f32: fc.boolean(), s: sel, e: exprArb(2), q: fc.nat({ max: 7 }), loop: fc.nat({ max: 3 }) }), { maxLength: 1 }),
  // (last: every field before it draws as it did before custom derivatives existed)
  customs: fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.record({ form: fc.nat({ max: 1 }), loop: fc.nat({ max: 3 }), e: exprArb(2), e2: exprArb(1), q: fc.nat({ max: 7 }), s: sel, w: fc.boolean() }) },
  ),
  // (last: every field before it draws as it did before closures existed)
  closures: fc.array(fc.record({ form: fc.nat({ max: 5 }), s: sel, e: exprArb(2), q: fc.nat({ max: 7 }), v: sel, loop: fc.nat({ max: 3 }) }), { maxLength: 2 }),
  // (last: every field before it draws as it did before rest parameters existed) JsArraySpec forms 12 to 22
  jsCalls: fc.array(
    fc.record({ form: fc.nat({ max: 10 }).map((f) => 12 + f), s: sel, t: sel, e: exprArb(2), q: fc.nat({ max: 7 }), n: sel, v: sel, loop: fc.nat({ max: 3 }) }),
    { maxLength: 3 },
  ),
  // (last: every field before it draws as it did before block heads existed)
  blocks: fc.oneof(
    { weight: 5, arbitrary: fc.constant(null) },
    {
      weight: 1,
      arbitrary: fc.record({
        items: fc.integer({ min: 1, max: 4 }),
        ncams: fc.integer({ min: 1, max: 3 }),
        ccols: fc.integer({ min: 2, max: 4 }),
        npts: fc.integer({ min: 1, max: 3 }),
        pcols: fc.integer({ min: 2, max: 3 }),
        per: fc.integer({ min: 1, max: 3 }),
        out: fc.nat({ max: 3 }),
        idx: fc.nat({ max: 2 }),
        bind: fc.boolean(),
        helper: fc.boolean(),
        he: fc.array(exprArb(1), { minLength: 4, maxLength: 4 }),
        body: fc.array(exprArb(2), { minLength: 1, maxLength: 3 }),
        outs: fc.array(exprArb(2), { minLength: 3, maxLength: 3 }),
        second: exprArb(1),
        branch: fc.option(fc.record({ c: condArb(1), a: exprArb(1), b: exprArb(1), out: fc.boolean() }), { nil: null, freq: 2 }),
        carry: fc.nat({ max: 5 }),
        wrtOut: fc.nat({ max: 7 }),
        drop: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat({ max: 2 }) }),
        q: fc.nat({ max: 7 }),
      }),
    },
  ),
  // (last: every field before it draws as it did before the descent helper existed)
  descent: fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    {
      weight: 1,
      arbitrary: fc.record({
        form: fc.nat({ max: 3 }),
        body: fc.nat({ max: 3 }),
        test: fc.nat({ max: 4 }),
        rate: fc.nat({ max: 3 }),
        cap: fc.integer({ min: 1, max: 40 }),
        thr: fc.nat({ max: 3 }),
        n: fc.integer({ min: 1, max: 6 }),
        loop: fc.nat({ max: 2 }),
        e: exprArb(1),
      }),
    },
  ),
  // (last: every field before it draws as it did before these spellings existed)
  tsForms: fc.oneof(
    { weight: 3, arbitrary: fc.constant<TsFormSpec[]>([]) },
    { weight: 1, arbitrary: fc.array(fc.record({ form: fc.nat({ max: 7 }), s: sel, e: exprArb(2), q: fc.nat({ max: 7 }), loop: fc.nat({ max: 3 }) }), { minLength: 1, maxLength: 2 }) },
  ),
});

// ------------------------------------------------------------------------------------------------
// Rendering
// ------------------------------------------------------------------------------------------------

interface ArrVar {
  name: string;
  len: number;
  f64: boolean;
  ro: boolean;
  /** a row of a matrix in scope (aliases it), or an object's array field: never passed to a call */
  row?: boolean;
  /** a tuple `[number, number]`: never passed to a call, copied or spread */
  tup?: boolean;
}
interface MatVar {
  name: string;
  rows: number;
  cols: number;
  /** a helper's parameter: its caller's matrix */
  param?: boolean;
}
interface IntVar {
  name: string;
  /** values lie in [0, U) */
  U: number;
}
interface Target {
  label: string;
  used: boolean;
  kind: 'loop' | 'switch' | 'block';
}
interface HelperSig {
  name: string;
  params: { kind: PKind; len: number; name: string }[];
  ret: number;
  retLen: number;
  rec: boolean;
  dflt: number;
  /** returns `number | null` or `number[] | null` (null past a threshold): called by the head's prologue, then tested */
  nullable?: boolean;
  /** a nullable number helper's `number | undefined`, given by a bare `return;` */
  undef?: boolean;
  /** where the prologue calls a `number[] | null` helper: straight-line, a counted loop, a `while`, nested loops */
  nullLoop?: number;
}

const FIELDS = ['u', 'v', 'w'];
const MAX_LOOP_DEPTH = 2;

class Ctx {
  nums: { name: string; w: boolean }[] = [];
  arrs: ArrVar[] = [];
  mats: MatVar[] = [];
  objs: string[] = [];
  /** arrays of objects P[] */
  aobjs: { name: string; len: number }[] = [];
  /** what a name may alias (`const b = a`, `s = a`, `ps[0]`): no two names of one base go to one call */
  base = new Map<string, string>();
  ints: IntVar[] = [];
  targets: Target[] = [];
  loopDepth = 0;
  fround = false;
  /** rendering a helper (its array parameters are its caller's objects) */
  helper = false;
  lines: string[] = [];
  ind = 1;
  counter = 0;
  /** calls rendered in this function body (limits the size of the call tree) */
  calls = 0;
  /** nullable values in scope (src/frontend/nullable.ts): the head's optional `y?: number` and the
   * results of nullable helpers, read through `??`, `typeof` and `=== null` / `=== undefined` only */
  opts: { name: string; none: 'null' | 'undefined' }[] = [];
  /** a closure form passes functions to the module's `twice` and `euler` (declared then) */
  needsClosureHelpers = false;
  needsRestHelpers = false;
  /** whether REGROW_HELPER is called (a qobj's push whose argument rebinds the field pushed onto) */
  needsRegrow = false;
  needsFlagHelpers = false;
  needsExchange = false;
  needsTupleHelpers = false;
  /** whether ROW_PICK_HELPER is called (callback form 1: a helper that may return its argument's row) */
  needsRowPick = false;
  needsRebindHelpers = false;
  /** whether TS_FORM_BODY's aliases and helpers are used (TsFormSpec forms 0 and 1) */
  needsTsForms = false;
  constructor(
    /** what early returns look like: 0 `return <number>`, 1 none (arrays, objects), 2 `return;` */
    readonly ret: number,
    /** the helpers this function may call (those declared before it) */
    readonly callable: HelperSig[],
  ) {}
  baseOf(name: string): string {
    return this.base.get(name) ?? name;
  }
  fresh(p: string): string {
    return `${p}${this.counter++}`;
  }
  emit(...lines: string[]): void {
    for (const s of lines) this.lines.push('  '.repeat(this.ind) + s);
  }
  scoped(f: () => void): void {
    const n = [this.nums.length, this.arrs.length, this.mats.length, this.objs.length, this.ints.length, this.aobjs.length];
    const opts = this.opts.length;
    f();
    this.opts.length = opts;
    this.nums.length = n[0];
    this.arrs.length = n[1];
    this.mats.length = n[2];
    this.objs.length = n[3];
    this.aobjs.length = n[5];
    this.ints.length = n[4];
  }
  block(f: () => void): void {
    this.ind++;
    this.scoped(f);
    this.ind--;
  }
}

const pick = <T>(xs: T[], s: number): T | undefined => (xs.length ? xs[s % xs.length] : undefined);
const lit = (v: number): string => (v < 0 ? `(${v})` : `${v}`);

function renderIdx(c: Ctx, ix: Idx, len: number, lenExpr: string): string {
  switch (ix.k) {
    case 'c':
      return `${ix.v % len}`;
    case 'i': {
      const iv = pick(c.ints, ix.s);
      if (!iv) return `${ix.off % len}`;
      const n = ix.form === 2 ? lenExpr : `${len}`;
      if (iv.U <= len && ix.off % len === 0 && ix.form !== 2) return ix.form === 1 ? `${len - 1} - ${iv.name}` : iv.name;
      return `(${iv.name} + ${ix.off % len}) % ${n}`;
    }
    case 'ij': {
      const i = pick(c.ints, ix.s);
      const j = pick(c.ints, ix.t);
      if (!i || !j) return `${ix.off % len}`;
      return `(${i.name} + 2 * ${j.name} + ${ix.off}) % ${len}`;
    }
    case 'd':
      return `((Math.abs(Math.tanh(${renderExpr(c, ix.e)})) * ${len - 0.5}) | 0)`;
  }
}

/** arrays writable in scope */
const writable = (c: Ctx) => c.arrs.filter((a) => !a.ro);

function renderExpr(c: Ctx, e: Expr): string {
  switch (e.k) {
    case 'lit':
      return lit(LITS[e.v]);
    case 'var': {
      const v = pick(c.nums, e.s);
      if (!v) return lit(LITS[e.s % LITS.length]);
      // JavaScript's short circuits on numbers, from the same draw (sel's top values): `v || 0.5`,
      // `v && w`, and on the head's optional parameter `y ?? v`, `typeof y === 'number' ? y : v`,
      // `Array.isArray(y) ? v : …`
      const w = pick(c.nums, e.s + 1)!;
      if (e.s === 13) return `(${v.name} || ${lit(LITS[(e.s + c.nums.length) % LITS.length])})`;
      // (`&&` tests its left operand and then yields it: a variable or a field, not an element such as
      // the blocks' `h[0]`, which the front end refuses with a hint)
      if (e.s === 14 && !v.name.includes('[')) return `(${v.name} && ${w.name})`;
      const o = pick(c.opts, e.s + c.nums.length);
      if (e.s === 15 && o) return `(${o.name} ?? ${v.name})`;
      if (e.s === 12 && o) return `(typeof ${o.name} === 'number' ? ${o.name} : ${v.name})`;
      // down-levelled code writes undefined as `void 0`
      if (e.s === 11 && o) return `(${o.name} === ${o.none === 'undefined' && c.nums.length % 2 ? 'void 0' : o.none} ? ${v.name} : ${o.name})`;
      if (e.s === 10 && o)
        return c.nums.length % 2 ? `(typeof ${o.name} !== 'number' ? ${v.name} : ${o.name})` : `(Array.isArray(${o.name}) ? ${v.name} : (${o.name} ?? ${v.name}))`;
      const ob = pick(c.objs, e.s);
      if (e.s === 9 && ob && c.opts.length) return `('${FIELDS[c.nums.length % 3]}' in ${ob} ? ${ob}.${FIELDS[c.nums.length % 3]} : ${v.name})`;
      return v.name;
    }
    case 'int': {
      const v = pick(c.ints, e.s);
      return v ? `(${v.name} * 0.5)` : '0.5';
    }
    case 'rd': {
      const a = pick(c.arrs, e.s);
      if (!a) return renderExpr(c, { k: 'var', s: e.s });
      return `${a.name}[${renderIdx(c, e.i, a.len, `${a.name}.length`)}]`;
    }
    case 'rd2': {
      const m = pick(c.mats, e.s);
      if (!m) return renderExpr(c, { k: 'rd', s: e.s, i: e.i });
      return `${m.name}[${renderIdx(c, e.i, m.rows, `${m.name}.length`)}][${renderIdx(c, e.j, m.cols, `${m.name}[0].length`)}]`;
    }
    case 'fld': {
      const o = pick(c.objs, e.s);
      if (!o) return renderExpr(c, { k: 'var', s: e.s });
      return `${o}.${FIELDS[e.f % 3]}`;
    }
    case 'mc':
      return MATH_CONSTS[e.c % MATH_CONSTS.length];
    case 'len': {
      const a = pick(c.arrs, e.s);
      return a ? `(${a.name}.length * 0.25)` : '0.25';
    }
    case 'neg':
      return `(-${renderExpr(c, e.a)})`;
    case 'bin':
      return BIN[e.op % BIN.length](renderExpr(c, e.a), renderExpr(c, e.b));
    case 'm1': {
      const fn = M1[e.fn % M1.length];
      // fround rounds to float32: divided differences of it are noise at any usable step, so programs
      // with it skip the tangent check (test/fuzz/checks.ts); it appears only in programs marked `fround`
      if (fn === FROUND && !c.fround) return `Math.cos(${renderExpr(c, e.a)})`;
      return fn(renderExpr(c, e.a));
    }
    case 'm2':
      return M2[e.fn % M2.length](renderExpr(c, e.a), renderExpr(c, e.b));
    case 'mn':
      return `${MN[e.fn % MN.length]}(${renderExpr(c, e.a)}, ${renderExpr(c, e.b)}, ${renderExpr(c, e.c)})`;
    case 'spread': {
      const a = pick(c.arrs.filter((x) => !x.f64 && !x.tup), e.s);
      return a ? `${MN[e.fn % MN.length]}(...${a.name})` : renderExpr(c, { k: 'var', s: e.s });
    }
    case 'tern':
      return `(${renderCond(c, e.c)} ? ${renderExpr(c, e.a)} : ${renderExpr(c, e.b)})`;
    case 'call': {
      const fns = c.callable.filter((h) => h.ret === 0 && !h.nullable);
      const h = pick(fns, e.s);
      if (!h || c.calls >= 6) return e.args.length ? renderExpr(c, e.args[0]) : lit(LITS[e.s % LITS.length]);
      c.calls++;
      return `${h.name}(${callArgs(c, h, e.args, e.arrs).join(', ')})`;
    }
  }
}

/** Arguments for a call of h: numbers from `args`, arrays chosen in scope (never the same one twice). */
function callArgs(c: Ctx, h: HelperSig, args: Expr[], arrs: number[]): string[] {
  const used = new Set<string>();
  let ni = 0, ai = 0;
  const out: string[] = [];
  for (const p of h.params) {
    const s = arrs[ai++ % Math.max(1, arrs.length)] ?? 0;
    switch (p.kind) {
      case 'num': {
        const a = args[ni++];
        out.push(a ? renderExpr(c, a) : lit(LITS[(ni * 3) % LITS.length]));
        break;
      }
      case 'vec':
      case 'rovec': {
        const cands = c.arrs.filter((a) => a.len === p.len && !a.f64 && !a.row && !a.tup && (p.kind === 'rovec' || !a.ro) && !used.has(c.baseOf(a.name)));
        const a = arrs.length ? pick(cands, s) : undefined;
        // a copy made in the call (`g(x.slice())`): a fresh array, whatever the helper writes into it
        const copied = arrs.length && s % 5 === 4 ? pick(c.arrs.filter((x) => x.len === p.len && !x.f64 && !x.tup), s >> 3) : undefined;
        // a row read from a matrix where it stands (`h(m[0], g(m))`: JavaScript takes the row before a later argument's call runs)
        const rowOf = p.kind === 'rovec' && arrs.length && s % 3 === 2 ? pick(c.mats.filter((x) => x.cols === p.len && !used.has(c.baseOf(x.name))), s >> 2) : undefined;
        if (rowOf) {
          used.add(c.baseOf(rowOf.name));
          out.push(`${rowOf.name}[${(s >> 4) % rowOf.rows}]`);
        }
        else if (copied) out.push(`${copied.name}.slice()`);
        else if (a) {
          used.add(c.baseOf(a.name));
          out.push(a.name);
        } else out.push(`[${Array.from({ length: p.len }, (_, k) => (args[k] ? renderExpr(c, args[k]) : lit(LITS[k % LITS.length]))).join(', ')}]`);
        break;
      }
      case 'mat': {
        const m = pick(c.mats.filter((x) => x.rows === 2 && x.cols === 2 && !used.has(c.baseOf(x.name))), s);
        if (m && arrs.length) {
          used.add(c.baseOf(m.name));
          out.push(m.name);
        } else out.push(`[[${lit(0.5)}, ${args[0] ? renderExpr(c, args[0]) : '1'}], [${lit(-1)}, 2]]`);
        break;
      }
      case 'obj': {
        const o = pick(c.objs.filter((x) => !used.has(c.baseOf(x))), s);
        if (o && arrs.length) {
          used.add(c.baseOf(o));
          out.push(o);
        } else out.push(`{ u: ${args[0] ? renderExpr(c, args[0]) : '0.5'}, v: 1, w: ${lit(-0.5)} }`);
        break;
      }
    }
  }
  if (h.rec) {
    const d = (arrs[0] ?? 0) % 4;
    if (!(h.dflt > 0 && d === 0)) out.push(`${d}`);
  }
  return out;
}

/**
 * The result of a helper returning `number[] | null` (src/frontend/nullable-locals.ts), named, then read
 * where a test says it holds an array: an `if`, a choice by `=== null`, or by its truthiness.
 */
function bindNullableArray(c: Ctx, call: string, len: number, sel: number): void {
  const m = c.fresh('hit');
  const v = c.fresh('s');
  c.emit(`const ${m} = ${call};`);
  if (sel % 3 === 0) c.emit(`let ${v} = 0.25;`, `if (${m} !== null) ${v} = ${m}[0] * ${m}[${len - 1}];`);
  else if (sel % 3 === 1) c.emit(`const ${v} = ${m} === null ? 0.5 : Math.tanh(${m}[0]) + ${m}[${len - 1}];`);
  else c.emit(`const ${v} = ${m} ? ${m}[${len - 1}] : 0.75;`);
  c.nums.push({ name: v, w: sel % 3 === 0 });
}

/** a number, nullable value or object whose truthiness a test reads: `y`, `q3`, `v0` (null: none in scope).
 * No object under `||`: where `o || …` is false TypeScript narrows `o` to `never`, and a read of it there would not type-check. */
function truthOperand(c: Ctx, s: number, objects: boolean): string | null {
  const o = pick(c.opts, s);
  if (s % 3 === 0 && o) return o.name;
  const ob = objects ? pick(c.objs, s) : undefined;
  if (s % 3 === 1 && ob) return ob;
  return pick(c.nums, s)?.name ?? null;
}

function renderCond(c: Ctx, k: Cond): string {
  switch (k.k) {
    case 'cmp': {
      const a = renderExpr(c, k.a), b = renderExpr(c, k.b), op = CMP[k.op % CMP.length];
      // TypeScript parses `a < (… > (…) …)` as a call with type arguments: say `!(a >= b)` instead
      if (op === '<' && b.includes('>')) return `!(${a} >= ${b})`;
      return `${a} ${op} ${b}`;
    }
    case 'and':
    case 'or': {
      // about half test a value by its truthiness instead of their first comparison (drawn as before)
      const op = k.k === 'and' ? '&&' : '||';
      // an object only on the right of &&: on the left, the else branch would narrow it to never (tsc refuses)
      const truth = (x: Cond, odd: number) => (x.k === 'cmp' && x.op % 2 === odd ? truthOperand(c, x.op + (x.a.k === 'var' ? x.a.s : 1), op === '&&' && odd === 1) : null);
      return `(${truth(k.a, 0) ?? renderCond(c, k.a)} ${op} ${truth(k.b, 1) ?? renderCond(c, k.b)})`;
    }
    case 'not':
      return `!(${renderCond(c, k.a)})`;
    case 'ic': {
      const i = pick(c.ints, k.s);
      if (!i) return `${renderExpr(c, { k: 'var', s: k.s })} < ${lit(LITS[k.m])}`;
      if (k.m === 3) {
        const j = pick(c.ints, k.s + 1)!;
        return `${i.name} < ${j.name === i.name ? '2' : j.name}`;
      }
      return `${i.name} % ${k.m + 2} === 0`;
    }
    case 'fin':
      return k.a.k === 'lit' ? `!isNaN(${renderExpr(c, k.a)})` : `isFinite(${renderExpr(c, k.a)})`;
  }
}

/** `target op= rhs`, bounded: right-hand sides are squashed, products and quotients contract */
function assign(c: Ctx, target: string, op: number, e: Expr, q: number): void {
  const simple = e.k === 'var' || e.k === 'lit' || e.k === 'rd' || e.k === 'fld';
  const rhs = renderExpr(c, e);
  switch (op % 7) {
    case 0:
      return c.emit(`${target} = ${squash(q, rhs, simple)};`);
    case 1:
      return c.emit(`${target} += ${squash(q, rhs, simple)};`);
    case 2:
      return c.emit(`${target} -= ${squash(q, rhs, simple)};`);
    case 3:
      return c.emit(`${target} *= ${squash1(q, rhs)};`);
    case 4:
      return c.emit(`${target} /= 1 + Math.abs(${squash1(q, rhs)});`);
    case 5:
      c.emit(`${target} = ${squash1(q, rhs)};`);
      return c.emit(`${target} **= 2;`);
    default:
      return c.emit(`${target} %= 1.5 + ${squash1(q, rhs)};`);
  }
}

function loopBounds(c: Ctx, fractional = false): { text: string; n: number; frac?: boolean }[] {
  const out: { text: string; n: number; frac?: boolean }[] = [2, 3, 4].map((n) => ({ text: `${n}`, n }));
  // (an array in scope written as a literal is parenthesized: `j < [a > b ? …].length` would read as type arguments)
  for (const a of c.arrs) out.push({ text: `${/^[\w$.[\]]+$/.test(a.name) ? a.name : `(${a.name})`}.length`, n: a.len });
  for (const m of c.mats) out.push({ text: `${m.name}.length`, n: m.rows }, { text: `${m.name}[0].length`, n: m.cols });
  // bounds that need not be integers (`k < N / 2` with N odd, `i < T / dt`): `n` is the trip count's ceiling
  if (!fractional) return out;
  out.push({ text: '2.5', n: 3, frac: true });
  const a = c.arrs.find((x) => /^[\w$.[\]]+$/.test(x.name));
  if (a) out.push({ text: `${a.name}.length / 2`, n: Math.ceil(a.len / 2), frac: true });
  const x = c.nums[0];
  if (x) out.push({ text: `(2 + Math.tanh(${x.name}))`, n: 3, frac: true });
  return out;
}

function lenChoice(c: Ctx, s: number): { text: string; n: number } {
  const out = [1, 2, 3, 4].map((n) => ({ text: `${n}`, n }));
  // (an array in scope written as a literal is parenthesized: `j < [a > b ? …].length` would read as type arguments)
  for (const a of c.arrs) out.push({ text: `${/^[\w$.[\]]+$/.test(a.name) ? a.name : `(${a.name})`}.length`, n: a.len });
  return out[s % out.length];
}

function renderLoop(c: Ctx, head: (label: string) => string, body: (real: boolean) => void, tail?: () => string, deep = false): void {
  // a loop past the nesting limit renders its body once, without the loop (iteration counts stay small);
  // `deep`: a short loop of simple statements, allowed one level deeper
  if (c.loopDepth >= MAX_LOOP_DEPTH + (deep ? 1 : 0)) {
    c.scoped(() => body(false));
    return;
  }
  const label = c.fresh('L');
  const t: Target = { label, used: false, kind: 'loop' };
  const start = c.lines.length;
  c.emit('');
  c.targets.push(t);
  c.loopDepth++;
  c.block(() => body(true));
  c.loopDepth--;
  c.targets.pop();
  const h = head(label);
  c.lines[start] = '  '.repeat(c.ind) + (t.used ? `${label}: ` : '') + h;
  c.emit(tail ? tail() : '}');
}

function renderStmts(c: Ctx, ss: Stmt[]): void {
  for (const s of ss) renderStmt(c, s);
}

function renderStmt(c: Ctx, s: Stmt): void {
  switch (s.k) {
    case 'let': {
      if (!s.cst && s.q === 6) {
        const m = c.counter;
        return renderVar(c, { mode: m, b: 1 + (m % 4), c: { k: 'cmp', op: m, a: s.e, b: { k: 'lit', v: 3 } }, e: s.e, f: { k: 'neg', a: s.e }, q: s.q });
      }
      const simple = s.e.k === 'var' || s.e.k === 'lit' || s.e.k === 'rd';
      const name = c.fresh('s');
      c.emit(`${s.cst ? 'const' : 'let'} ${name} = ${squash(s.q, renderExpr(c, s.e), simple)};`);
      c.nums.push({ name, w: !s.cst });
      return;
    }
    case 'set': {
      const v = pick(c.nums.filter((x) => x.w), s.s);
      if (!v) return renderStmt(c, { k: 'let', e: s.e, q: s.q, cst: false });
      return assign(c, v.name, s.op, s.e, s.q);
    }
    case 'inc': {
      const v = pick(c.nums.filter((x) => x.w), s.s);
      if (v) c.emit(`${v.name}${s.dec ? '--' : '++'};`);
      return;
    }
    case 'aset': {
      const a = pick(writable(c), s.s);
      if (!a) return renderStmt(c, { k: 'set', s: s.s, op: s.op, e: s.e, q: s.q });
      return assign(c, `${a.name}[${renderIdx(c, s.i, a.len, `${a.name}.length`)}]`, s.op, s.e, s.q);
    }
    case 'aset2': {
      const m = pick(c.mats, s.s);
      if (!m) return renderStmt(c, { k: 'aset', s: s.s, i: s.i, op: s.op, e: s.e, q: s.q });
      return assign(c, `${m.name}[${renderIdx(c, s.i, m.rows, `${m.name}.length`)}][${renderIdx(c, s.j, m.cols, `${m.name}[0].length`)}]`, s.op, s.e, s.q);
    }
    case 'alias': {
      const a = pick(writable(c), s.s);
      if (!a) return;
      const k = [2, 0.5, -1, 1][s.c % 4];
      c.emit(`${a.name}[${renderIdx(c, s.i, a.len, `${a.name}.length`)}] = ${lit(k)} * ${a.name}[${renderIdx(c, s.j, a.len, `${a.name}.length`)}];`);
      return;
    }
    case 'fset': {
      const o = pick(c.objs, s.s);
      if (!o) return renderStmt(c, { k: 'set', s: s.s, op: s.op, e: s.e, q: s.q });
      return assign(c, `${o}.${FIELDS[s.f % 3]}`, s.op, s.e, s.q);
    }
    case 'if': {
      c.emit(`if (${renderCond(c, s.c)}) {`);
      c.block(() => renderStmts(c, s.t));
      if (s.e.length) {
        c.emit('} else {');
        c.block(() => renderStmts(c, s.e));
      }
      c.emit('}');
      return;
    }
    case 'red': {
      // let acc = 0; for (i…) { const t = …; let u = …; for (j…) for (j2…) u += …; acc += …; }
      if (c.loopDepth + 2 > MAX_LOOP_DEPTH) return;
      const acc = c.fresh('acc');
      // every other one: GMM's shape, scratch arrays filled per component and a triangle over them
      const scratch = s.b2 % 2 === 0 ? { sa: c.fresh('sa'), sb: c.fresh('sb') } : null;
      if (scratch) c.emit(`const ${scratch.sa} = new Float64Array(3);`, `const ${scratch.sb} = new Float64Array(3);`);
      c.emit(`let ${acc} = 0;`);
      const b = loopBounds(c)[s.b % loopBounds(c).length];
      const i = c.fresh('i');
      renderLoop(
        c,
        () => `for (let ${i} = 0; ${i} < ${b.text}; ${i}++) {`,
        () => {
          c.ints.push({ name: i, U: b.n });
          const t = c.fresh('t');
          c.emit(`const ${t} = ${squash(s.q, renderExpr(c, s.e1), false)};`);
          c.nums.push({ name: t, w: false });
          const u = c.fresh('u');
          c.emit(`let ${u} = ${renderExpr(c, s.e2)};`);
          const b2 = loopBounds(c)[s.b2 % loopBounds(c).length];
          const j = c.fresh('j');
          if (scratch) {
            const { sa, sb } = scratch;
            const [j2, j3, j4] = [c.fresh('j'), c.fresh('j'), c.fresh('j')];
            c.emit(`for (let ${j} = 0; ${j} < 2; ${j}++) {`);
            c.ind++;
            c.ints.push({ name: j, U: 2 });
            c.emit(`for (let ${j2} = 0; ${j2} < 3; ${j2}++) {`);
            c.ind++;
            c.ints.push({ name: j2, U: 3 });
            c.emit(`${sa}[${j2}] = ${squash(s.q + 1, renderExpr(c, s.e3), false)};`, `${sb}[${j2}] = ${sa}[${j2}] * ${t};`);
            c.ints.pop();
            c.ind--;
            c.emit('}', `for (let ${j3} = 0; ${j3} < 3; ${j3}++) {`);
            c.ind++;
            c.emit(`for (let ${j4} = 0; ${j4} < ${j3}; ${j4}++) {`, `  ${sb}[${j3}] += ${t} * ${sa}[${j4}];`, '}');
            c.ind--;
            c.emit('}');
            if (s.q % 2 === 0) {
              // a squared norm over the scratch array: its adjoint is written by one covering loop
              const j7 = c.fresh('j');
              c.emit(`for (let ${j7} = 0; ${j7} < 3; ${j7}++) ${u} += ${sb}[${j7}] * ${sb}[${j7}];`);
            } else c.emit(`${u} += ${sb}[0] * ${sb}[2] + ${sa}[1];`);
            c.ints.pop();
            c.ind--;
            c.emit('}');
            if (s.b2 % 4 === 0) {
              // a max-shifted log-sum-exp written out in the iteration (a selection loop and an
              // exponential per element, both directly in the fused body)
              const [mx, se, j5, j6] = [c.fresh('mx'), c.fresh('se'), c.fresh('j'), c.fresh('j')];
              c.emit(
                `let ${mx} = ${sb}[0];`,
                `for (let ${j5} = 1; ${j5} < 3; ${j5}++) {`,
                `  if (${sb}[${j5}] > ${mx}) ${mx} = ${sb}[${j5}];`,
                '}',
                `let ${se} = 0;`,
                `for (let ${j6} = 0; ${j6} < 3; ${j6}++) ${se} += Math.exp(${sb}[${j6}] - ${mx});`,
                `${u} += ${mx} + Math.log(${se});`,
              );
            }
            c.nums.push({ name: u, w: false });
            c.emit(`${acc} += Math.tanh(${u}) * (${squash(s.q + 2, renderExpr(c, s.e4), false)});`);
            return;
          }
          renderLoop(
            c,
            () => `for (let ${j} = 0; ${j} < ${b2.text}; ${j}++) {`,
            () => {
              // a loop nest in the iteration (what makes fusing worth it)
              c.ints.push({ name: j, U: b2.n });
              const j2 = c.fresh('j');
              c.emit(`for (let ${j2} = 0; ${j2} < 2; ${j2}++) {`);
              c.ind++;
              c.ints.push({ name: j2, U: 2 });
              c.emit(`${u} += ${squash(s.q + 1, renderExpr(c, s.e3), false)};`);
              c.ind--;
              c.emit('}');
            },
          );
          c.nums.push({ name: u, w: false });
          // every other one adds a helper's result (a call in the iteration: inlined for the adjoint when small)
          const term = s.q % 2 === 0 ? renderExpr(c, { k: 'call', s: s.b + s.b2, args: [s.e4, s.e1], arrs: [s.b2, s.b] }) : renderExpr(c, s.e4);
          c.emit(`${acc} += ${squash(s.q + 2, term, false)};`);
        },
      );
      c.nums.push({ name: acc, w: false });
      return;
    }
    case 'for': {
      const b = loopBounds(c, true)[s.b % loopBounds(c, true).length];
      const i = c.fresh('i');
      const form = s.form % 6;
      // a search whose only work is the value it returns (`for (…) { if (c) return e; }`): the adjoint
      // finds the index first and differentiates `e` once (src/transform/jumps.ts)
      if (form === 5 && c.ret === 0) {
        // (the body's first early return gives the test and the value; else one is made from a number in scope)
        const jump = s.body.find((x): x is Extract<Stmt, { k: 'jump' }> => x.k === 'jump');
        const x = pick(c.nums, s.b);
        renderLoop(
          c,
          () => `for (let ${i} = 0; ${i} < ${b.text}; ${i}++) {`,
          (real) => {
            // (past the nesting limit the body is written without the loop, and without its counter)
            if (!real) return renderStmts(c, s.body);
            c.ints.push({ name: i, U: b.n });
            if (jump) c.emit(`if (${renderCond(c, jump.c)}) return ${squash(jump.q, renderExpr(c, jump.e), false)};`);
            else if (x) c.emit(`if (${x.name} * (${i} + 1) > 0.5) return Math.sin(${x.name}) * (${i} + 0.5);`);
          },
        );
        return;
      }
      renderLoop(
        c,
        () =>
          [
            `for (let ${i} = 0; ${i} < ${b.text}; ${i}++) {`,
            `for (let ${i} = ${b.frac ? `Math.ceil(${b.text})` : b.text} - 1; ${i} >= 0; ${i}--) {`,
            `for (let ${i} = 0; ${i} < ${b.text}; ${i} += 2) {`,
            `for (let ${i} = 1; ${i} < ${b.text}; ${i}++) {`,
            `for (let ${i} = 0; ${i} < ${b.text}; ++${i}) {`,
          ][form % 5],
        (real) => {
          if (real) c.ints.push({ name: i, U: b.n });
          renderStmts(c, s.body);
        },
      );
      return;
    }
    case 'forof': {
      const m = s.s % 2 === 1 ? pick(c.mats, s.s >> 1) : undefined;
      if (m && (s.s % 4 === 3 || s.s % 8 === 1)) {
        // over the matrix's elements, flattened: `for (const e of m.flat())`
        const x = c.fresh('e');
        renderLoop(
          c,
          () => `for (const ${x} of ${m.name}.flat()) {`,
          (real) => {
            if (real) c.nums.push({ name: x, w: false });
            renderStmts(c, s.body);
          },
        );
        return;
      }
      if (m) {
        const row = c.fresh('row');
        renderLoop(
          c,
          () => `for (const ${row} of ${m.name}) {`,
          (real) => {
            if (real) c.arrs.push({ name: row, len: m.cols, f64: false, ro: true, row: true });
            renderStmts(c, s.body);
          },
        );
        return;
      }
      const a = pick(c.arrs, s.s);
      if (!a) return renderStmt(c, { k: 'for', b: s.s, form: 0, body: s.body });
      const x = c.fresh('e');
      if (s.s % 8 === 6) {
        // `for (const k in a)`: its keys are strings, taken as an element index and converted to a number
        const key = c.fresh('key'), i = c.fresh('i');
        const conv = [`Number(${key})`, `+${key}`, `parseInt(${key}, 10)`][(s.s >> 3) % 3];
        renderLoop(
          c,
          () => `for (const ${key} in ${a.name}) {`,
          (real) => {
            if (real) {
              c.emit(`const ${x} = ${a.name}[${key}];`, `const ${i} = ${conv};`);
              c.nums.push({ name: x, w: false });
              c.ints.push({ name: i, U: a.len });
            }
            renderStmts(c, s.body);
          },
        );
        return;
      }
      // every fourth one with its index too: `for (const [k, e] of a.entries())`
      const k = s.s % 4 === 2 ? c.fresh('k') : null;
      renderLoop(
        c,
        () => (k ? `for (const [${k}, ${x}] of ${a.name}.entries()) {` : `for (const ${x} of ${a.name}) {`),
        (real) => {
          if (real) c.nums.push({ name: x, w: false });
          if (real && k) c.ints.push({ name: k, U: a.len });
          renderStmts(c, s.body);
        },
      );
      return;
    }
    case 'while': {
      // one level past the nesting limit, short while loops are still rendered (a loop inside two loops)
      if (c.loopDepth > MAX_LOOP_DEPTH) return c.scoped(() => renderStmts(c, s.body));
      if (c.loopDepth === MAX_LOOP_DEPTH) {
        // at most two iterations of simple statements
        const simple = s.body.filter((x) => x.k === 'let' || x.k === 'set' || x.k === 'aset' || x.k === 'jump' || x.k === 'fset');
        if (s.cap > 2 || simple.length < s.body.length) return renderStmt(c, { ...s, cap: Math.min(s.cap, 2), body: simple });
      }
      const k = c.fresh('k');
      c.emit(`let ${k} = 0;`);
      const cond = renderCond(c, s.c);
      renderLoop(
        c,
        () => (s.dw ? 'do {' : `while (${k} < ${s.cap} && ${cond}) {`),
        () => {
          c.emit(`${k}++;`);
          c.ints.push({ name: k, U: s.cap + 1 });
          renderStmts(c, s.body);
        },
        s.dw ? () => `} while (${k} < ${s.cap} && ${cond});` : undefined,
        c.loopDepth === MAX_LOOP_DEPTH,
      );
      return;
    }
    case 'jump': {
      const kind = Math.min(s.j, 2); // 2, 3: an early return
      if (kind === 2) {
        // early return
        if (c.ret === 1) return; // functions returning arrays: none
        const cond = renderCond(c, s.c);
        if (c.ret === 2) c.emit(`if (${cond}) return;`);
        else c.emit(`if (${cond}) return ${squash(s.q, renderExpr(c, s.e), false)};`);
        return;
      }
      const cands = kind === 0 ? c.targets : c.targets.filter((t) => t.kind === 'loop');
      if (!cands.length) return;
      const t = cands[cands.length - 1 - (s.t % cands.length)];
      // an unlabelled break leaves the innermost loop or switch (never a labelled block)
      const plain = kind === 0 ? c.targets.filter((x) => x.kind !== 'block') : cands;
      const innermost = plain[plain.length - 1];
      const cond = renderCond(c, s.c);
      const word = kind === 0 ? 'break' : 'continue';
      if (t === innermost && !s.lab) c.emit(`if (${cond}) ${word};`);
      else {
        t.used = true;
        c.emit(`if (${cond}) ${word} ${t.label};`);
      }
      return;
    }
    case 'from': {
      const n = lenChoice(c, s.n);
      const name = c.fresh('t');
      const k = c.fresh('j');
      let body: string;
      c.scoped(() => {
        if (s.idx) c.ints.push({ name: k, U: n.n });
        body = squash(s.q, renderExpr(c, s.e), false);
      });
      // (one in three a block ending in its return, a local before it; one in three of those rows of
      // a matrix made by a nested Array.from, summed)
      if (s.idx && s.q % 3 === 1) {
        const h = c.fresh('h'), col = c.fresh('col');
        if (s.q % 2) c.emit(`const ${name} = Array.from({ length: ${n.text} }, (_, ${k}) => {`, `  const ${h} = ${body!};`, `  return Array.from({ length: 2 }, (_, ${col}) => ${h} * (${col} + 1)).reduce((a, b) => a + b, 0);`, '});');
        else c.emit(`const ${name} = Array.from({ length: ${n.text} }, (_, ${k}) => {`, `  const ${h} = ${body!};`, `  return 0.5 * ${h} + ${k};`, '});');
      } else c.emit(`const ${name} = Array.from({ length: ${n.text} }, (${s.idx ? `_, ${k}` : ''}) => ${body!});`);
      c.arrs.push({ name, len: n.n, f64: false, ro: false });
      return;
    }
    case 'push': {
      const n = lenChoice(c, s.n);
      const name = c.fresh('t');
      c.emit(`const ${name}: number[] = [];`);
      const how = s.how % 3;
      if (how === 1) {
        // straight-line pushes (a fixed count)
        for (let k = 0; k < n.n; k++) c.emit(`${name}.push(${squash(s.q + k, renderExpr(c, s.e), false)});`);
      } else {
        const k = c.fresh('j');
        c.emit(how === 0 ? `for (let ${k} = 0; ${k} < ${n.text}; ${k}++) {` : `let ${k} = 0;`);
        if (how === 2) c.emit(`while (${k} < ${n.text}) {`);
        c.block(() => {
          c.ints.push({ name: k, U: n.n });
          c.emit(`${name}.push(${squash(s.q, renderExpr(c, s.e), false)});`);
          if (how === 2) c.emit(`${k}++;`);
        });
        c.emit('}');
      }
      // every other one then takes another array's values too: `t.push(...a)` (`array.pushspread`)
      const more = s.q % 4 >= 2 ? pick(c.arrs.filter((a) => !a.tup && !a.row), s.how >> 2) : undefined;
      if (more) c.emit(`${name}.push(...${more.name});`);
      c.arrs.push({ name, len: n.n + (more ? more.len : 0), f64: false, ro: false });
      return;
    }
    case 'fill': {
      const n = lenChoice(c, s.n);
      const name = c.fresh('t');
      if (s.f64) c.emit(`const ${name} = new Float64Array(${n.text});`);
      else c.emit(`const ${name}: number[] = new Array(${n.text}).fill(${lit(LITS[s.v])});`);
      c.arrs.push({ name, len: n.n, f64: s.f64, ro: false });
      return;
    }
    case 'copy': {
      // a copy of an array in scope: its adjoint flows back into the source's
      const srcs = c.arrs.filter((a) => !a.tup);
      if (!srcs.length) return;
      const src = srcs[s.s % srcs.length];
      const name = c.fresh('t');
      if (s.f64) c.emit(`const ${name} = Float64Array.from(${src.name});`);
      else c.emit(`const ${name} = ${src.name}.slice();`);
      c.arrs.push({ name, len: src.len, f64: s.f64 || src.f64, ro: false });
      return;
    }
    case 'mfrom': {
      // a 2×2 matrix built row by row (a nested `Array.from` is not an initializer: rejected)
      const name = c.fresh('M');
      const i = c.fresh('j');
      const j = c.fresh('j');
      const row = c.fresh('t');
      c.emit(`const ${name}: number[][] = [];`);
      if (s.loop % 3 === 1) {
        // straight-line: two row literals pushed
        for (let k = 0; k < 2; k++) c.emit(`${name}.push([${squash(s.q + k, renderExpr(c, s.e), false)}, ${lit(LITS[k])}]);`);
        c.mats.push({ name, rows: 2, cols: 2 });
        return;
      }
      const wl = s.loop % 3 === 2 && c.loopDepth < MAX_LOOP_DEPTH;
      if (wl) c.emit(`let ${i} = 0;`, `while (${i} < 2) {`);
      else c.emit(`for (let ${i} = 0; ${i} < 2; ${i}++) {`);
      c.block(() => {
        // (a while loop's counter is incremented first: 1 and 2)
        c.ints.push({ name: i, U: wl ? 3 : 2 });
        if (wl) c.emit(`${i}++;`);
        let body = '';
        c.scoped(() => {
          c.ints.push({ name: j, U: 2 });
          body = squash(s.q, renderExpr(c, s.e), false);
        });
        c.emit(`const ${row} = Array.from({ length: 2 }, (_, ${j}) => ${body});`);
        c.emit(`${name}.push(${row});`);
      });
      c.emit('}');
      if (s.q % 2 === 0) {
        // (its two rows, distinct arrays, given to a helper that writes both: a pair of elements of one array)
        c.needsExchange = true;
        c.emit(`for (let ${i} = 0; ${i} + 1 < ${name}.length; ${i}++) exchange(${name}[${i}], ${name}[${i} + 1], ${lit(LITS[s.q % LITS.length])});`);
      }
      c.mats.push({ name, rows: 2, cols: 2 });
      return;
    }
    case 'obj': {
      const name = c.fresh('q');
      const built = `{ u: ${squash(s.q, renderExpr(c, s.a), false)}, v: ${squash(s.q + 1, renderExpr(c, s.b), false)}, w: ${renderExpr(c, s.c)} }`;
      // two in three choose between two fresh objects: the branch taken builds it
      if (s.q % 3 !== 0) c.emit(`const ${name}: P = ${renderExpr(c, s.c)} > 0.25 ? ${built} : { u: 0.5, v: ${squash(s.q, renderExpr(c, s.b), false)}, w: 1 };`);
      else c.emit(`const ${name}: P = ${built};`);
      c.objs.push(name);
      return;
    }
    case 'destr': {
      if (s.arr) {
        const a = pick(c.arrs.filter((x) => x.len >= 2 && !x.f64), s.s);
        if (!a) return;
        const n0 = c.fresh('d'), n1 = c.fresh('d');
        c.emit(`const [${n0}, ${n1}] = ${a.name};`);
        c.nums.push({ name: n0, w: false }, { name: n1, w: false });
      } else {
        const o = pick(c.objs, s.s);
        if (!o) return;
        const n0 = c.fresh('d'), n1 = c.fresh('d');
        c.emit(`const { ${FIELDS[s.s % 3]}: ${n0}, ${FIELDS[(s.s + 1) % 3]}: ${n1} } = ${o};`);
        c.nums.push({ name: n0, w: false }, { name: n1, w: false });
      }
      return;
    }
    case 'callv': {
      const refs = c.callable.filter((x) => x.ret !== 0);
      const h = s.s % 2 === 0 && refs.length ? pick(refs, s.s >> 1) : pick(c.callable, s.s);
      if (!h || c.calls >= 6) return;
      c.calls++;
      // calls returning arrays, matrices, objects or tuples: every other one in a loop of its own (straight-line
      // otherwise, its result in scope after it)
      if (h.ret !== 0 && s.args.length % 2 === 1) {
        ownLoop(c, 1 + (s.arrs.length % 2), 2, () => renderStmt(c, { ...s, args: [] }));
        return;
      }
      const call = `${h.name}(${callArgs(c, h, s.args, s.arrs).join(', ')})`;
      if (h.ret === 1 && h.nullable) bindNullableArray(c, call, h.retLen, s.s);
      else if (h.ret === 2) c.emit(`${call};`);
      else if (h.ret === 4) {
        const name = c.fresh('M');
        c.emit(`const ${name} = ${call};`);
        c.mats.push({ name, rows: 2, cols: 2 });
      } else if (h.ret === 5) {
        const name = c.fresh('t');
        c.emit(`const ${name} = ${call};`);
        c.arrs.push({ name, len: 2, f64: false, ro: false, tup: true });
      } else if (h.ret === 3) {
        const name = c.fresh('q');
        c.emit(`const ${name} = ${call};`);
        c.objs.push(name);
      } else if (h.ret === 1) {
        const name = c.fresh('t');
        c.emit(`const ${name} = ${call};`);
        c.arrs.push({ name, len: h.retLen, f64: false, ro: false });
      } else if (h.nullable) {
        // `number | null`: bound once (a nullable variable is const), read through its tests
        const name = c.fresh('maybe');
        c.emit(`const ${name} = ${call};`);
        c.opts.push({ name, none: h.undef ? 'undefined' : 'null' });
      } else {
        const name = c.fresh('s');
        c.emit(`let ${name} = ${call};`);
        c.nums.push({ name, w: true });
      }
      return;
    }
    case 'state':
      return renderState(c, s);
    case 'twin': {
      // a second name for something in scope, then a write through the new name
      const groups: { kind: 'arr' | 'mat' | 'obj' | 'aobj'; name: string }[][] = [
        c.arrs.filter((a) => !a.ro && !a.f64 && !a.row && !a.tup).map((a) => ({ kind: 'arr' as const, name: a.name })),
        c.arrs.filter((a) => a.tup).map((a) => ({ kind: 'arr' as const, name: a.name })),
        c.mats.map((m) => ({ kind: 'mat' as const, name: m.name })),
        c.objs.map((o) => ({ kind: 'obj' as const, name: o })),
        c.aobjs.map((a) => ({ kind: 'aobj' as const, name: a.name })),
      ];
      // the kind asked for, else the first kind in scope after it
      const g = [0, 1, 2, 3, 4].map((d) => groups[(s.kind + d) % 5]).find((x) => x.length);
      const t = g && pick(g, s.s);
      if (!t) return;
      const name = c.fresh(t.kind === 'obj' ? 'q' : t.kind === 'mat' ? 'M' : 't');
      c.emit(`const ${name} = ${t.name};`);
      c.base.set(name, c.baseOf(t.name));
      const rhs = squash(s.q, renderExpr(c, s.e), false);
      if (t.kind === 'arr') {
        const a = c.arrs.find((x) => x.name === t.name)!;
        c.emit(`${name}[${renderIdx(c, s.i, a.len, `${name}.length`)}] = ${rhs};`);
        c.arrs.push({ ...a, name });
      } else if (t.kind === 'mat') {
        const m = c.mats.find((x) => x.name === t.name)!;
        c.emit(`${name}[${renderIdx(c, s.i, m.rows, `${name}.length`)}][${m.cols - 1}] = ${rhs};`);
        c.mats.push({ ...m, name });
      } else if (t.kind === 'aobj') {
        const a = c.aobjs.find((x) => x.name === t.name)!;
        c.emit(`${name}[${renderIdx(c, s.i, a.len, `${name}.length`)}].${FIELDS[s.q % 3]} = ${rhs};`);
        c.aobjs.push({ ...a, name });
      } else {
        c.emit(`${name}.${FIELDS[s.q % 3]} = ${rhs};`);
        c.objs.push(name);
      }
      return;
    }
    case 'rows': {
      // rows of a matrix or elements of an array of objects, stored and swapped by reference
      const mats = c.mats.filter((m) => m.rows >= 2);
      const aos = c.aobjs;
      const useObj = aos.length > 0 && (s.s % 2 === 1 || !mats.length);
      const t = useObj ? pick(aos, s.s >> 1) : pick(mats, s.s >> 1);
      if (!t) return;
      const name = t.name;
      const n = 'len' in t ? t.len : t.rows;
      ownLoop(c, s.loop, 2, () => renderRows(c, s, name, n, useObj, t));
      return;
    }
    case 'aobj': {

      const name = c.fresh('ps');
      const obj = (k: string) => `{ u: ${squash(s.q, renderExpr(c, s.e), false)}, v: ${k}, w: ${lit(LITS[s.q % LITS.length])} }`;
      if (s.push) {
        // pushed: in a counted loop, a while loop, or straight-line
        c.emit(`const ${name}: P[] = [];`);
        const l = c.loopDepth >= MAX_LOOP_DEPTH ? 0 : (s.loop % 3) || 1;
        // (straight-line also at the deepest nesting, where ownLoop would write no loop)
        if (s.loop % 3 === 0 || l === 0) for (let k = 0; k < s.n; k++) c.emit(`${name}.push(${obj(lit(LITS[k]))});`);
        else ownLoop(c, l, s.n, () => c.emit(`${name}.push(${obj(`${c.ints[c.ints.length - 1].name} * 0.5`)});`));
      } else c.emit(`const ${name}: P[] = [${Array.from({ length: s.n }, (_, k) => obj(lit(LITS[k]))).join(', ')}];`);
      // then, in a loop of its own or not: a swap, a row store, a second name written through, or a field store
      ownLoop(c, (s.q >> 2) % 3, 2, () => {
        const i = pick(c.ints, s.q)?.name;
        const at = i ? `${i} % ${s.n}` : '0';
        const w = squash(s.q + 1, renderExpr(c, s.e), false);
        switch (s.q % 4) {
          case 0: {
            const r = c.fresh('r');
            c.emit(`const ${r} = ${name}[${at}];`, `${name}[${at}] = ${name}[${s.n - 1}];`, `${name}[${s.n - 1}] = ${r};`);
            break;
          }
          case 1:
            c.emit(`${name}[${s.n - 1}] = ${s.q % 8 === 1 ? `${name}[${at}]` : `{ u: ${w}, v: ${name}[0].v, w: 1 }`};`);
            break;
          case 2: {
            const t = c.fresh('ps');
            c.emit(`const ${t} = ${name};`, `${t}[${at}].u = ${w};`);
            break;
          }
          default:
            c.emit(`${name}[${at}].w = ${w};`);
        }
      });
      c.aobjs.push({ name, len: s.n });
      for (let k = 0; k < s.n; k++) {
        c.objs.push(`${name}[${k}]`);
        c.base.set(`${name}[${k}]`, name);
      }
      return;
    }
    case 'qobj': {
      // an object with an array field: its elements are read and written as `q.a[k]`
      const name = c.fresh('q');
      c.emit(`const ${name}: Q = { a: [${squash(s.q, renderExpr(c, s.e), false)}, ${squash(s.q + 1, renderExpr(c, s.f), false)}], s: ${squash(s.q + 2, renderExpr(c, s.f), false)} };`);
      ownLoop(c, s.loop, 2, () => {
        if (s.q % 2 === 0) c.emit(`${name}.a[${s.q % 4 === 0 ? 0 : 1}] = 0.5 * ${name}.a[1] + 0.25 * ${squash(s.q, renderExpr(c, s.e), false)};`);
        if (s.rebind) c.emit(`${name}.a = [${name}.a[1] + 0.5 * ${name}.s, ${name}.a[0] - 0.25 * ${name}.a[1]];`);
        // a push onto the field's array whose argument calls a helper rebinding the field: the push goes
        // onto the array the field held before the call, as JavaScript takes it first
        if (s.rebind && s.q % 4 === 3 && !c.helper) {
          c.needsRegrow = true;
          c.emit(`${name}.a.push(regrow(${name}, ${squash(s.q + 5, renderExpr(c, s.f), false)}));`);
        }
      });
      if (s.q % 3 === 1) {
        // a spread copy: a new object sharing the array field, one field replaced, written through the copy
        const copy = c.fresh('q');
        // (its field read with a string key once: `q['s']`; the field replaced by a literal source too:
        // `Object.assign({}, q, { s: … })`, `{ ...q, ...{ s: … } }`)
        const s2 = `s: 0.5 * ${name}.s + ${squash(s.q + 3, renderExpr(c, s.e), false)}`;
        const made = [`{ ...${name}, ${s2} }`, `Object.assign({}, ${name}, { ${s2} })`, `{ ...${name}, ...{ ${s2} } }`][((s.q - 1) / 3) % 3];
        c.emit(`const ${copy}: Q = ${made};`, `${copy}.a[1] = ${copy}.a[0] * ${copy}['s'];`);
        c.nums.push({ name: `${copy}.s`, w: false });
      }
      c.arrs.push({ name: `${name}.a`, len: 2, f64: false, ro: false, row: true });
      c.nums.push({ name: `${name}.s`, w: true });
      const o = s.q % 3 === 2 ? pick(c.objs.filter((x) => !x.includes('[')), s.q) : undefined;
      if (o) {
        // defaults merged with an object whose field `z` is optional: `{ ...DEFAULTS, ...o }` or
        // `Object.assign({}, DEFAULTS, o)` (src/frontend/spread.ts), the merged fields read back
        const dflt = c.fresh('dflt'), merged = c.fresh('merged');
        // (unannotated: its z is a number, which the merged object falls back to where o lacks one)
        c.emit(`const ${dflt} = { u: 0.5, v: ${squash(s.q + 4, renderExpr(c, s.f), false)}, w: 1, z: -0.25 };`);
        c.emit(s.q % 2 ? `const ${merged}: P = { ...${dflt}, ...${o} };` : `const ${merged} = Object.assign({}, ${dflt}, ${o});`);
        c.emit(`${name}.s += 0.25 * (${merged}.u * ${merged}.v + (${merged}.z ?? 0.5));`);
      }
      return;
    }
    case 'lu':
      return renderLu(c, s);
    case 'block': {
      // a labelled block, left by `break <label>` (rendered without the label if nothing breaks out)
      const label = c.fresh('B');
      const t: Target = { label, used: false, kind: 'block' };
      const start = c.lines.length;
      c.emit('');
      c.targets.push(t);
      c.block(() => {
        // leaving the block by its label skips the rest of it
        t.used = true;
        c.emit(`if (${renderCond(c, s.c)}) break ${label};`);
        renderStmts(c, s.body);
      });
      c.targets.pop();
      c.lines[start] = '  '.repeat(c.ind) + (t.used ? `${label}: {` : '{');
      c.emit('}');
      return;
    }
    case 'sw': {
      const n = s.cases.length;
      const i = pick(c.ints, s.s);
      const scrut = i ? `${i.name} % ${n + 1}` : `((Math.abs(Math.tanh(${renderExpr(c, s.e)})) * ${n + 0.5}) | 0)`;
      // (one in five: `switch (true)` with the comparisons as the case tests)
      const truthy = s.s % 5 === 4;
      const sel = truthy ? c.fresh('sel') : '';
      if (truthy) c.emit(`const ${sel} = ${scrut};`);
      const test = (k: number) => (truthy ? `${sel} === ${k}` : `${k}`);
      const label = c.fresh('L');
      const t: Target = { label, used: false, kind: 'switch' };
      const start = c.lines.length;
      c.emit('');
      c.targets.push(t);
      c.block(() => {
        s.cases.forEach((body, k) => {
          // fall-through from an empty case, and (one switch in three) from a non-empty one into the next
          const fall = s.ft > 0 && k === s.ft - 1 && k < n - 1;
          if (fall) return c.emit(`case ${test(k)}:`);
          const runsOn = s.s % 3 === 1 && k === s.ft % n && k < n - 1;
          c.emit(k === n - 1 && n > 1 ? 'default: {' : `case ${test(k)}: {`);
          c.block(() => renderStmts(c, body));
          c.emit(runsOn ? '}' : '} break;');
        });
      });
      c.targets.pop();
      c.lines[start] = '  '.repeat(c.ind) + (t.used ? `${label}: ` : '') + `switch (${truthy ? 'true' : scrut}) {`;
      c.emit('}');
      return;
    }
  }
}

/** one row operation of a `rows` statement (rendered where its loop, if any, puts it) */
/**
 * `var`-style code (see VarSpec). Its loops are short and hold no jumps, so they are written
 * out here (one level past the nesting limit at most, as `deep` loops are); the counter enters the
 * values as a passive float. Names are fresh, so a `var` never meets another binding of the function.
 */
function renderVar(c: Ctx, s: VarSpec): void {
  const v = c.fresh('hv'); // (not 'v': helpers' array parameters are v0, v1, …, and a var would redeclare one)
  const i = c.fresh('hk');
  const e = () => renderExpr(c, s.e);
  const f = () => renderExpr(c, s.f);
  const loop = (body: () => void) => {
    c.emit(`for (var ${i} = 0; ${i} < ${s.b}; ${i}++) {`);
    c.ind++;
    body();
    c.ind--;
    c.emit('}');
  };
  switch (s.mode % 4) {
    case 0: // one counter, declared in both loops; the variable is read after them
      c.emit(`var ${v} = ${squash(s.q, e(), false)};`);
      loop(() => c.emit(`${v} += ${squash(s.q + 1, `${f()} * ${i}`, false)};`));
      loop(() => c.emit(`${v} = ${squash(s.q, `${v} * 0.5 + ${i} * 0.25`, false)};`));
      c.emit(`${v} += ${i} * 0.1;`);
      break;
    case 1: {
      // declared again at the end of the body: the next pass reads the value the last one left
      const d = c.fresh('hd');
      c.emit(`var ${v} = ${squash(s.q, e(), false)};`);
      loop(() => {
        c.emit(`var ${d} = ${squash(s.q + 1, `${v} - ${f()}`, false)};`);
        c.emit(`var ${v} = ${squash(s.q, `${v} * 0.5 + ${d} * ${d}`, false)};`);
      });
      break;
    }
    case 2: // no value where declared, one on each branch
      if (Math.floor(s.mode / 4) % 2 === 1) {
        // (or declared, with its first value, only in the body of a loop whose first test holds: read after it)
        loop(() => c.emit(`var ${v} = ${squash(s.q, `${e()} + ${i} * 0.25`, false)};`));
        break;
      }
      c.emit(`var ${v};`);
      c.emit(`if (${renderCond(c, s.c)}) ${v} = ${squash(s.q, e(), false)};`);
      c.emit(`else ${v} = ${squash(s.q + 1, f(), false)};`);
      break;
    default: // `var v;` in the loop body does not reset it; hoisting lets it be assigned above
      c.emit(`${v} = ${squash(s.q, e(), false)};`);
      loop(() => {
        c.emit(`var ${v};`);
        c.emit(`${v} = ${squash(s.q + 1, `${v} * 0.75 + ${f()}`, false)};`);
      });
  }
  c.nums.push({ name: v, w: true });
}

function renderRows(c: Ctx, s: Extract<Stmt, { k: 'rows' }>, name: string, n: number, useObj: boolean, t: MatVar | { name: string; len: number }): void {
  const i = renderIdx(c, s.i, n, `${name}.length`);
  let j = renderIdx(c, s.j, n, `${name}.length`);
  if (j === i) j = `(${i} + 1) % ${n}`;
  // (in a helper, a row of a parameter stored as another row would link rows of its caller's matrix,
  // which tsad refuses where the caller writes afterwards: helpers swap those instead)
  const mode = c.helper && !useObj && (t as MatVar).param && s.mode % 3 === 1 ? 0 : s.mode % 3;
  if (mode === 0) {
    const tmp = c.fresh('r');
    c.emit(`const ${tmp} = ${name}[${i}];`, `${name}[${i}] = ${name}[${j}];`, `${name}[${j}] = ${tmp};`);
  } else if (mode === 1) c.emit(`${name}[${i}] = ${name}[${j}];`);
  else if (useObj) {
    const e = renderExpr(c, s.e);
    c.emit(`${name}[${i}] = { u: ${squash(s.q, e, false)}, v: ${name}[${j}].u, w: ${lit(LITS[s.q % LITS.length])} };`);
  } else {
    const m = t as MatVar;
    const e = renderExpr(c, s.e);
    c.emit(`${name}[${i}] = [${Array.from({ length: m.cols }, (_, k) => (k === 0 ? squash(s.q, e, false) : `${name}[${j}][${k}]`)).join(', ')}];`);
  }
}

/**
 * Runs `body` once in a loop of its own: 0 none (straight-line), 1 a counted `for` of n iterations, 2 a
 * `while` of n iterations (its counter incremented first); past the nesting limit, straight-line.
 */
/**
 * The JavaScript-style array forms, each in its loop context, in a scope of their own (what they declare
 * is not seen by the return expression, drawn before them); returns the number their values flow into.
 */
function renderJsArrays(c: Ctx, specs: JsArraySpec[]): string {
  const acc = c.fresh('js');
  c.emit(`let ${acc} = 0;`);
  c.scoped(() => {
    for (const s of specs) {
      const body = () => renderJsArray(c, s, acc);
      if (s.loop % 4 === 3 && c.loopDepth + 2 <= MAX_LOOP_DEPTH) ownLoop(c, 1, 2, () => ownLoop(c, 2, 2, body));
      else ownLoop(c, s.loop % 4, 2, body);
    }
  });
  return acc;
}

/**
 * Arrays as JavaScript writes them: untyped `[]` filled by pushes, `new Array(n)` (or `[]`) filled by
 * the loop right after it, spread literals, `slice(a, b)` (negative bounds too), `concat`, `fill`/`reverse` (in
 * place: the result is a second name of the array), `indexOf`/`includes` (passive). The result is a new
 * array in scope of a length known here.
 */
function renderJsArray(c: Ctx, s: JsArraySpec, acc: string): void {
  const srcs = c.arrs.filter((a) => !a.tup);
  const name = c.fresh('t');
  const value = (q: number) => squash(q, renderExpr(c, s.e), false);
  // what the new array holds flows into the result: its first and last elements
  const use = (a: { name: string; len: number }) => c.emit(`${acc} = Math.tanh(${acc} + ${a.name}[0] * ${a.name}[${a.len - 1}]);`);
  const filling = (head: string, n: { text: string; n: number }, store: (j: string) => string) => {
    const j = c.fresh('j');
    c.emit(...(head ? [head] : []), `for (let ${j} = 0; ${j} < ${n.text}; ${j}++) {`);
    c.block(() => {
      c.ints.push({ name: j, U: n.n });
      c.emit(store(j));
    });
    c.emit('}');
  };
  switch (s.form) {
    case 0: {
      const n = lenChoice(c, s.n);
      filling(`const ${name} = [];`, n, () => `${name}.push(${value(s.q)});`);
      c.arrs.push({ name, len: n.n, f64: false, ro: false });
      use(c.arrs[c.arrs.length - 1]);
      return;
    }
    case 1: {
      const n = lenChoice(c, s.n);
      if (s.v % 3 !== 2 && s.t % 3 === 1) {
        // the holes filled by a store that is not the loop's first statement, a declaration in between,
        // the element read back after its store
        const j = c.fresh('j'), t = c.fresh('t'), top = c.fresh('top');
        c.emit(`const ${name}: number[] = new Array(${n.text});`, `let ${top} = -Infinity;`, `for (let ${j} = 0; ${j} < ${n.text}; ${j}++) {`);
        c.block(() => {
          c.ints.push({ name: j, U: n.n });
          c.emit(`const ${t} = ${value(s.q)};`, `${name}[${j}] = 0.5 * ${t};`, `if (${name}[${j}] > ${top}) ${top} = ${name}[${j}];`);
        });
        c.emit('}');
        c.arrs.push({ name, len: n.n, f64: false, ro: false });
        c.emit(`${name}[0] += 0.25 * ${top};`);
        use(c.arrs[c.arrs.length - 1]);
        return;
      }
      if (s.v % 3 !== 2 && s.t % 3 === 2 && n.n >= 2) {
        // the holes filled by a recurrence: the first (or last) element stored, then the loop from the
        // next one, reading the element it wrote before (`a[j - 1]` going up, `a[j + 1]` going down)
        const j = c.fresh('j');
        const upward = s.q % 2 === 0;
        if (upward && s.v % 4 === 3) {
          // two arrays declared together and filled in one loop, as Thomas's algorithm does: the
          // first elements stored in turn, the second array's recurrence reading the first's element
          const other = c.fresh('arr');
          c.emit(`const ${name}: number[] = new Array(${n.text}), ${other}: number[] = new Array(${n.text});`, `${name}[0] = ${value(s.q)}; ${other}[0] = 0.5;`, `for (let ${j} = 1; ${j} < ${n.text}; ${j}++) {`);
          c.block(() => {
            c.ints.push({ name: j, U: n.n });
            c.emit(`${name}[${j}] = ${value(s.q + 1)} - 0.5 * ${name}[${j} - 1];`, `${other}[${j}] = 0.25 * ${name}[${j}] + 0.5 * ${other}[${j} - 1];`);
          });
          c.emit('}');
          c.arrs.push({ name, len: n.n, f64: false, ro: false }, { name: other, len: n.n, f64: false, ro: false });
          use(c.arrs[c.arrs.length - 1]);
          return;
        }
        // (every fifth with its length written `last + 1` and the loop running to `last` inclusive)
        const last = s.v % 5 === 4 ? c.fresh('last') : null;
        if (last) {
          c.emit(`const ${last} = ${n.text} - 1;`, `const ${name}: number[] = new Array(${last} + 1);`, upward ? `${name}[0] = ${value(s.q)};` : `${name}[${last}] = ${value(s.q)};`);
          c.emit(upward ? `for (let ${j} = 1; ${j} <= ${last}; ${j}++) {` : `for (let ${j} = ${last} - 1; ${j} >= 0; ${j}--) {`);
        } else {
          c.emit(`const ${name}: number[] = new Array(${n.text});`, upward ? `${name}[0] = ${value(s.q)};` : `${name}[${n.text} - 1] = ${value(s.q)};`);
          c.emit(upward ? `for (let ${j} = 1; ${j} < ${n.text}; ${j}++) {` : `for (let ${j} = ${n.text} - 2; ${j} >= 0; ${j}--) {`);
        }
        c.block(() => {
          c.ints.push({ name: j, U: n.n });
          c.emit(`${name}[${j}] = ${value(s.q + 1)} - 0.5 * ${name}[${j} ${upward ? '-' : '+'} 1];`);
        });
        c.emit('}');
        c.arrs.push({ name, len: n.n, f64: false, ro: false });
        use(c.arrs[c.arrs.length - 1]);
        return;
      }
      // (or an empty literal the loop grows by storing past its end; every other such one grown with
      // zeros and its values added by a second loop: its tangent array grows with it)
      if (s.v % 3 === 2 && s.t % 2 === 1) {
        filling(`const ${name}: number[] = [];`, n, (j) => `${name}[${j}] = 0;`);
        filling('', n, (j) => `${name}[${j}] += ${value(s.q)};`);
      } else filling(s.v % 3 === 2 ? `const ${name}: number[] = [];` : `const ${name} = ${s.v % 2 ? 'new ' : ''}Array(${n.text});`, n, (j) => `${name}[${j}] = ${value(s.q)};`);
      c.arrs.push({ name, len: n.n, f64: false, ro: false });
      use(c.arrs[c.arrs.length - 1]);
      return;
    }
    case 2: {
      const a = pick(srcs, s.s), b = pick(srcs, s.t);
      if (!a || !b) return;
      const mid = value(s.q);
      if (s.v % 4 === 3) {
        // `Array.from(xs)`: the same copy as `[...xs]`
        c.emit(`const ${name} = Array.from(${a.name});`);
        c.arrs.push({ name, len: a.len, f64: false, ro: false });
        use(c.arrs[c.arrs.length - 1]);
        return;
      }
      c.emit(s.v % 2 ? `const ${name} = [...${a.name}, ${mid}, ...${b.name}];` : `const ${name} = [${mid}, ...${a.name}];`);
      c.arrs.push({ name, len: s.v % 2 ? a.len + 1 + b.len : 1 + a.len, f64: false, ro: false });
      use(c.arrs[c.arrs.length - 1]);
      return;
    }
    case 3: {
      const a = pick(srcs, s.s);
      if (!a || a.len < 2) return;
      // bounds as written (negative counts from the end); the result keeps at least one element
      const from = s.v % a.len, to = from + 1 + (s.t % (a.len - from));
      const fromText = s.v % 2 ? `${from - a.len}` : `${from}`;
      const toText = to === a.len && s.t % 3 === 0 ? '' : `, ${s.t % 2 ? to - a.len : to}`;
      if (toText === ', 0') return; // -0 from the end is the start
      c.emit(`const ${name} = ${a.name}.slice(${fromText}${toText});`);
      c.arrs.push({ name, len: to - from, f64: a.f64, ro: false });
      use(c.arrs[c.arrs.length - 1]);
      return;
    }
    case 4: {
      const plain = srcs.filter((x) => !x.f64);
      const a = pick(plain, s.s), b = pick(plain, s.t);
      if (!a || !b) return;
      // (every third with an empty literal among the arguments: `xs.concat([])` is a copy)
      c.emit(`const ${name} = ${a.name}.concat(${s.v % 3 === 0 ? '[], ' : ''}${b.name}, ${value(s.q)});`);
      c.arrs.push({ name, len: a.len + b.len + 1, f64: false, ro: false });
      use(c.arrs[c.arrs.length - 1]);
      return;
    }
    case 5:
    case 6: {
      const w = pick(writable(c).filter((x) => !x.tup), s.s);
      if (!w) return;
      // (a third of the fills from a start, or between a start and an end counted from the end)
      const bounds = s.q % 3 === 1 ? ', 1' : s.q % 3 === 2 ? ', -2, -1' : '';
      const call = s.form === 5 ? `fill(${value(s.q)}${bounds})` : 'reverse()';
      if (s.form === 6 && s.v % 4 === 2) {
        // (ES2023's reversed copy: a new array, the source unchanged)
        c.emit(`const ${name} = ${w.name}.toReversed();`);
        c.arrs.push({ ...w, name, ro: false });
        use(c.arrs[c.arrs.length - 1]);
        return;
      }
      if (s.v % 2) {
        c.emit(`${w.name}.${call};`);
        use(w);
        return;
      }
      // the result is the same array: a second name for it
      c.emit(`const ${name} = ${w.name}.${call};`);
      c.arrs.push({ ...w, name });
      use(c.arrs[c.arrs.length - 1]);
      c.base.set(name, c.baseOf(w.name));
      return;
    }
    case 8: {
      // a shallow copy: its rows are the source's, so a write through the copy is seen by the source
      const from = s.t % 2;
      const value8 = value(s.q);
      let m = pick(c.mats.filter((x) => x.rows > from), s.s);
      const objects = s.v % 2 === 1;
      if (!m && !objects) {
        // no matrix in scope: one built here
        m = { name: c.fresh('mx'), rows: 2, cols: 2 };
        c.emit(`const ${m.name}: number[][] = [[${value(s.q + 1)}, 0.5], [-0.5, ${value(s.q + 2)}]];`);
      }
      let ps = pick(c.aobjs.filter((x) => x.len > from), s.s);
      if (!ps && (objects || !m)) {
        // no array of objects in scope: one built here
        ps = { name: c.fresh('ps'), len: 2 };
        c.emit(`const ${ps.name}: P[] = [{ u: ${value(s.q + 1)}, v: 0.5, w: 1 }, { u: -0.5, v: ${value(s.q + 2)}, w: 2 }];`);
      }
      if (ps && (objects || !m)) {
        c.emit(`const ${name} = ${ps.name}.slice(${from ? from : ''});`, `${name}[0].u = ${value8};`, `${acc} = Math.tanh(${acc} + ${ps.name}[${from}].u * ${name}[${ps.len - from - 1}].v);`);
        c.aobjs.push({ name, len: ps.len - from });
        c.base.set(name, c.baseOf(ps.name));
      } else if (m) {
        c.emit(`const ${name} = ${m.name}.slice(${from ? from : ''});`, `${name}[0][0] = ${value8};`, `${acc} = Math.tanh(${acc} + ${m.name}[${from}][0] * ${name}[${m.rows - from - 1}][${m.cols - 1}]);`);
        c.mats.push({ name, rows: m.rows - from, cols: m.cols });
        c.base.set(name, c.baseOf(m.name));
      }
      return;
    }
    case 9: {
      // the polygon-area loop: j trails i by one, wrapping around
      const a = pick(srcs, s.s);
      if (!a || a.len < 2) return;
      const i = c.fresh('i'), j = c.fresh('j');
      c.emit(`for (let ${i} = 0, ${j} = ${a.name}.length - 1; ${i} < ${a.name}.length; ${j} = ${i}++) {`);
      c.block(() => {
        c.ints.push({ name: i, U: a.len }, { name: j, U: a.len });
        c.emit(`${acc} = Math.tanh(${acc} + ${a.name}[${i}] * ${a.name}[${j}] + ${value(s.q)});`);
      });
      c.emit('}');
      return;
    }
    case 10: {
      // a stack: two values popped and one pushed back while it holds two; popped to empty at the end
      const a = pick(srcs, s.s);
      if (!a) return;
      const j = c.fresh('j'), u = c.fresh('u');
      c.emit(`const ${name}: number[] = [];`, `for (let ${j} = 0; ${j} < ${a.name}.length; ${j}++) {`);
      c.block(() => {
        c.ints.push({ name: j, U: a.len });
        c.emit(`${name}.push(${a.name}[${j}] * ${value(s.q)});`, `if (${name}.length >= 2) {`);
        c.emit(`  const ${u} = ${name}.pop()!;`, s.t % 2 ? `  ${name}.push(0.5 * ${name}.pop()! + Math.tanh(${u}));` : `  ${name}[${name}.length - 1] = ${name}[${name}.length - 1] * ${u};`, '}');
      });
      c.emit('}', `${acc} = Math.tanh(${acc} + ${name}[0] * (${name}.pop() ?? 0.5));`);
      if (s.v % 2) c.emit(`${name}.pop();`, `${acc} += 0.5 * ${name}.length;`);
      return;
    }
    case 11: {
      // truncation in place: of a fresh copy, or of one of the head's arrays that has no other name
      const own = writable(c).filter((x) => !x.tup && !x.f64 && !x.row && x.name !== 'out' && x.len >= 2 && c.arrs.filter((y) => c.baseOf(y.name) === c.baseOf(x.name)).length === 1);
      const inPlace = s.v % 3 === 2 ? pick(own, s.s) : undefined;
      const a = inPlace ?? pick(srcs.filter((x) => x.len >= 2 && !x.f64), s.s);
      if (!a) return;
      const k = 1 + (s.t % (a.len - 1));
      let t = a;
      if (!inPlace) {
        c.emit(`const ${name} = ${a.name}.slice();`);
        t = { name, len: a.len, f64: false, ro: false };
      }
      c.emit(s.q % 2 ? `${t.name}.length = ${k};` : `${t.name}.length = Math.min(${t.name}.length, ${k});`);
      if (inPlace) a.len = k;
      c.emit(`${acc} = Math.tanh(${acc} + ${t.name}[${k - 1}] * ${value(s.q)} + ${t.name}.length);`);
      // (grown back by a store at its old last index, as a `pop` then `a[n - 1] = …` does)
      if (!inPlace && s.t % 2) c.emit(`${t.name}[${k}] = ${t.name}[${k - 1}] * ${value(s.q + 1)};`, `${acc} = Math.tanh(${acc} + ${t.name}[${k}] * ${t.name}.length);`);
      if (!inPlace) {
        c.emit(`${t.name}.length = 0;`, `${t.name}.push(${value(s.q + 1)});`, `${acc} = Math.tanh(${acc} + ${t.name}[0]);`);
      }
      return;
    }
    case 12: {
      // a helper with a rest parameter: numbers, a spread array, no argument, rows; and a call among
      // the trailing arguments that writes what a leading one read (which JavaScript reads first)
      const a = pick(srcs, s.s);
      if (!a) return;
      c.needsRestHelpers = true;
      const w = pick(writable(c).filter((x) => !x.tup && !x.f64 && !x.ro), s.t);
      const plain = a.f64 ? null : a;
      const call = [
        `restSq(${value(s.q)}, ${a.name}[0])`,
        `restSq(${value(s.q)}, ...${a.name}) + restSq()`,
        plain ? `restRows(${value(s.q)}, ${plain.name}, [${plain.name}[0], ${value(s.q + 1)}])` : `restRows(${value(s.q)})`,
        w ? `restSq(${w.name}[0], bumpFirst(${w.name}), ${w.name}[0] * ${value(s.q)})` : `restSq(${value(s.q)})`,
        `restRows(${value(s.q)}, ...${c.mats.length ? `${pick(c.mats, s.t)!.name}` : `[[${value(s.q + 1)}, 0.5]]`})`,
      ][s.v % 5];
      c.emit(`${acc} = Math.tanh(${acc} + ${call});`);
      return;
    }
    case 13: {
      // several values pushed at once, all evaluated first (the second reads the array's length before the push)
      const n = lenChoice(c, s.n);
      const per = s.v % 2 ? 2 : 3;
      if (s.t % 3 === 0) {
        // outside a loop of its own: in the spec's loop context as it is (every fourth inside a `while` of its own)
        const inPlace = () => {
          c.emit(`const ${name}: number[] = [${value(s.q + 1)}];`, per === 2 ? `${name}.push(${value(s.q)}, ${name}.length * 0.5);` : `${name}.push(${value(s.q)}, 0.25, ${name}[0]);`);
          c.arrs.push({ name, len: 1 + per, f64: false, ro: false });
          use(c.arrs[c.arrs.length - 1]);
        };
        if (s.q % 4 === 0) ownLoop(c, 2, 2, inPlace);
        else inPlace();
        return;
      }
      filling(`const ${name}: number[] = [];`, n, () => (per === 2 ? `${name}.push(${value(s.q)}, ${name}.length * 0.5);` : `${name}.push(${value(s.q)}, 0.25, ${value(s.q + 1)});`));
      c.arrs.push({ name, len: n.n * per, f64: false, ro: false });
      use(c.arrs[c.arrs.length - 1]);
      return;
    }
    case 14: {
      // optional booleans: a flag left out, given, or computed; an object whose flag is absent, given or computed
      c.needsFlagHelpers = true;
      const fl = ['{}', "{ on: true, unit: 'b' }", `{ on: ${value(s.q + 1)} > 0.25, k: ${value(s.q + 2)} }`, "{ on: false, k: 1.5, unit: 'a' }"][s.t % 4];
      const call = [`scaledIf(${value(s.q)})`, `scaledIf(${value(s.q)}, ${s.t % 2 === 0})`, `scaledIf(${value(s.q)}, ${value(s.q + 1)} > 0.25)`, `flagged(${value(s.q)}, ${fl})`, `flagged(${value(s.q)}, ${fl}) + scaledIf(${value(s.q + 1)}, undefined)`][s.v % 5];
      c.emit(`${acc} = Math.tanh(${acc} + ${call});`);
      return;
    }
    case 15: {
      // short circuits whose left operand is computed (`counts[k] || 0`, `(a && b) || 1`): evaluated once, first
      const a = pick(srcs, s.s);
      const left = a ? `${a.name}[${s.t % a.len}]` : value(s.q + 1);
      const forms = [`(${left} || ${value(s.q)})`, `((${left} && ${value(s.q)}) || 0.5)`, `(${left} * ${value(s.q)} || 0.25)`, `(Math.round(${value(s.q)}) && ${left})`];
      if (s.v % 6 >= 4 && a) {
        // reads past either end of an array, and their fallbacks (`u[j + 1] ?? c`, `u[j - 1] === undefined`)
        // (or named first, as down-levelled destructuring defaults read: `const r = a[j + 1]; r === void 0 ? c : r`)
        const j = c.fresh('j'), r = c.fresh('r');
        const past = s.v % 6 === 4
          ? `${a.name}[${j}] * (${a.name}[${j} + 1] ?? ${value(s.q)}) + (${a.name}[${j} - 1] || 0.5)`
          : `(${a.name}[${j} - 1] === undefined ? ${value(s.q)} : ${a.name}[${j} - 1]) * (${r} != null ? ${r} : 0.25) + (${r} === void 0 ? 0.5 : ${r})`;
        c.emit(`for (let ${j} = 0; ${j} < ${a.name}.length; ${j}++) {`, ...(s.v % 6 === 5 ? [`  const ${r} = ${a.name}[${j} + 1];`] : []), `  ${acc} = Math.tanh(${acc} + ${past});`, '}');
        return;
      }
      c.emit(`${acc} = Math.tanh(${acc} + ${forms[s.v % 4]});`);
      return;
    }
    case 16: {
      // a nullable `var`/`let` that nothing assigns again (down-levelled `opts?.tol`): a constant
      const t = c.fresh('nv');
      const kw = s.v % 2 ? 'var' : 'let';
      const none = s.t % 2 ? 'void 0' : 'null';
      if (s.v % 4 === 2) {
        // declared without a value, given its one value later in the block (as tsad's own output declares locals)
        c.emit(`let ${t}: number | ${s.t % 2 ? 'undefined' : 'null'};`, `${acc} = 0.5 * ${acc};`, `${t} = ${value(s.q + 1)} > 0.25 ? ${none} : ${value(s.q)};`);
      } else c.emit(`${kw} ${t} = ${value(s.q + 1)} > 0.25 ? ${none} : ${value(s.q)};`);
      c.emit(`${acc} = Math.tanh(${acc} + (${t} === ${none} ? 0.5 : ${t} * ${t}));`);
      return;
    }
    case 17: {
      // a tuple mixing an array and a number (vector mode keeps the number's directions apart): a local
      // one written through both parts, or a helper's result, read whole or by part
      const t = c.fresh('mx');
      if (s.v % 2 === 0) {
        c.emit(`const ${t}: [number[], number] = [[${value(s.q)}, 0.5], ${value(s.q + 1)}];`);
        c.emit(`${t}[1] = ${t}[1] * ${t}[0][0];`, `${t}[0][1] += ${t}[1];`);
      } else {
        const a = pick(srcs.filter((x) => !x.f64), s.s);
        c.needsTupleHelpers = true;
        c.emit(`const ${t} = splitFirst(${a ? a.name : `[${value(s.q + 1)}, 0.25]`}, ${value(s.q)});`);
      }
      const u = s.t % 2 ? `${t}[0][1] * ${t}[1]` : `${t}[1] + ${t}[0][0]`;
      c.emit(`${acc} = Math.tanh(${acc} + ${u});`);
      return;
    }
    case 18: {
      // a float the loop's header sets and steps (`t = …, k = 0; …; t += …, k++`), an iteration skipped
      // by `continue` (which still runs the update): its derivative is followed through the header
      const t = c.fresh('ft');
      const k = c.fresh('k');
      const n = 2 + (s.n % 3);
      c.emit(`for (let ${t} = ${value(s.q)}, ${k} = 0; ${k} < ${n}; ${t} += 0.5 * ${value(s.q + 1)}, ${k}++) {`);
      c.block(() => {
        if (s.v % 2 === 0) c.emit(`if (${k} === ${s.t % n}) continue;`);
        c.emit(`${acc} = Math.tanh(${acc} + Math.sin(${t}) * ${value(s.q + 2)});`);
      });
      c.emit('}');
      return;
    }
    case 22: {
      // one array or object written again through a name rebound to it (a pool picked per iteration, a
      // double buffer swapped, the same array bound twice): the backward sweep still reads its old values
      const k = c.fresh('k'), cur = c.fresh('cur'), pool = c.fresh('pool');
      switch (s.v % 4) {
        case 0:
          c.emit(`const ${pool} = [[0.5, 0], [0.25, 0]];`, `for (let ${k} = 0; ${k} < 3; ${k}++) {`, `  const ${cur} = ${pool}[${k} % 2];`, `  ${cur}[0] = ${value(s.q)} + 0.125 * ${k};`, `  ${cur}[1] += ${cur}[0] * ${cur}[0];`, '}');
          c.emit(`${acc} = Math.tanh(${acc} + ${pool}[0][1] - ${pool}[1][1]);`);
          return;
        case 1:
          c.emit(`const ${pool}: P[] = [{ u: 0, v: 0, w: 1 }, { u: 0, v: 0, w: 2 }];`, `for (let ${k} = 0; ${k} < 3; ${k}++) {`, `  const ${cur} = ${value(s.q + 1)} > 0.25 * ${k} ? ${pool}[0] : ${pool}[1];`, `  ${cur}.u = ${value(s.q)} * ${cur}.w;`, `  ${cur}.v += ${cur}.u * ${cur}.u;`, '}');
          c.emit(`${acc} = Math.tanh(${acc} + ${pool}[0].v + 0.5 * ${pool}[1].v);`);
          return;
        case 2: {
          const b = c.fresh('buf');
          c.emit(`let ${cur} = [${value(s.q)}, 0.5];`, `let ${b} = [0, 0];`, `for (let ${k} = 0; ${k} < 2; ${k}++) {`, `  ${b}[0] = ${cur}[0] * ${cur}[0] + ${cur}[1];`, `  ${b}[1] = Math.sin(${cur}[0]);`, `  const ${pool} = ${cur};`, `  ${cur} = ${b};`, `  ${b} = ${pool};`, '}');
          c.emit(`${acc} = Math.tanh(${acc} + ${cur}[0] * ${cur}[1]);`);
          return;
        }
        default:
          c.emit(`const ${pool} = [0, 0];`, `let ${cur} = ${pool};`, `${cur}[0] = ${value(s.q)};`, `${cur}[1] = ${cur}[0] * ${cur}[0];`, `${cur} = ${pool};`, `${cur}[0] = ${value(s.q + 1)};`);
          c.emit(`${acc} = Math.tanh(${acc} + ${pool}[1] + ${cur}[0]);`);
          return;
      }
    }
    case 21: {
      // a number rebuilt from its own old value by a call (`y = relax(y, k)`, `k = f(a, k)`, a method, a
      // static method, a loop header's update, a writable number in scope): the callee's backward sweep
      // must see the old value
      c.needsRebindHelpers = true;
      const y = c.fresh('y');
      const own = pick(c.nums.filter((n) => n.w), s.t);
      switch (s.v % 5) {
        case 0:
          c.emit(`let ${y} = ${value(s.q)};`, `${y} = relax(${y}, 1.5);`, `${acc} = Math.tanh(${acc} + ${y});`);
          return;
        case 1:
          c.emit(`let ${y} = ${value(s.q)};`, `${y} = relax(0.5, ${y}) + relax(${y}, ${y});`, `${acc} = Math.tanh(${acc} + ${y});`);
          return;
        case 2: {
          const k = c.fresh('k');
          c.emit(`for (let ${k} = 0, ${y} = ${value(s.q)}; ${k} < 3; ${k}++, ${y} = relax(${y}, 1.25)) ${acc} = Math.tanh(${acc} + ${y});`);
          return;
        }
        case 3: {
          const dm = c.fresh('dm');
          c.emit(`let ${y} = ${value(s.q)};`, `const ${dm} = new Damper(0.75);`, `${y} = ${dm}.apply(${y});`, `${y} = Damper.halve(${y});`, `${acc} = Math.tanh(${acc} + ${y});`);
          return;
        }
        default:
          if (own) c.emit(`${own.name} = relax(${own.name}, ${value(s.q)});`, `${acc} = Math.tanh(${acc} + ${own.name});`);
          else c.emit(`${acc} = relax(${acc}, ${value(s.q)});`);
          return;
      }
    }
    case 19: {
      // rows or objects taken off a stack: `pop()` as a value (a name kept past the pop and written
      // through), as a statement, in a `while`, and a `length` assignment; their shadows leave and come back
      const a = pick(srcs, s.s);
      const from = a ? a.name : `[${value(s.q + 2)}, 0.5, -0.25]`;
      const j = c.fresh('j');
      if (s.v % 2 === 0) {
        const top = c.fresh('top');
        c.emit(`const ${name}: number[][] = [];`, `for (let ${j} = 0; ${j} < ${from}.length; ${j}++) ${name}.push([${from}[${j}] * ${value(s.q)}, 0.5 + ${from}[${j}]]);`);
        c.emit(`const ${top} = ${name}.pop()!;`, `${top}[1] = ${top}[1] * ${value(s.q + 1)};`);
        c.emit(`if (${name}.length > 1) ${name}.pop();`, `${name}.length = Math.min(${name}.length, 1);`);
        c.emit(`${acc} = Math.tanh(${acc} + ${top}[0] * ${top}[1] + (${name}.length > 0 ? ${name}[0][1] : 0.5));`);
        // and rows put back at the front, replaced in the middle (the removed ones kept and written
        // through), and a copy with its last row replaced (ES2023's `with`) sharing the others
        const cut = c.fresh('cut'), swapped = c.fresh('swapped');
        c.emit(`${name}.unshift([${value(s.q + 1)}, ${top}[0]]);`, `const ${cut} = ${name}.splice(${s.t % 2}, 1, ${top}, [0.5, ${value(s.q)}]);`);
        c.emit(`${cut}[0][1] = 0.5 * ${cut}[0][1] + ${value(s.q + 1)};`, `${acc} = Math.tanh(${acc} + ${name}[0][1] * ${name}[${name}.length - 1][0] + ${cut}[0][1]);`);
        c.emit(`const ${swapped} = ${name}.with(-1, [${top}[1], ${value(s.q + 1)}]);`, `${swapped}[0][0] = ${swapped}[0][0] * ${value(s.q)};`, `${acc} = Math.tanh(${acc} + ${swapped}[${swapped}.length - 1][0] * ${name}[0][0]);`);
      } else {
        const keep = c.fresh('keep'), f = c.fresh('f'), o = c.fresh('o');
        c.emit(`const ${name}: P[] = [];`, `for (let ${j} = 0; ${j} < ${from}.length; ${j}++) ${name}.push({ u: ${from}[${j}] * ${value(s.q)}, v: 0.25 * ${from}[${j}], w: 1 });`);
        c.emit(`const ${keep} = ${name}[0];`, `${name}.push({ u: ${value(s.q + 1)}, v: 0.5, w: 2 });`, `${name}.pop();`, `let ${f} = 0.5;`);
        c.emit(`while (${name}.length > 1) {`, `  const ${o} = ${name}.pop()!;`, `  ${f} = Math.tanh(${f} * ${o}.u + ${o}.v);`, '}');
        c.emit(`${keep}.v = ${keep}.v * ${f};`, `${name}.length = 0;`);
        c.emit(`${acc} = Math.tanh(${acc} + ${keep}.u * ${keep}.v + ${f} + ${name}.length);`);
        // and objects put in at the front and in the middle, one taken out counted from the end
        const out = c.fresh('out');
        c.emit(`${name}.unshift({ u: ${value(s.q)}, v: 0.5, w: 1 }, ${keep});`, `${name}.splice(1, 0, { u: ${f}, v: ${keep}.u, w: 2 });`);
        c.emit(`const ${out} = ${name}.splice(-2, 1)[0];`, `${out}.w = ${out}.w * ${value(s.q + 1)};`, `${acc} = Math.tanh(${acc} + ${name}[0].u * ${out}.v + ${keep}.w + ${name}.length);`);
      }
      return;
    }
    case 20: {
      // a fresh array or object read at once: a literal indexed (by a loop counter or a constant), an
      // object literal's field, a copy or a spread literal indexed (the front end names each first)
      const a = pick(srcs, s.s);
      const ix = pick(c.ints, s.t);
      const k = ix ? `${ix.name} % 3` : `${s.t % 3}`;
      const arr = a ? a.name : `[${value(s.q + 1)}, 0.25]`;
      // (a conditional of arrays of one kind: tsad refuses a Float64Array beside a plain array)
      const plainArr = a && !a.f64 ? a.name : `[${value(s.q + 1)}, 0.25]`;
      const reads = [
        `[${value(s.q)}, ${arr}[0] * ${value(s.q + 1)}, 0.5][${k}]`,
        `({ u: ${value(s.q)}, v: ${arr}[0] }).${s.t % 2 ? 'u' : 'v'} * ${value(s.q + 1)}`,
        `${arr}.slice()[${arr}.length - 1] * ${value(s.q)}`,
        `[...${arr}, ${value(s.q)}][${arr}.length]`,
        // (an allocation filled with a computed value: the value's derivative reaches every element)
        `new Array(3).fill(${value(s.q)})[${k}] * ${arr}[0]`,
        `new Float64Array(2).fill(${value(s.q)}).map((v) => v * ${value(s.q + 1)})[1]`,
        // (a literal spread into Math.min/max/hypot: its values, not a copy read without derivatives)
        `Math.hypot(...[${value(s.q)}, ${arr}[0], 0.5])`,
        `Math.max(...[${arr}[0]], ...[${value(s.q)}])`,
        // (an array chosen by a test and indexed where it stands, also inside a branch taken sometimes)
        `(${value(s.q)} > 0.25 ? ${plainArr} : [${value(s.q + 1)}, 0.5])[0] * ${value(s.q)}`,
        `(${value(s.q + 1)} > 0 ? (${value(s.q)} > 0.25 ? ${plainArr} : [0.5, ${value(s.q + 1)}])[${plainArr}.length - 1] : 0.5)`,
        // (copies and views of arrays made where they stand)
        `[${value(s.q)}, ${arr}[0]].slice()[1] * ${value(s.q + 1)}`,
        `${arr}.slice().slice()[0] * ${value(s.q)}`,
        `Float64Array.from(${arr}).subarray(0, 1)[0] * ${value(s.q)}`,
      ];
      c.emit(`${acc} = Math.tanh(${acc} + ${reads[s.v % 13]});`);
      // and rows flattened into a fresh array
      c.emit(`${acc} = Math.tanh(${acc} + [[${value(s.q)}, 0.5], ${plainArr}].flat()[2] * ${value(s.q + 1)});`);
      // and numbers sorted: a copy (ascending or descending), or an array in scope in place, read back
      const sortable = pick(srcs.filter((x) => !x.tup && !x.ro && !x.row), s.t + 1);
      const sorted = c.fresh('sorted');
      if (sortable && s.v % 3 === 0) {
        c.emit(`${sortable.name}.sort((a, b) => ${s.q % 2 ? 'b - a' : 'a - b'});`);
        c.emit(`${acc} = Math.tanh(${acc} + ${sortable.name}[0] * ${value(s.q)} - 0.5 * ${sortable.name}[${sortable.name}.length - 1]);`);
      } else if (s.v % 3 === 1) {
        // (ES2023's sorted copy)
        c.emit(`const ${sorted} = ${plainArr}.toSorted((a, b) => ${s.q % 2 ? 'b - a' : 'a - b'});`);
        c.emit(`${acc} = Math.tanh(${acc} + ${sorted}[0] * ${value(s.q + 1)} + ${sorted}[${sorted}.length >> 1]);`);
      } else {
        c.emit(`const ${sorted} = [...${plainArr}, ${value(s.q)}].sort((a, b) => ${s.q % 2 ? 'b - a' : 'a - b'});`);
        c.emit(`${acc} = Math.tanh(${acc} + ${sorted}[0] * ${value(s.q + 1)} + ${sorted}[${sorted}.length >> 1]);`);
      }
      // and objects and rows sorted by a numeric key (a field, a constant index): references moved
      const byKey = c.fresh('byKey');
      c.emit(`const ${byKey} = [{ v: ${value(s.q)}, w: 0.5 }, { v: ${arr}[0], w: ${value(s.q + 1)} }, { v: 0.25, w: ${arr}[0] }];`);
      c.emit(`${byKey}.sort((a, b) => ${s.q % 2 ? 'b.v - a.v' : 'a.v - b.v'});`, `${acc} = Math.tanh(${acc} + ${byKey}[0].w * ${byKey}[1].v - ${byKey}[2].w);`);
      // and a sorted or reversed copy of them, which shares the objects: a write through it reaches byKey's
      const shared = c.fresh('shared');
      const copied = [`${byKey}.toSorted((a, b) => a.w - b.w)`, `[...${byKey}].sort((a, b) => b.w - a.w)`, `${byKey}.toReversed()`][s.t % 3];
      c.emit(`const ${shared} = ${copied};`, `${shared}[0].v *= ${value(s.q + 1)};`, `${acc} = Math.tanh(${acc} + ${byKey}[0].v * ${byKey}[1].w + ${byKey}[2].v);`);
      // and a field of the element `find` gives, asserted present (one always matches: itself)
      c.emit(`${acc} = Math.tanh(${acc} + ${byKey}.find((q) => q.w === ${byKey}[2].w)!.v * ${value(s.q)});`);
      // and an argsort: indices (`keys()` as an array, three ways) sorted by the values they index
      const order = c.fresh('order');
      const indices = [`Array.from(${plainArr}.keys())`, `[...${byKey}.keys()]`, `Int32Array.from(${arr}.keys())`][s.t % 3];
      const byValue = [`${plainArr}[i] - ${plainArr}[j]`, `${byKey}[j].w - ${byKey}[i].w`, `${arr}[i] - ${arr}[j]`][s.t % 3];
      const indexed = [plainArr, byKey, arr][s.t % 3];
      // (a literal or a tuple is not indexed by a comparator: tsad's argsort reads a named array)
      const named = indexed.startsWith('[') || (indexed === a?.name && a.tup) ? null : indexed;
      if (named) {
        c.emit(`const ${order} = ${indices}.sort((i, j) => ${byValue});`);
        c.emit(`${acc} = Math.tanh(${acc} + ${s.t % 3 === 1 ? `${named}[${order}[0]].v * ${value(s.q)}` : `${named}[${order}[0]] * ${value(s.q)} - ${named}[${order}[${order}.length - 1]]`});`);
      }
      const byRow = pick(c.mats, s.t + 3);
      if (byRow) {
        const rs = c.fresh('rs');
        c.emit(`const ${rs} = ${byRow.name}.map((r) => r.slice());`, `${rs}.sort((a, b) => ${s.q % 2 ? `a[${byRow.cols - 1}] - b[${byRow.cols - 1}]` : 'b[0] - a[0]'});`);
        c.emit(`${acc} = Math.tanh(${acc} + ${rs}[0][0] * ${value(s.q)} + ${rs}[${rs}.length - 1][${byRow.cols - 1}]);`);
        // (sorted again the other way, after its rows were written)
        c.emit(`${rs}[0][0] = ${value(s.q + 1)};`, `${rs}.sort((a, b) => ${s.q % 2 ? 'b[0] - a[0]' : `a[${byRow.cols - 1}] - b[${byRow.cols - 1}]`});`, `${acc} = Math.tanh(${acc} + ${rs}[0][${byRow.cols - 1}] * ${rs}[${rs}.length - 1][0]);`);
        // (and a sorted copy, sharing the rows, written through)
        c.emit(`const ${rs}c = ${rs}.toSorted((a, b) => a[0] - b[0]);`, `${rs}c[0][${byRow.cols - 1}] *= ${value(s.q)};`, `${acc} = Math.tanh(${acc} + ${rs}[0][${byRow.cols - 1}] - ${rs}[${rs}.length - 1][${byRow.cols - 1}]);`);
      }
      // and a row that exists only where a test says so, read in that branch (`r === 0 ? … : M[r - 1][0]`)
      const rowsOf = pick(c.mats, s.t + 2);
      if (rowsOf) {
        const r = c.fresh('r');
        c.emit(`for (let ${r} = 0; ${r} < ${rowsOf.name}.length; ${r}++) ${acc} = Math.tanh(${acc} + (${r} === 0 ? 0.5 : ${rowsOf.name}[${r} - 1][0] * ${value(s.q)}));`);
      }
      // and elements taken off arrays made where they stand (`a.slice().pop()`, a queue's `shift()`)
      c.emit(`${acc} = Math.tanh(${acc} + ${plainArr}.slice().pop()! * ${value(s.q)});`);
      const queue = c.fresh('queue'), head = c.fresh('head');
      c.emit(`const ${queue} = [...${plainArr}, ${value(s.q + 1)}];`, `while (${queue}.length > 1) {`, `  const ${head} = ${queue}.shift()!;`, `  ${acc} = Math.tanh(${acc} + 0.5 * ${head} * ${queue}[0]);`, '}');
      // and a deque of numbers: values put in at the front (`unshift`, its new length used), a range
      // replaced in the middle (`splice`, what it removed used), an element taken off the front read
      // between reads of the array (JavaScript's order), a copy with one element replaced (`with`)
      const dq = c.fresh('dq'), gone = c.fresh('gone'), wv = c.fresh('wv');
      c.emit(`const ${dq} = [...${plainArr}, ${value(s.q + 1)}];`, `${acc} = Math.tanh(${acc} + 0.1 * ${dq}.unshift(${value(s.q)}));`);
      c.emit(`const ${gone} = ${dq}.splice(1, ${s.t % 3}, ${value(s.q + 1)} * ${dq}[0]);`, `${acc} = Math.tanh(${acc} + ${dq}[${dq}.length - 1] * ${dq}[1] + (${gone}.length > 0 ? ${gone}[0] : 0.5));`);
      c.emit(`${acc} = Math.tanh(${acc} + ${dq}[0] * ${dq}.splice(0, 1)[0] + ${dq}[0]);`);
      c.emit(`const ${wv} = ${dq}.with(${s.q % 2 ? -1 : 0}, ${value(s.q)} * ${dq}[0]);`, `${acc} = Math.tanh(${acc} + ${wv}[0] * ${wv}[${wv}.length - 1]);`);
      // and typed arrays made by mapping an array, or indices (`Float64Array.from(xs, fn)`, `{ length: n }`)
      c.emit(`${acc} = Math.tanh(${acc} + Float64Array.from(${arr}, (v, i) => v * ${value(s.q)} + 0.25 * i)[${arr}.length - 1]);`);
      const mf = c.fresh('mf');
      c.emit(`const ${mf} = Float64Array.from({ length: ${arr}.length }, (_, i) => ${arr}[i] * ${value(s.q + 1)});`, `${acc} = Math.tanh(${acc} + ${mf}[0]);`);
      // and elements at relative indices (`at`: from the end when negative, undefined outside)
      c.emit(`${acc} = Math.tanh(${acc} + ${plainArr}.at(-1)! * ${value(s.q)} + (${plainArr}.at(${s.q % 2 ? `${acc} > 0 ? 1 : -3` : '-2'}) ?? 0.5));`);
      // and an object chosen by a test, its field read where it stands
      const ob = pick(c.objs, s.t);
      if (ob) c.emit(`${acc} = Math.tanh(${acc} + (${value(s.q + 1)} > 0.25 ? ${ob} : { u: ${value(s.q)}, v: 0.5, w: 1 }).u);`);
      // and an array chosen by a condition, spread (named first: a conditional of arrays; tsad refuses
      // one mixing a Float64Array and a plain array)
      const plain = pick(srcs.filter((x) => !x.f64), s.s);
      c.emit(`${acc} = Math.tanh(${acc} + Math.min(...(${value(s.q + 1)} > 0.25 ? ${plain ? plain.name : '[0.25, 0.75]'} : [${value(s.q)}, 0.5])));`);
      return;
    }
    default: {
      const a = pick(srcs.filter((x) => !x.f64), s.s);
      const x = pick(c.nums.filter((n) => n.w), s.t);
      if (!a || !x) return;
      // the first occurrence of a[0] is at 0 whatever the values (a search whose result cannot jump)
      const p = c.fresh('p');
      c.emit(`const ${p} = ${a.name}.indexOf(${a.name}[0]);`);
      c.emit(`if (${p} >= 0 && ${a.name}.includes(${a.name}[0])) {`);
      c.block(() => c.emit(`${x.name} = ${squash(s.q, `${x.name} + ${a.name}[${p}] * ${renderExpr(c, s.e)}`, false)};`));
      c.emit('}');
      return;
    }
  }
}

/** The typed-array forms (TypedArraySpec), each in its loop context, in a scope of their own; returns
 * the number their values flow into. */
function renderTypedArrays(c: Ctx, specs: TypedArraySpec[]): string {
  const acc = c.fresh('ta');
  c.emit(`let ${acc} = 0;`);
  c.scoped(() => {
    for (const s of specs) {
      const body = () => renderTypedArray(c, s, acc);
      if (s.loop % 4 === 3 && c.loopDepth + 2 <= MAX_LOOP_DEPTH) ownLoop(c, 1, 2, () => ownLoop(c, 2, 2, body));
      else ownLoop(c, s.loop % 4, 2, body);
    }
  });
  return acc;
}

function renderTypedArray(c: Ctx, s: TypedArraySpec, acc: string): void {
  const srcs = c.arrs.filter((a) => !a.tup);
  const a = pick(srcs, s.s);
  const name = c.fresh('t');
  const j = c.fresh('j');
  const loopOver = (n: string, U: number, store: string) => {
    c.emit(`for (let ${j} = 0; ${j} < ${n}; ${j}++) {`);
    c.block(() => {
      c.ints.push({ name: j, U });
      c.emit(store);
    });
    c.emit('}');
  };
  const flow = (e: string) => c.emit(`${acc} = Math.tanh(${acc} + ${e});`);
  switch (s.form % 5) {
    case 0: {
      // a permutation (reversal) as pivoting code keeps it, read back as indices
      if (!a) return;
      const n = s.n % 2 ? `${a.name}.length` : `${a.len}`;
      c.emit(`const ${name} = new Int32Array(${n});`);
      loopOver(n, a.len, `${name}[${j}] = ${n} - 1 - ${j};`);
      flow(`${a.name}[${name}[0]] * ${a.name}[${name}[${a.len - 1}]]`);
      return;
    }
    case 1: {
      // a sign vector: +1, or -1 where the element is negative
      if (!a) return;
      c.emit(`const ${name} = new Int8Array(${a.len}).fill(1);`);
      loopOver(`${a.len}`, a.len, `if (${a.name}[${j}] < 0) ${name}[${j}] = -1;`);
      flow(`${name}[0] * ${a.name}[0] + ${name}[${a.len - 1}] * ${a.name}[${a.len - 1}]`);
      return;
    }
    case 2: {
      // integer copies of floats (truncated, or wrapped to bytes): passive weights
      if (!a) return;
      c.emit(s.n % 2 ? `const ${name} = new Int16Array(${a.name});` : `const ${name} = Uint8Array.from(${a.name});`);
      flow(`${name}[0] * 0.01 * ${a.name}[${a.len - 1}]`);
      return;
    }
    case 3: {
      const n = a ? a.len : 1 + (s.n % 4);
      c.emit(`const ${name} = new Float32Array(${n});`);
      if (c.fround && a) loopOver(`${n}`, n, `${name}[${j}] = Math.fround(${squash(s.q, `${a.name}[${j}] * ${renderExpr(c, s.e)}`, false)});`);
      else loopOver(`${n}`, n, `${name}[${j}] = ${j} * ${lit(LITS[s.q % 4])};`);
      flow(a ? `${name}[${n - 1}] * ${a.name}[0] + ${name}[0]` : `${name}[${n - 1}] * ${renderExpr(c, s.e)}`);
      return;
    }
    default: {
      // a float32 copy: of an array (fround programs), else of literals float32 represents exactly
      // (read through Math.fround, the identity on a float32, which marks the program's tangent unchecked)
      if (c.fround && a) {
        c.emit(`const ${name} = ${s.n % 2 ? 'new Float32Array' : 'Float32Array.from'}(${a.name});`);
        flow(`Math.fround(${name}[0]) * ${a.name}[${a.len - 1}]`);
        return;
      }
      c.emit(`const ${name} = ${s.n % 2 ? 'new Float32Array' : 'Float32Array.from'}([${lit(LITS[s.q % 4])}, ${lit(LITS[(s.q + 1) % 4])}]);`);
      flow(a ? `${name}[0] * ${a.name}[0]` : `${name}[1] * ${renderExpr(c, s.e)}`);
      return;
    }
  }
}

/** The rest-element forms (RestSpec), each in its loop context, in a scope of their own; returns the
 * number their values flow into. */
function renderRests(c: Ctx, specs: RestSpec[]): string {
  const acc = c.fresh('rs');
  c.emit(`let ${acc} = 0;`);
  c.scoped(() => {
    for (const s of specs) {
      const body = () => renderRest(c, s, acc);
      if (s.loop % 4 === 3 && c.loopDepth + 2 <= MAX_LOOP_DEPTH) ownLoop(c, 1, 2, () => ownLoop(c, 2, 2, body));
      else ownLoop(c, s.loop % 4, 2, body);
    }
  });
  return acc;
}

function renderRest(c: Ctx, s: RestSpec, acc: string): void {
  const head = c.fresh('h');
  const rest = c.fresh('r');
  const value = () => squash(s.q, renderExpr(c, s.e), false);
  const flow = (e: string) => c.emit(`${acc} = Math.tanh(${acc} + ${e});`);
  switch (s.kind % 3) {
    case 0: {
      const a = pick(c.arrs.filter((x) => !x.tup && x.len >= 2), s.s);
      const src = a ? a.name : `[${value()}, ${lit(LITS[s.q % LITS.length])}, 0.5]`;
      const len = a ? a.len : 3;
      c.emit(`const [${head}, ...${rest}] = ${src};`);
      // the rest is a fresh array: writing it leaves the source as it was
      c.emit(`${rest}[${(s.s % (len - 1))}] = ${squash(s.q + 1, `${head} * ${rest}[0]`, false)};`);
      flow(`${head} * ${rest}[${len - 2}] + ${rest}[0]`);
      return;
    }
    case 1: {
      const m = pick(c.mats.filter((x) => x.rows >= 2), s.s);
      const src = m ? m.name : `[[${value()}, 1], [0.5, ${lit(LITS[s.q % LITS.length])}]]`;
      const rows = m ? m.rows : 2, cols = m ? m.cols : 2;
      c.emit(`const [${head}, ...${rest}] = ${src};`);
      // its rows are the matrix's rows (a shallow copy): a write through it is a write into the matrix
      c.emit(`${rest}[${rows - 2}][${s.s % cols}] = ${squash(s.q + 1, `${head}[0] * ${rest}[0][${cols - 1}]`, false)};`);
      flow(`${head}[${cols - 1}] * ${rest}[${rows - 2}][0]`);
      return;
    }
    default: {
      const t = c.fresh('tp');
      c.emit(`const ${t}: [number, number, number] = [${value()}, ${lit(LITS[s.q % LITS.length])}, ${lit(LITS[s.s % LITS.length])}];`);
      c.emit(`let [${head}, ...${rest}] = ${t};`);
      c.emit(`${rest}[${s.s % 2}] = ${squash(s.q + 1, `${head} + ${rest}[1]`, false)};`);
      flow(`${head} * ${rest}[0] - ${rest}[1]`);
      return;
    }
  }
}

/** The object-rest forms (ObjRestSpec), each in its loop context, in a scope of their own; returns the
 * number their values flow into. */
function renderObjRests(c: Ctx, specs: ObjRestSpec[]): string {
  const acc = c.fresh('or');
  c.emit(`let ${acc} = 0;`);
  c.scoped(() => {
    for (const s of specs) {
      const body = () => renderObjRest(c, s, acc);
      if (s.loop % 4 === 3 && c.loopDepth + 2 <= MAX_LOOP_DEPTH) ownLoop(c, 1, 2, () => ownLoop(c, 2, 2, body));
      else ownLoop(c, s.loop % 4, 2, body);
    }
  });
  return acc;
}

function renderObjRest(c: Ctx, s: ObjRestSpec, acc: string): void {
  const head = c.fresh('h');
  const rest = c.fresh('r');
  const value = () => squash(s.q, renderExpr(c, s.e), false);
  const flow = (e: string) => c.emit(`${acc} = Math.tanh(${acc} + ${e});`);
  if (s.kind % 2 === 0) {
    const o = pick(c.objs, s.s);
    const src = o ?? c.fresh('o');
    if (!o) c.emit(`const ${src}: P = { u: ${value()}, v: ${lit(LITS[s.q % LITS.length])}, w: 0.5 };`);
    const [f0, f1, f2] = [FIELDS[s.s % 3], FIELDS[(s.s + 1) % 3], FIELDS[(s.s + 2) % 3]];
    // (P's optional z is taken out by name: a rest holding an optional field is refused)
    const z = c.fresh('z');
    c.emit(`const { ${f0}: ${head}, z: ${z}, ...${rest} } = ${src};`);
    c.nums.push({ name: `(${z} ?? 0.25)`, w: false });
    // a fresh object: its fields are copies
    c.emit(`${rest}.${f1} = ${squash(s.q + 1, `${head} * ${rest}.${f2}`, false)};`);
    flow(`${head} * ${rest}.${f1} + ${src}.${f1} - ${rest}.${f2}`);
    return;
  }
  const src = c.fresh('o');
  c.emit(`const ${src}: Q = { a: [${value()}, ${lit(LITS[s.q % LITS.length])}], s: ${lit(LITS[s.s % LITS.length])} };`);
  c.emit(`const { s: ${head}, ...${rest} } = ${src};`);
  // the rest's array is the source's
  c.emit(`${rest}.a[${s.s % 2}] = ${squash(s.q + 1, `${head} * ${rest}.a[${(s.s + 1) % 2}]`, false)};`);
  flow(`${head} * ${src}.a[${s.s % 2}] + ${rest}.a[0]`);
}

/** The typed-array `set` forms (TypedSetSpec), each in its loop context, in a scope of their own; returns
 * the number their values flow into. */
function renderTypedSets(c: Ctx, specs: TypedSetSpec[]): string {
  const acc = c.fresh('ts');
  c.emit(`let ${acc} = 0;`);
  c.scoped(() => {
    for (const s of specs) {
      const body = () => renderTypedSet(c, s, acc);
      if (s.loop % 4 === 3 && c.loopDepth + 2 <= MAX_LOOP_DEPTH) ownLoop(c, 1, 2, () => ownLoop(c, 2, 2, body));
      else ownLoop(c, s.loop % 4, 2, body);
    }
  });
  return acc;
}

function renderTypedSet(c: Ctx, s: TypedSetSpec, acc: string): void {
  const t = c.fresh('t');
  // float32 stores make divided differences noise: active values go into a Float32Array only in programs
  // marked `fround`, whose reads through Math.fround skip the tangent check (as TypedArraySpec's)
  const f32 = s.f32 && c.fround;
  c.emit(`const ${t} = new ${f32 ? 'Float32Array' : 'Float64Array'}(4);`);
  c.emit(`${t}.fill(${lit(LITS[s.q % LITS.length])});`);
  // a loop index below 2 (the innermost loop's: 0 or 1) or a literal: a source of length ≤ 2 fits at it
  const k = c.ints.length && c.loopDepth > 0 ? c.ints[c.ints.length - 1] : null;
  const at = k && k.U <= 2 && s.s % 2 === 0 ? k.name : String(s.s % 3);
  switch (s.form % 3) {
    case 0:
      c.emit(`${t}.set([${squash(s.q, renderExpr(c, s.e), false)}, ${lit(LITS[s.s % LITS.length])}], ${at});`);
      break;
    case 1: {
      const a = pick(c.arrs.filter((x) => !x.tup && x.len >= 2), s.s);
      const src = c.fresh('src');
      if (a) {
        c.emit(`const ${src} = ${a.name}.slice(0, 2);`);
        c.emit(`${t}.set(${src}, ${at});`);
      } else c.emit(`${t}.set([${squash(s.q, renderExpr(c, s.e), false)}], ${at});`);
      break;
    }
    default:
      c.emit(`${t}[0] = ${squash(s.q, renderExpr(c, s.e), false)};`);
      // the view shares the array's storage: JavaScript copies it as if through a buffer
      c.emit(`${t}.set(${t}.subarray(0, 2), ${at === '0' ? '1' : at});`);
  }
  c.emit(`${acc} = Math.tanh(${acc} + ${f32 ? `Math.fround(${t}[0])` : `${t}[0]`} * ${t}[3] + ${t}[1] - ${t}[2]);`);
}

/** Renders a ClassSpec at the end of the head; returns the name of the number its values flow into. */
function renderClasses(c: Ctx, x: ClassSpec): string {
  const cl = c.fresh('cl');
  c.emit(`let ${cl} = 0;`);
  const body = () => {
    const [b, d, s] = [c.fresh('bd'), c.fresh('bd'), c.fresh('bs')];
    c.emit(`const ${b} = new Body(${squash(x.q, renderExpr(c, x.e), false)}, 0.75);`);
    c.emit(`${b}.speed = ${renderExpr(c, x.e2)};`, x.q % 5 === 2 ? `${b}.nudge(${cl}).nudge(0.5).step(0.25);` : `${b}.step(0.25);`);
    // (half of the `+=` ones call a method on the right: the getter then runs first, into a name)
    if (x.q % 5 === 4) c.emit(x.q % 2 ? `${b}.x += ${cl} * ${x.q % 4 === 1 ? `${b}.scaled(0.5).pos` : `${b}.vel`};` : `${b}.x++;`);
    c.emit(`const ${d} = ${x.q % 2 ? `${b}.scaled(0.5)` : `Body.at(${b}.pos + ${cl})`};`);
    if (x.arr) {
      c.emit(`const ${s}: Body[] = [${b}, ${d}];`, `${s}[1].step(0.5);`, `${cl} = Math.tanh(${cl} + ${s}[0].energy - ${s}[1].pos);`);
    } else c.emit(`${d}.step(0.5);`, `${cl} = Math.tanh(${cl} + ${b}.energy * ${d}.energy);`);
    c.emit(`${d}.push(${cl});`);
    const xs = pick(c.arrs.filter((a) => !a.f64 && !a.row && !a.tup), x.q);
    if (xs) c.emit(`${cl} = Math.tanh(${cl} + ${d}.weigh(${xs.name}) * ${d}.pos);`);
    // subclasses: a constructor calling super(…) and a method calling super.step, or the implicit constructor
    const sub = c.fresh('bd');
    if (x.q % 4 >= 2) c.emit(`const ${sub} = new Damped(${b}.vel, 0.5, 0.75${x.q % 8 >= 6 ? `, { lag: Math.tanh(${b}.pos) }` : ''});`, `${sub}.settle(0.25);`);
    else c.emit(`const ${sub} = new Drift(${d}.pos, 0.5);`, `${sub}.step(0.25);`);
    c.emit(`${cl} = Math.tanh(${cl} + ${sub}.energy + ${b}.kick(${cl}));`);
    if (x.q % 4 >= 2) c.emit(`${cl} = Math.tanh(${cl} + ${sub}.kick(${b}.vel));`);
    if (x.q % 3 === 0) {
      // scratch buffers started afresh by each call, in a sum over calls; a buffer carried between calls
      const [sc, ss, k, cr] = [c.fresh('sc'), c.fresh('ss'), c.fresh('k'), c.fresh('cr')];
      c.emit(`const ${sc} = new Scratchy([${b}.pos, ${cl}, 0.5]);`, `let ${ss} = ${sc}.score(${b}.vel);`);
      c.emit(`for (let ${k} = 0; ${k} < 3; ${k}++) ${ss} += ${sc}.score(${cl} + 0.25 * ${k});`);
      c.emit(`const ${cr} = new Carry(3);`, `${cl} = Math.tanh(${cl} + ${ss} + ${cr}.feed(${b}.pos) * ${cr}.feed(${cl}));`);
    }
    if (x.q % 3 === 2) {
      // the functions of a namespace object, called by its name
      const ks = c.fresh('ks');
      c.emit(`const ${ks} = [${b}.pos, ${cl}, 0.5];`, `kin.axpy(${ks}, ${b}.vel, [${cl}, 0.25, ${b}.pos]);`, `${cl} = Math.tanh(${cl} + kin.smooth(${b}.pos, ${ks}[1]) * kin.mid(${ks}));`);
      c.emit(`${cl} = Math.tanh(${cl} + kin.twice((u) => Math.tanh(u * ${ks}[2]), ${b}.pos));`);
    }
    if (x.q % 3 === 1) {
      // an array written, then kept by an instance and read through it
      const [cs, p] = [c.fresh('cs'), c.fresh('py')];
      c.emit(`const ${cs} = [${b}.pos, ${cl}, 0.5];`, `${cs}[2] = ${cs}[0] * ${squash(x.q + 1, renderExpr(c, x.e2), false)};`, `addBoth(${cs}, ${cs}, ${b}.vel);`, `const ${p} = new Poly(${cs});`, `${cl} = Math.tanh(${cl} + ${p}.at(0.5) + ${p}.cs[1]);`);
      // a fresh array handed to a constructor, then written and read through the instance only
      const p2 = c.fresh('py');
      c.emit(`const ${p2} = new Poly([0.5, ${cl}, 0.25]);`, `${p2}.cs[0] = ${p2}.cs[1] * ${squash(x.q + 2, renderExpr(c, x.e), false)};`, `${cl} = Math.tanh(${cl} + ${p2}.at(0.25));`);
      // (a getter returning the array field, stored into by the caller: the instance's own array)
      const cs2 = c.fresh('cs');
      c.emit(`const ${cs2} = ${p2}.coefs;`, `${cs2}[2] = ${cs2}[0] * ${cl};`, `${cl} = Math.tanh(${cl} + ${p2}.at(0.5));`);
      const src = pick(c.arrs.filter((a) => !a.f64 && !a.row && !a.tup && !a.ro), x.q + 2);
      if (src) {
        const ys = c.fresh('ys');
        // (a copy: the program may store into the array later, which tsad refuses after such a call)
        c.emit(`const ${ys} = ${p}.through(${src.name}.slice());`, `${cl} = Math.tanh(${cl} + ${ys}[0] * ${ys}[${ys}.length - 1]);`);
      }
    }
  };
  c.scoped(() => {
    if (x.loop % 4 === 3 && c.loopDepth + 2 <= MAX_LOOP_DEPTH) ownLoop(c, 1, 2, () => ownLoop(c, 2, 2, body));
    else ownLoop(c, x.loop % 4, 2, body);
  });
  return cl;
}

/** Renders a CustomSpec at the end of the head; returns the name of the number its values flow into. */
function renderCustoms(c: Ctx, x: CustomSpec): string {
  const cu = c.fresh('cu');
  c.emit(`let ${cu} = 0;`);
  const body = () => {
    // plain number arrays in scope (the rules take number[]), written afterwards only when writable
    const arrs = c.arrs.filter((a) => !a.f64 && !a.tup && !a.ro);
    const a = pick(arrs, x.s);
    const b = pick(arrs, x.s + x.q) ?? a;
    const u = squash(x.q, renderExpr(c, x.e), false);
    if (x.form % 2 === 1 && a && b) {
      c.emit(`${cu} = Math.tanh(${cu} + cdDot(${a.name}, ${b.name}) * ${u});`);
      if (x.w) c.emit(`${a.name}[${x.s % a.len}] = Math.tanh(${a.name}[${x.s % a.len}] + ${cu});`);
    } else c.emit(`${cu} = Math.tanh(${cu} + cdSoftplus(${u}, 0.75 + 0.25 * Math.tanh(${renderExpr(c, x.e2)})));`);
    const r = a ?? b;
    c.emit(`${cu} = ${cu} + ${r ? `cdRank(${r.name}, ${cu})` : `cdRank([${cu}, 0.5], ${u})`} * ${cu};`);
  };
  c.scoped(() => {
    if (x.loop % 4 === 3 && c.loopDepth + 2 <= MAX_LOOP_DEPTH) ownLoop(c, 1, 2, () => ownLoop(c, 2, 2, body));
    else ownLoop(c, x.loop % 4, 2, body);
  });
  return cu;
}

/** The TypeScript spellings (TsFormSpec), each in its loop context, in a scope of their own; returns the number their values flow into. */
function renderTsForms(c: Ctx, specs: TsFormSpec[]): string {
  const acc = c.fresh('tf');
  c.emit(`let ${acc} = 0;`);
  c.scoped(() => {
    for (const s of specs) {
      const body = () => renderTsForm(c, s, acc);
      if (s.loop % 4 === 3 && c.loopDepth + 2 <= MAX_LOOP_DEPTH) ownLoop(c, 1, 2, () => ownLoop(c, 2, 2, body));
      else ownLoop(c, s.loop % 4, 2, body);
    }
  });
  return acc;
}

function renderTsForm(c: Ctx, s: TsFormSpec, acc: string): void {
  const value = () => squash(s.q, renderExpr(c, s.e), false);
  const flow = (e: string) => c.emit(`${acc} = Math.tanh(${acc} + ${e});`);
  // the innermost counter (a passive integer), or a constant one
  const counter = (): string => {
    const k = c.ints[c.ints.length - 1];
    if (k) return k.name;
    const n = c.fresh('n');
    c.emit(`const ${n}: number = ${2 + (s.s % 3)};`);
    return n;
  };
  switch (s.form % 8) {
    case 0: {
      c.needsTsForms = true;
      const sp = c.fresh('sp'), pr = c.fresh('pr'), sc = c.fresh('sc');
      const v = c.fresh('v');
      c.emit(`const ${v} = ${value()};`);
      c.emit(`const ${sp}: Span = spanOf(${v}, 0.25 + ${v} * ${v});`);
      c.emit(`const ${pr}: Pair = [${sp}.lo, ${sp}.hi];`);
      c.emit(`const ${sc}: Scaled = { u: ${pr}[1], v: ${lit(LITS[s.q % LITS.length])}, w: ${v}, k: 0.75 };`);
      flow(`${pr}[0] * ${pr}[1] - (${sp}.hi - ${sp}.lo) + 0.5 * scaledSum(${sc})`);
      return;
    }
    case 1: {
      c.needsTsForms = true;
      const v = c.fresh('v');
      c.emit(`const ${v} = ${value()};`);
      c.emit(`if (!Number.isFinite(${v})) throw new Error('f: a value is not finite');`);
      const a = pick(c.arrs.filter((x) => !x.tup), s.s);
      if (a) c.emit(`if (${a.name}.length === 0) throw new RangeError('f: an empty array');`);
      const sp = c.fresh('sp');
      c.emit(`const ${sp} = spanOf(${v}, ${a ? `${a.name}.length` : '1'});`);
      flow(`${sp}.lo * ${sp}.hi`);
      return;
    }
    case 2: {
      const o = pick(c.opts, s.s);
      const v = c.fresh('v');
      c.emit(`const ${v} = ${value()};`);
      if (o) flow(`(${o.name} == null ? ${v} : ${o.name} * ${v})`);
      const k = counter();
      flow(`(${k} != 1 ? ${v} : 0.5 * ${v}) + (${k} == 0 ? 0.25 : 0)`);
      return;
    }
    case 3: {
      const v = c.fresh('v'), o = c.fresh('o');
      c.emit(`const ${v} = (${value()}) as number;`);
      c.emit(`const ${o} = { u: ${v}, v: ${lit(LITS[s.q % LITS.length])}, w: 0.5 } satisfies P;`);
      flow(`<number>${o}.u * ${o}.v + ${o}.w * ${v}`);
      return;
    }
    case 4: {
      const k = counter();
      const m = c.fresh('m'), v = c.fresh('v');
      c.emit(`let ${m} = ${k} << 1;`);
      c.emit(`${m} |= ${k} & 1;`, `${m} ^= 2;`, `${m} &= 7;`, `${m} <<= 1;`, `${m} >>= 1;`, `${m} >>>= 0;`);
      c.emit(`const ${v} = ${value()};`);
      const a = pick(c.arrs.filter((x) => !x.tup), s.s);
      const read = a ? `${a.name}[(${k} ^ 1) % ${a.name}.length]` : '0.5';
      flow(`((${k} & 1) === 0 ? ${v} : ${read}) + 0.125 * (~${m} & 3) + 0.0625 * (${m} >>> 1)`);
      return;
    }
    case 5: {
      const v = c.fresh('v');
      c.emit(`const ${v} = ${value()};`);
      const k = counter();
      flow(
        `(Number.isFinite(${v}) ? Math.min(${v}, Number.MAX_VALUE) : 0) + (Number.isNaN(${v}) ? 0 : Math.max(0.5 * ${v}, Number.NEGATIVE_INFINITY))` +
          ` + (Number.isInteger(${k}) ? 0.25 : 0) * Math.max(${v}, Number.MIN_VALUE)`,
      );
      return;
    }
    case 6: {
      const o = c.fresh('o');
      c.emit(`const ${o}: P = { u: ${value()}, v: ${lit(LITS[s.q % LITS.length])}, w: 0.25 };`);
      c.emit(`${o}['v'] = Math.tanh(${o}['u'] * 2 + ${o}.w);`);
      const p = pick(c.objs, s.s);
      flow(`${o}['v'] * ${o}.w${p ? ` + ${p}['w'] * ${o}['u']` : ''}`);
      return;
    }
    default: {
      const k = counter();
      const t = c.fresh('t'), w = c.fresh('cl'), big = c.fresh('u');
      c.emit(`const ${t} = new Uint16Array(4);`);
      const j = c.fresh('j');
      c.emit(`for (let ${j} = 0; ${j} < 4; ${j}++) ${t}[${j}] = (${j} * 3 + ${k}) % 4;`);
      c.emit(`const ${w} = Uint8ClampedArray.from([300, -5, 2.5]);`);
      c.emit(`const ${big} = new Uint32Array([7, ${k}]);`);
      const a = pick(c.arrs.filter((x) => !x.tup), s.s);
      const read = a ? `${a.name}[${t}[${k} % 4] % ${a.name}.length]` : value();
      flow(`${read} * (0.001 * ${w}[0] + 0.01 * ${w}[2]) + 0.125 * (${big}[1] % 2)`);
    }
  }
}

/** The descent helper (DescentSpec): `gd(r, x, y, c)`, a loop of gradient steps whose iterations the data decide. */
export function DESCENT_BODY(x: DescentSpec): string[] {
  const red = [
    (w: string) => `2 * x[i] * (y[i] - x[i] * ${w})`,
    (w: string) => `x[i] * ${w} - y[i]`,
    (w: string) => `(x[i] + 0.5) * (1 - ${w} * y[i]) / 3`,
    (w: string) => `x[i] * (x[i] * ${w} + y[i]) - 0.25 * ${w}`,
  ][x.body % 4];
  const test = x.test % 5;
  const L: string[] = ['export function gdDescent(r: number, x: number[], y: number[], c: number): number {', '  const M = Math.min(x.length, y.length);', '  let w = 0;'];
  if (test === 4) L.push('  let d0 = 0;', `  for (let i = 0; i < M; i++) d0 += ${red('0')};`, '  d0 = d0 / M;');
  if (x.form % 4 === 2) L.push('  let g = 1;');
  if (x.form % 4 !== 1) L.push('  let k = 0;');
  const cap = x.cap;
  L.push(
    x.form % 4 === 0 ? `  while (k < ${cap}) {` : x.form % 4 === 1 ? `  for (let k = 0; k < ${cap}; k++) {` : x.form % 4 === 2 ? '  do {' : `  while (k < ${cap} && w > -8) {`,
  );
  if (x.form % 4 !== 1) L.push('    k++;');
  L.push('    let d = 0;', `    for (let i = 0; i < M; i++) d += ${red('w')};`, '    d = d / M;');
  if (test === 0) L.push('    if (d < c) break;');
  else if (test === 1) L.push('    if (Math.abs(d) < c) break;');
  else if (test === 2) L.push('    if (d > c) break;');
  else if (test === 4) L.push('    if (d <= d0) break;');
  if (x.form % 4 === 2) L.push('    g = d;');
  L.push('    w = w - r * d;');
  L.push(x.form % 4 === 2 ? `  } while (k < ${cap} && Math.abs(g) > c);` : '  }');
  L.push('  let e = 0;', '  for (let j = 0; j < M; j++) e += (y[j] - x[j] * w) * (y[j] - x[j] * w);', '  return e / M;', '}', '');
  return L;
}

/** The head's call of the descent helper: the rate from its numbers, constant data (passive), in its loop context; returns the number its values flow into. */
function renderDescent(c: Ctx, x: DescentSpec): string {
  const gd = c.fresh('gdv');
  c.emit(`let ${gd} = 0;`);
  const r = rng(x.n * 7 + x.cap);
  const data = (f: (v: number) => number) => Array.from({ length: x.n }, () => f(Math.round((r() * 2 - 1) * 100) / 100));
  const xs = data((v) => v), ys = xs.map((v, k) => Math.round((v * [1.5, -0.5, 2, 0.25][x.body % 4] + 0.1 * ((k % 3) - 1)) * 100) / 100);
  const gx = c.fresh('gx'), gy = c.fresh('gy');
  c.emit(`const ${gx} = [${xs.join(', ')}];`, `const ${gy} = [${ys.join(', ')}];`);
  const rate = [0.05, -0.05, 0.2, -0.3][x.rate % 4];
  const thr = [0.001, 0.05, -0.01, 0.3][x.thr % 4];
  c.scoped(() =>
    ownLoop(c, x.loop % 3, 2, () => {
      c.emit(`${gd} = ${gd} + gdDescent(${lit(rate)} * (1 + 0.25 * Math.tanh(${renderExpr(c, x.e)})), ${gx}, ${gy}, ${lit(thr)});`);
    }),
  );
  return gd;
}

/** The array methods with callbacks, each in its loop context, in a scope of their own; returns the number their values flow into. */
function renderCallbacks(c: Ctx, specs: CallbackSpec[]): string {
  const acc = c.fresh('cb');
  c.emit(`let ${acc} = 0;`);
  c.scoped(() => {
    for (const s of specs) {
      const body = () => renderCallback(c, s, acc);
      if (s.loop % 4 === 3 && c.loopDepth + 2 <= MAX_LOOP_DEPTH) ownLoop(c, 1, 2, () => ownLoop(c, 2, 2, body));
      else ownLoop(c, s.loop % 4, 2, body);
    }
  });
  return acc;
}

/** One array method with a callback over an array in scope; what it computes flows into `acc`. */
function renderCallback(c: Ctx, s: CallbackSpec, acc: string): void {
  // (map, reduce and some/every walk tuples of numbers too)
  const overTuples = [0, 3, 6].includes(s.form % 10) && s.q % 5 === 4;
  const a = pick(c.arrs.filter((x) => (overTuples ? x.tup : !x.tup) && (s.form % 10 !== 8 || !x.f64)), s.s);
  if (!a) return;
  const x = c.fresh('x'), i = c.fresh('i');
  // the callback's value reads its element (a closure also reads what the head has in scope)
  let e = '';
  c.scoped(() => {
    c.nums.push({ name: x, w: false });
    e = renderExpr(c, s.e);
  });
  const value = squash(s.q, `${x} * ${e}`, false);
  const lim = LITS[s.v % LITS.length];
  const t = c.fresh('t');
  const fold = (arr: string) => `${acc} = Math.tanh(${acc} + ${arr}.reduce((s, y) => s + y, 0));`;
  switch (s.form % 10) {
    case 0:
      // (a quarter of them map a one-argument Math function, `xs.map(Math.tanh)`, first)
      if (s.v % 4 === 3) c.emit(`const ${t} = ${a.name}.map(Math.${['tanh', 'atan', 'sin', 'cbrt'][s.q % 4]}).map((${x}, ${i}) => ${value} + 0.125 * ${i});`, fold(t));
      // (or chosen by a test against an empty list, which TypeScript types `never[]`; a Float64Array's
      // map beside it would make a union whose methods TypeScript cannot call)
      else if (s.v % 8 === 5 && !a.f64 && !a.tup) c.emit(`const ${t} = ${acc} < 0.5 ? ${a.name}.map((${x}, ${i}) => ${value} + 0.125 * ${i}) : [];`, fold(t));
      else c.emit(`const ${t} = ${a.name}.map((${x}, ${i}) => ${value} + 0.125 * ${i});`, fold(t));
      return;
    case 1: {
      // (or rows from a helper that returns one of the matrix's rows or a fresh one, only read afterwards)
      // (of a matrix of its own: one the head writes later is rightly refused, the stores could reach the result)
      if (s.v % 4 === 1 && !c.helper) {
        const m = c.fresh('rows');
        c.needsRowPick = true;
        c.emit(`const ${m}: number[][] = [[Math.tanh(${acc}), ${a.name}[0]], [0.25, ${acc} * ${a.name}[${a.len - 1}]]];`);
        c.emit(`const ${t} = Array.from({ length: 2 }, (_, k) => rowOrScaled(${m}, Math.tanh(${acc}) + k));`, `${acc} = Math.tanh(${acc} + ${t}[0][0] * ${t}[1][1]);`);
        return;
      }
      c.emit(`const ${t} = Array.from(${a.name}, (${x}) => ${value});`, `${acc} = Math.tanh(${acc} + ${t}[0] * ${t}[${a.len - 1}]);`);
      return;
    }
    case 2: {
      // over the rows of a matrix: the outer callback's expression body is the inner forEach
      const m = s.v % 4 >= 2 ? pick(c.mats, s.s) : undefined;
      // (one in two of those destructure the row's first two elements in the parameter)
      if (m && s.q % 2 && m.cols >= 2) c.emit(`${m.name}.forEach(([${x}, ${t}], ${i}) => {`, `  ${acc} = Math.tanh(${acc} + ${value} * (${i} + 1) - 0.25 * ${t});`, '});');
      else if (m) c.emit(`${m.name}.forEach((${t}, ${i}) => ${t}.forEach((${x}) => {`, `  ${acc} = Math.tanh(${acc} + ${value} * (${i} + 1));`, '}));');
      else c.emit(`${a.name}.forEach((${x}, ${i}) => {`, `  if (${i} % 2 === ${s.v % 2}) return;`, `  ${acc} = Math.tanh(${acc} + ${value});`, '});');
      return;
    }
    case 3: {
      // (one in four chosen by a test: a declaration whose branch holds the method becomes an `if`)
      if (s.v % 4 === 2) c.emit(`const ${t} = ${acc} > 0.25 ? ${a.name}.reduce((s, ${x}, ${i}) => s + ${value} * ${i}, 0.5) : 0.5 * ${acc};`, `${acc} = Math.tanh(${acc} + ${t});`);
      // (and one in eight inside a larger expression: the conditional becomes an `if` before the statement)
      else if (s.v % 8 === 6) c.emit(`${acc} = Math.tanh(${acc} + 0.5 * (${acc} < 0.25 ? 0.5 * ${acc} : ${a.name}.reduce((s, ${x}, ${i}) => s + ${value} * ${i}, 0.5)));`);
      else c.emit(s.v % 2 ? `${acc} = Math.tanh(${acc} + ${a.name}.map((${x}) => ${value}).reduce((s, y) => s + y * y, 0));` : `${acc} = Math.tanh(${acc} + ${a.name}.reduce((s, ${x}, ${i}) => s + ${value} * ${i}, 0.5));`);
      // and a max scan (`m = c ? e : m`, which becomes a branch: a selection loop in reverse) or a min scan (`m = c ? m : e`)
      // (the scan's accumulator gets a fresh name: the element's expression may read a matrix `m`)
      const mx = c.fresh('mx');
      c.emit(s.v % 3 === 0 ? `${acc} = Math.tanh(${acc} + ${a.name}.map((${x}) => ${value}).reduce((${mx}, y) => (y > ${mx} ? y : ${mx})));` : `${acc} = Math.tanh(${acc} + ${a.name}.reduce((${mx}, ${x}) => (${value} < ${mx} ? ${mx} : ${value}), ${acc}));`);
      // and a nearest-row scan over a matrix's rows, each row bound by `for…of` (a selection loop whose
      // re-run iteration binds the row and its shadow)
      const rows = s.q % 3 === 2 ? pick(c.mats, s.s) : undefined;
      if (rows) {
        const best = c.fresh('best'), r = c.fresh('r'), d = c.fresh('d');
        c.emit(`let ${best} = Infinity;`, `for (const ${r} of ${rows.name}) {`, `  const ${d} = (${r}[0] - 0.5 * ${acc}) ** 2 + ${r}[${rows.cols - 1}] * ${r}[0];`, `  if (${d} < ${best}) ${best} = ${d};`, '}', `${acc} = Math.tanh(${acc} + ${best});`);
      }
      return;
    }
    case 4: {
      // (one in three after a call that writes the array, in the same expression: JavaScript calls it first)
      const w = s.q % 3 === 1 ? pick(writable(c).filter((y) => y.name === a.name && !y.tup && !y.f64 && !y.ro), 0) : undefined;
      if (w) c.needsRestHelpers = true;
      c.emit(`const ${t} = ${w ? `bumpFirst(${w.name}) * ` : ''}${a.name}.${s.v % 2 ? 'reduceRight' : 'reduce'}((s, ${x}) => 0.5 * s + ${value});`, `${acc} = Math.tanh(${acc} + ${t});`);
      return;
    }
    case 5:
      c.emit(`const ${t} = ${a.name}.filter((${x}) => ${x} > ${lit(lim)});`, fold(t));
      return;
    case 6: {
      // (half of them behind a test of `||` or `&&`: the method runs only where that operand is evaluated)
      const guard = s.q % 4 === 1 ? `${acc} > 0.5 || ` : s.q % 4 === 3 ? `${acc} < 0.75 && ` : '';
      c.emit(`if (${guard}${a.name}.${s.v % 2 ? 'some' : 'every'}((${x}) => ${value} < ${lit(lim)})) {`, `  ${acc} = Math.tanh(${acc} + ${a.name}[0]);`, '}');
      return;
    }
    case 7: {
      // `find` whose callback passes an array to a helper that may write it is refused (the element is read after the loop): findIndex then
      // (one that passes it to a `const` arrow only reading it is taken)
      const reader = s.v % 4 === 3 && !a.f64 && !a.tup ? c.fresh('ends') : null;
      // (a third of them ES2023's search from the end, `findLast`/`findLastIndex`)
      const last = s.q % 3 === 2 ? 'Last' : '';
      if (reader && !/\bg\d+\(/.test(value))
        c.emit(`const ${reader} = (v: readonly number[]): number => 0.5 * v[0] + 0.25 * v[v.length - 1];`, `${acc} = Math.tanh(${acc} + (${a.name}.find((${x}) => ${reader}(${a.name}) * ${value} > ${lit(lim)}) ?? 0.5));`);
      else if (s.v % 2 && !/\bg\d+\(/.test(value)) c.emit(`${acc} = Math.tanh(${acc} + (${a.name}.find${last}((${x}) => ${value} > ${lit(lim)}) ?? 0.5));`);
      else c.emit(`const ${t} = ${a.name}.find${last}Index((${x}) => ${value} > ${lit(lim)});`, `if (${t} >= 0) {`, `  ${acc} = Math.tanh(${acc} + ${a.name}[${t}] * ${t});`, '}');
      return;
    }
    case 8:
      c.emit(`const ${t} = ${a.name}.flatMap((${x}) => [${x}, ${value}]);`, fold(t));
      return;
    default: {
      const f = c.fresh('f');
      c.emit(`const ${f} = (${x}: number) => ${value};`, `const ${t} = ${a.name}.map(${f});`, fold(t));
      return;
    }
  }
}

/** the helpers taking functions that closure forms 4 and 5 pass functions to (declared when used) */
const CLOSURE_HELPERS = [
  'function twice(g: (v: number) => number, v: number): number {',
  '  return 0.5 * g(g(v) * 0.5);',
  '}',
  // a function passed on inside a closure of its own (two levels deep: `twice__lambda` calling g)
  'function damped(g: (v: number) => number, v: number): number {',
  '  return twice((u) => 0.75 * g(u) + 0.25 * u, v);',
  '}',
  'function euler(rhs: (s: number[]) => number[], s0: number[], h: number, n: number = 2): number[] {',
  '  let s = s0.slice();',
  '  for (let k = 0; k < n; k++) {',
  '    const d = rhs(s);',
  '    s = s.map((v, i) => v + h * d[i]);',
  '  }',
  '  return s;',
  '}',
  'function decayRhs(s: number[]): number[] {',
  '  return s.map((v) => -0.5 * v);',
  '}',
  // a factory: what it computes before its `return` runs once, the closure reads it (`fn.factory`)
  'function makeBlend(w: number, xs: readonly number[]) {',
  '  const base = 0.5 * w;',
  '  let tot = 0;',
  '  for (const x of xs) tot += x;',
  '  return (v: number): number => base * v + 0.125 * Math.tanh(tot) * w;',
  '}',
  '',
];

/** the helper callback form 1 calls in Array.from: a row of its matrix, or a fresh one (declared when used) */
const ROW_PICK_HELPER = [
  'function rowOrScaled(rows: number[][], t: number): number[] {',
  '  if (t > 0.75) return rows[0];',
  '  return rows[1].map((v) => v * Math.tanh(t));',
  '}',
  '',
];

/** the helper a qobj's push calls in its argument: it rebinds the field the push is onto (declared when used) */
const REGROW_HELPER = [
  'function regrow(q: Q, v: number): number {',
  '  q.a = [Math.tanh(v), 0.5 * q.a[0]];',
  '  return 0.25 * v;',
  '}',
  '',
];

/** the helpers with rest parameters that JsArraySpec form 12 calls (declared when used) */
const REST_HELPERS = [
  'function restSq(...xs: number[]): number {',
  '  let s = 0;',
  '  for (const x of xs) s += Math.tanh(x) * x;',
  '  return s + 0.125 * xs.length;',
  '}',
  'function restRows(w: number, ...rows: number[][]): number {',
  '  let s = 0;',
  '  for (const r of rows) s += w * r[0] * r[r.length - 1];',
  '  return s;',
  '}',
  'function bumpFirst(xs: number[]): number {',
  '  xs[0] = Math.tanh(1.5 * xs[0]);',
  '  return xs[0];',
  '}',
  '',
];

/** the helper returning a tuple of an array and a number that JsArraySpec form 17 calls (declared when used) */
const TUPLE_HELPERS = [
  'function splitFirst(xs: number[], s: number): [number[], number] {',
  '  return [[xs[0] * s, xs[xs.length - 1]], Math.sin(xs[0]) + s];',
  '}',
  '',
];

/** the function, method and static method JsArraySpec form 21 rebinds numbers with (declared when used) */
const REBIND_HELPERS = [
  'function relax(t: number, k: number): number {',
  '  return t - 0.25 * Math.sin(t * k);',
  '}',
  'class Damper {',
  '  c: number;',
  '  c2: number;',
  // a field computed from one the constructor assigned just before (`this.c2 = this.c * this.c`)
  '  constructor(c: number) {',
  '    this.c = c;',
  '    this.c2 = this.c * this.c;',
  '  }',
  '  apply(t: number): number {',
  '    return t * this.c + 0.1 * Math.sin(t) + 0.01 * this.c2 * t;',
  '  }',
  '  static halve(t: number): number {',
  '    return 0.5 * t + 0.1 * t * t;',
  '  }',
  '}',
  '',
];

/** a helper writing both rows it is given, called on two rows of one matrix (`exchange(M[0], M[1], v)`: a guard throws where they are one) */
const EXCHANGE_HELPER = [
  'function exchange(a: number[], b: number[], v: number): void {',
  '  const t = a[0];',
  '  a[0] = b[b.length - 1] * v + 0.5 * t;',
  '  b[b.length - 1] = t - 0.25 * a[0];',
  '}',
  '',
];

/** the helpers with optional booleans that JsArraySpec form 14 calls (declared when used) */
const FLAG_HELPERS = [
  'export interface Flags {',
  '  on?: boolean;',
  '  k?: number;',
  // an optional string-literal flag (passive, only tested)
  "  unit?: 'a' | 'b';",
  '}',
  "const SCALE: Record<'a' | 'b', number> = { a: 0.5, b: 2 };",
  'function scaledIf(x: number, on?: boolean): number {',
  '  return on ? 2 * Math.tanh(x) : x;',
  '}',
  'function flagged(x: number, fl: Flags): number {',
  '  const on = fl.on ?? false;',
  '  const both = fl.on && x > 0;',
  // the optional boolean read where a test has narrowed it (`fl.on === undefined ? true : fl.on`)
  '  const dflt = fl.on === undefined ? true : fl.on;',
  "  if (fl.unit === 'b') x = 0.5 * x;",
  // (an object indexed by a key typed by string literals: a module constant, and a local of active fields)
  '  const u = fl.unit;',
  '  const wts = { a: Math.sin(x), b: 0.5 * x };',
  '  if (u !== undefined) x = x * SCALE[u] + 0.25 * wts[u];',
  // (logical assignments: `||=` on a number and a boolean, `&&=`, `??=` on a nullable local)
  '  let kk = fl.k ?? 0;',
  '  kk ||= 0.5 * x;',
  '  let pos = false;',
  '  pos ||= x > 0;',
  '  kk &&= kk * (pos ? 1.5 : 0.75);',
  '  let mk: number | undefined = fl.k;',
  '  mk ??= 0.25 * x;',
  '  x = x + 0.125 * (kk + mk);',
  '  return (both ? x * (fl.k ?? 0.5) : Math.sin(x)) + (on === true ? 0.25 : 0) * x + (fl.on !== undefined ? 0.125 : 0) + (dflt ? 0.0625 * x : 0);',
  '}',
  '',
];

/** The closure forms, each in its loop context, in a scope of their own; returns the number their values flow into. */
function renderClosures(c: Ctx, specs: ClosureSpec[]): string {
  const acc = c.fresh('cl');
  c.emit(`let ${acc} = 0;`);
  c.scoped(() => {
    for (const s of specs) {
      const body = () => renderClosure(c, s, acc);
      if (s.loop % 4 === 3 && c.loopDepth + 2 <= MAX_LOOP_DEPTH) ownLoop(c, 1, 2, () => ownLoop(c, 2, 2, body));
      else ownLoop(c, s.loop % 4, 2, body);
    }
  });
  return acc;
}

/** One closure form over an array in scope (plain `number[]` where it is passed to a helper); what it computes flows into `acc`. */
function renderClosure(c: Ctx, s: ClosureSpec, acc: string): void {
  const form = s.form % 6;
  const a = pick(c.arrs.filter((x) => !x.tup && (form !== 5 || (!x.f64 && !x.ro && !x.row))), s.s);
  if (!a) return;
  const x = c.fresh('x');
  // the function's value reads its parameter and what the head has in scope
  let e = '';
  c.scoped(() => {
    c.nums.push({ name: x, w: false });
    e = renderExpr(c, s.e);
  });
  const value = squash(s.q, `${x} * ${e}`, false);
  const g = c.fresh('g');
  const lim = lit(LITS[s.v % LITS.length]);
  const last = `${a.name}[${a.len - 1}]`;
  switch (form) {
    case 0:
      // (every other one takes its argument as a pair, destructured in the parameter list)
      if (s.v % 3 === 0) {
        // one of two functions chosen by a test of the inputs, called twice (`fn.choice`)
        c.emit(`const ${g} = ${last} > ${lim} ? (${x}: number): number => ${value} : (${x}: number): number => 0.5 * ${x};`, `${acc} = Math.tanh(${acc} + ${g}(${last}) - 0.5 * ${g}(${lim}));`);
      } else if (s.v % 3 === 1) {
        const w = c.fresh('w');
        c.emit(`const ${g} = ([${x}, ${w}]: number[]): number => ${value} * ${w};`, `${acc} = Math.tanh(${acc} + ${g}([${last}, 0.5]) - 0.5 * ${g}([${lim}, ${last}]));`);
      } else if (s.v % 6 === 5) {
        // older JavaScript's function expression held by a `var`
        c.emit(`var ${g} = function (${x}: number): number {`, `  return ${value};`, '};', `${acc} = Math.tanh(${acc} + ${g}(${last}) - 0.5 * ${g}(${lim}));`);
      } else c.emit(`const ${g} = (${x}: number): number => ${value};`, `${acc} = Math.tanh(${acc} + ${g}(${last}) - 0.5 * ${g}(${lim}));`);
      return;
    case 1: {
      const v = c.fresh('v'), j = c.fresh('j'), t = c.fresh('t');
      // (every other one in the old style: each `var` where it is given a value)
      const [lt, cn] = s.v % 2 ? ['var', 'var'] : ['let', 'const'];
      c.emit(`${acc} = Math.tanh(${acc} + ${g}(${a.name}));`, `function ${g}(${v}: ${a.f64 ? 'Float64Array' : a.ro ? 'readonly number[]' : 'number[]'}): number {`, `  ${lt} ${t} = 0;`, `  for (${lt} ${j} = 0; ${j} < ${v}.length; ${j}++) {`,
        `    if (${t} > 4) return ${t};`, `    ${cn} ${x} = ${v}[${j}];`, `    ${t} += Math.tanh(${value});`, '  }', `  return ${t} * 0.5;`, '}');
      return;
    }
    case 2: {
      const tot = c.fresh('tot');
      // (every fourth one a `let` holding a function expression, never assigned again)
      const decl = s.v % 4 === 3 ? `let ${g} = function (${x}: number): void {` : `const ${g} = (${x}: number) => {`;
      c.emit(`let ${tot} = ${lim};`, decl, `  ${tot} = 0.5 * ${tot} + Math.tanh(${value});`, '};', `for (const ${x} of ${a.name}) ${g}(${x});`, `${g}(${tot});`, `${acc} = Math.tanh(${acc} + ${tot});`);
      return;
    }
    case 3: {
      const buf = c.fresh('buf'), j = c.fresh('j');
      c.emit(`const ${buf} = [0, ${lim}];`, `function ${g}(${x}: number, ${j}: number): void {`, `  ${buf}[${j} % 2] += Math.tanh(${value});`, '}',
        `for (let ${j} = 0; ${j} < ${a.name}.length; ${j}++) ${g}(${a.name}[${j}], ${j});`, `${acc} = Math.tanh(${acc} + ${buf}[0] - ${buf}[1]);`);
      return;
    }
    case 4:
      c.needsClosureHelpers = true;
      if (s.v % 2 === 1 && !a.f64) {
        // a closure a factory of the module returns, called twice
        c.emit(`const ${g} = makeBlend(${last}, ${a.name});`, `${acc} = Math.tanh(${acc} + ${g}(${last}) - 0.5 * ${g}(${lim}));`);
        return;
      }
      c.emit(`${acc} = Math.tanh(${acc} + ${s.v % 3 === 2 ? 'damped' : 'twice'}((${x}) => Math.tanh(${value}), ${last}));`);
      return;
    default: {
      c.needsClosureHelpers = true;
      const r = c.fresh('sN');
      // (one in two leaves the step count to its default)
      if (s.v % 2) c.emit(`const ${r} = euler(decayRhs, ${a.name}, 0.1${s.v % 4 === 1 ? '' : ', 2'});`);
      else {
        const st = c.fresh('st');
        // (a right-hand side that reads the array it is given as s0, through a helper that may write it,
        // would give euler's copy one array under two names: tsad refuses that, so s0 is then a copy)
        const base = c.baseOf(a.name);
        // (the base itself too: `const t2 = out` passed, `out` read in the right-hand side)
        const shared = [...c.base.keys(), a.name, base].some((n) => c.baseOf(n) === base && new RegExp(`\\b${n}\\b`).test(value));
        // (a third take the state apart in the parameter list: its first element and the rest)
        const rhs = s.v % 3 === 1 ? `([${st}0, ...${st}]: number[]): number[] => [-0.5 * ${st}0, ...${st}.map((${x}) => Math.tanh(${value}))]` : `(${st}: number[]): number[] => ${st}.map((${x}) => Math.tanh(${value}))`;
        c.emit(`const ${g} = ${rhs};`, `const ${r} = euler(${g}, ${a.name}${shared ? '.slice()' : ''}, 0.1, 2);`);
      }
      c.emit(`${acc} = Math.tanh(${acc} + ${r}[0]);`);
      return;
    }
  }
}

function ownLoop(c: Ctx, loop: number, n: number, body: () => void): void {
  const l = c.loopDepth >= MAX_LOOP_DEPTH ? 0 : loop % 3;
  if (l === 0) return body(); // (what it declares stays in scope)
  const k = c.fresh('k');
  if (l === 2) c.emit(`let ${k} = 0;`);
  c.emit(l === 1 ? `for (let ${k} = 0; ${k} < ${n}; ${k}++) {` : `while (${k} < ${n}) {`);
  c.block(() => {
    c.loopDepth++;
    if (l === 2) c.emit(`${k}++;`);
    c.ints.push({ name: k, U: l === 2 ? n + 1 : n });
    body();
    c.loopDepth--;
  });
  c.emit('}');
}

/**
 * A state variable rebound (the shape of an explicit integrator): `let s = [..]; for (…) s = [s[0] +
 * 0.1 * s[1], …]`, for number[], [number, number], P and number[][]; or rebound to a fresh literal, to
 * a copy of itself, or to another variable of its kind (then both names hold one value and writes go
 * through either). Some number[] states are rebound inside a `for…of` over themselves.
 */
function renderState(c: Ctx, s: Extract<Stmt, { k: 'state' }>): void {
  const kind = s.kind % 5;
  const name = c.fresh('st');
  const e = () => squash(s.q, renderExpr(c, s.e), false);
  // another variable of its kind to alias (never a read-only or typed array, never a row)
  const others: { name: string; len: number }[] =
    kind === 0
      ? c.arrs.filter((a) => !a.ro && !a.f64 && !a.row && !a.tup && a.len >= 2)
      : kind === 1
        ? c.arrs.filter((a) => a.tup)
        : kind === 2
          ? c.objs.filter((o) => !o.includes('[')).map((o) => ({ name: o, len: 0 }))
          : kind === 3
            ? c.mats.filter((m) => m.rows === 2 && m.cols === 2).map((m) => ({ name: m.name, len: 2 }))
            : c.aobjs.filter((a) => a.len === 2);
  // (mode 3: a copy of its own old value, `s = s.slice()`; a tuple or an object, which have no such copy
  // here, alias — P's optional field keeps it from being spread: qobj spreads a Q)
  const mode = s.mode % 4 === 3 && (kind === 0 || kind >= 3) ? 3 : s.mode % 4 >= 2 ? 2 : s.mode % 4;
  let other = mode === 2 ? pick(others, s.s) : undefined;
  const L = kind === 0 ? (other ? other.len : 2 + (s.q % 2)) : 2;
  if (mode === 2 && !other) {
    // nothing of its kind in scope: a second variable to alias
    const o = c.fresh('st');
    const v = lit(LITS[(s.q + 5) % LITS.length]);
    if (kind === 0) c.emit(`const ${o}: number[] = [${Array.from({ length: L }, (_, k) => (k === 0 ? v : lit(LITS[k]))).join(', ')}];`);
    else if (kind === 1) c.emit(`const ${o}: [number, number] = [${v}, 0.5];`);
    else if (kind === 2) c.emit(`const ${o}: P = { u: ${v}, v: 0.5, w: 1 };`);
    else if (kind === 3) c.emit(`const ${o}: number[][] = [[${v}, 0.5], [1, 2]];`);
    else c.emit(`const ${o}: P[] = [{ u: ${v}, v: 0.5, w: 1 }, { u: 1, v: 2, w: 0.5 }];`);
    other = { name: o, len: L };
  }
  // the declaration: a fresh literal
  if (kind === 0) c.emit(`let ${name}: number[] = [${Array.from({ length: L }, (_, k) => (k === 0 ? e() : lit(LITS[(s.q + k) % LITS.length]))).join(', ')}];`);
  else if (kind === 1) c.emit(`let ${name}: [number, number] = [${e()}, ${lit(LITS[s.q % LITS.length])}];`);
  else if (kind === 2) c.emit(`let ${name}: P = { u: ${e()}, v: ${lit(LITS[s.q % LITS.length])}, w: 0.5 };`);
  else if (kind === 3) c.emit(`let ${name}: number[][] = [[${e()}, 0.5], [-0.25, 1]];`);
  else c.emit(`let ${name}: P[] = [{ u: ${e()}, v: 0.5, w: 1 }, { u: -0.5, v: ${lit(LITS[s.q % LITS.length])}, w: 0.25 }];`);
  const rhs = (): string => {
    if (mode === 2) return other!.name;
    if (mode === 3) return `${name}.slice()`;
    const x = `0.1 * ${e()}`;
    if (mode === 1) {
      // a fresh literal, not reading the old value
      if (kind === 0) return `[${Array.from({ length: L }, (_, k) => (k === 0 ? x : lit(LITS[(s.q + 2 * k) % LITS.length]))).join(', ')}]`;
      if (kind === 1) return `[${x}, ${lit(LITS[(s.q + 3) % LITS.length])}]`;
      // (half of the objects are chosen between two fresh ones, in the loop)
      if (kind === 2) return s.q % 2 ? `${x} > 0 ? { u: ${x}, v: 0.25, w: ${lit(LITS[(s.q + 1) % LITS.length])} } : { u: 0.5, v: ${x}, w: 1 }` : `{ u: ${x}, v: 0.25, w: ${lit(LITS[(s.q + 1) % LITS.length])} }`;
      if (kind === 3) return `[[${x}, 1], [0.5, ${lit(LITS[(s.q + 1) % LITS.length])}]]`;
      return `[{ u: ${x}, v: 1, w: 0.5 }, { u: 0.25, v: ${lit(LITS[(s.q + 1) % LITS.length])}, w: 1 }]`;
    }
    // a literal built from the old value (each element mixes others: the reads must see the old value)
    if (kind === 0) return `[${Array.from({ length: L }, (_, k) => `${name}[${k}] ${k % 2 ? '-' : '+'} 0.1 * ${k === 0 ? `${name}[${(k + 1) % L}]` : `Math.sin(${name}[${(k + 1) % L}])`}${k === 0 ? ` + ${x}` : ''}`).join(', ')}]`;
    if (kind === 1) return `[${name}[0] + 0.1 * ${name}[1] + ${x}, ${name}[1] - 0.1 * Math.sin(${name}[0])]`;
    if (kind === 2) return `{ u: ${name}.u + 0.1 * ${name}.v, v: ${name}.v - 0.1 * Math.sin(${name}.u) + ${x}, w: ${name}.w }`;
    if (kind === 3) return `[[Math.tanh(${name}[0][0] * ${name}[1][1]) + ${x}, ${name}[0][1]], [${name}[1][0], ${name}[1][1] + 0.1 * ${name}[0][0]]]`;
    return `[${name}[1], { u: ${name}[0].u + 0.1 * ${name}[1].v, v: ${name}[0].v - ${x}, w: ${name}[0].w }]`;
  };
  // every third one also stores into the state in the same place (an element or field store)
  const store = () => {
    if (s.q % 3 !== 0) return;
    const y = `0.5 * ${e()}`;
    if (kind === 0 || kind === 1) c.emit(`${name}[1] = 0.5 * ${name}[1] + ${y};`);
    else if (kind === 2) c.emit(`${name}.w = ${y};`);
    else if (kind === 3) c.emit(`${name}[1][0] = ${y};`);
    else c.emit(`${name}[0].w = ${y};`);
  };
  if (kind === 0 && s.loop % 3 === 1 && s.n % 2 === 1 && c.loopDepth < MAX_LOOP_DEPTH) {
    // over the state's own elements: JavaScript walks the array the loop began with, whatever the body rebinds
    const x = c.fresh('e');
    c.emit(`for (const ${x} of ${name}) {`);
    c.block(() => {
      c.loopDepth++;
      c.nums.push({ name: x, w: false });
      store();
      c.emit(`${name} = ${rhs()};`);
      c.loopDepth--;
    });
    c.emit('}');
  } else
    ownLoop(c, s.loop, s.n, () => {
      store();
      c.emit(`${name} = ${rhs()};`);
    });
  if (other) c.base.set(name, c.baseOf(other.name));
  if (s.q % 4 === 1) {
    // a second name for the state, written through
    const t = c.fresh('st');
    const y = squash(s.q + 2, renderExpr(c, s.e), false);
    c.emit(`const ${t} = ${name};`, kind === 2 ? `${t}.u = ${y};` : kind === 3 ? `${t}[0][1] = ${y};` : kind === 4 ? `${t}[1].v = ${y};` : `${t}[0] = ${y};`);
  }
  if (kind === 0) c.arrs.push({ name, len: L, f64: false, ro: false });
  else if (kind === 1) c.arrs.push({ name, len: 2, f64: false, ro: false, tup: true });
  else if (kind === 2) c.objs.push(name);
  // (rebound to a helper's matrix parameter, it is its caller's matrix too: no row stored as another there)
  else if (kind === 3) c.mats.push({ name, rows: 2, cols: 2, param: !!other && !!c.mats.find((m) => m.name === other!.name)?.param });
  else {
    c.aobjs.push({ name, len: 2 });
    for (const k of [0, 1]) {
      c.objs.push(`${name}[${k}]`);
      c.base.set(`${name}[${k}]`, c.baseOf(name));
    }
  }
}

/**
 * Gaussian elimination with partial pivoting of a 3×3 matrix: rows swapped by reference, as LU codes do.
 * The matrix is a fixed base whose pivots are well separated plus perturbations in (-0.3, 0.3), so it
 * stays far from singular. Its determinant (or one component of a solve) becomes a new number in scope.
 * With `helper`, the elimination works on a copy of the rows (`push(row.slice())`), the base untouched.
 */
function renderLu(c: Ctx, s: Extract<Stmt, { k: 'lu' }>): void {
  if (c.loopDepth > 0) return; // three nested loops: only at the top of a function
  const A = c.fresh('A');
  const [i, j, k, p, r] = [c.fresh('i'), c.fresh('j'), c.fresh('k'), c.fresh('p'), c.fresh('r')];
  c.emit(`const ${A}: number[][] = [[0.2, 1, 3], [2.5, 0.3, 1], [1, 4, 0.5]];`);
  c.emit(`for (let ${i} = 0; ${i} < 3; ${i}++) {`, `  for (let ${j} = 0; ${j} < 3; ${j}++) {`);
  c.ind += 2;
  c.scoped(() => {
    c.ints.push({ name: i, U: 3 }, { name: j, U: 3 });
    c.emit(`${A}[${i}][${j}] += 0.3 * Math.tanh(${renderExpr(c, s.e)} + 0.7 * ${i} - 0.4 * ${j});`);
  });
  c.ind -= 2;
  c.emit('  }', '}');
  let M = A;
  if (s.helper) {
    // eliminate on a copy of the rows
    M = c.fresh('M');
    c.emit(`const ${M}: number[][] = [];`, `for (const ${r} of ${A}) ${M}.push(${r}.slice());`);
  }
  const det = c.fresh('det');
  const b = c.fresh('b');
  if (s.solve) c.emit(`const ${b}: number[] = [1, ${renderExpr(c, { k: 'lit', v: s.q % LITS.length })}, -0.5];`);
  c.emit(`let ${det} = 1;`);
  c.emit(`for (let ${k} = 0; ${k} < 3; ${k}++) {`);
  c.emit(`  let ${p} = ${k};`);
  c.emit(`  for (let ${i} = ${k} + 1; ${i} < 3; ${i}++) if (Math.abs(${M}[${i}][${k}]) > Math.abs(${M}[${p}][${k}])) ${p} = ${i};`);
  c.emit(`  if (${p} !== ${k}) {`);
  c.emit(`    const ${r} = ${M}[${k}];`, `    ${M}[${k}] = ${M}[${p}];`, `    ${M}[${p}] = ${r};`);
  if (s.solve) c.emit(`    const ${r}b = ${b}[${k}];`, `    ${b}[${k}] = ${b}[${p}];`, `    ${b}[${p}] = ${r}b;`);
  c.emit(`    ${det} = -${det};`, '  }');
  c.emit(`  ${det} *= ${M}[${k}][${k}];`);
  c.emit(`  for (let ${i} = ${k} + 1; ${i} < 3; ${i}++) {`);
  c.emit(`    const l = ${M}[${i}][${k}] / ${M}[${k}][${k}];`);
  c.emit(`    for (let ${j} = ${k}; ${j} < 3; ${j}++) ${M}[${i}][${j}] -= l * ${M}[${k}][${j}];`);
  if (s.solve) c.emit(`    ${b}[${i}] -= l * ${b}[${k}];`);
  c.emit('  }', '}');
  const out = c.fresh('s');
  if (s.solve) {
    // back substitution
    const x = c.fresh('x');
    c.emit(`const ${x}: number[] = [0, 0, 0];`);
    c.emit(`for (let ${i} = 2; ${i} >= 0; ${i}--) {`, `  let t = ${b}[${i}];`, `  for (let ${j} = ${i} + 1; ${j} < 3; ${j}++) t -= ${M}[${i}][${j}] * ${x}[${j}];`, `  ${x}[${i}] = t / ${M}[${i}][${i}];`, '}');
    c.emit(`const ${out} = Math.tanh(${x}[${s.q % 3}] + 0.01 * ${det});`);
  } else c.emit(`const ${out} = Math.tanh(0.1 * ${det});`);
  c.nums.push({ name: out, w: false });
  c.mats.push({ name: M, rows: 3, cols: 3 });
}

/**
 * Renders a focus (see FocusSpec) at the end of the head; returns the name of the number its values
 * flow into. What it declares goes out of scope after it (the result expression is not re-targeted).
 */
function renderFocus(c: Ctx, f: FocusSpec): string {
  const fo = c.fresh('fo');
  c.emit(`let ${fo} = 0;`);
  const acc = (read: string) => c.emit(`${fo} += 0.25 * ${read};`);
  const rhs = () => squash(f.q, renderExpr(c, f.e), false);
  /** the body once in a `while`, once in a counted `for` around a `while` (or in two counted loops) */
  const whileAndNested = (body: () => void, counted = false) => {
    if (!counted) ownLoop(c, 2, 2, body);
    ownLoop(c, 1, 2, () => ownLoop(c, counted ? 1 : 2, 2, body));
  };
  c.scoped(() => {
    c.nums.push({ name: fo, w: true });
    if (f.fam <= 2) {
      // a second name written through, in loops: of a value in scope, or of a new one
      const kind = f.fam;
      const inScope: { name: string; n: number; cols: number }[] =
        kind === 0
          ? c.mats.map((m) => ({ name: m.name, n: m.rows, cols: m.cols }))
          : kind === 1
            ? c.aobjs.map((a) => ({ name: a.name, n: a.len, cols: 0 }))
            : c.arrs.filter((a) => a.tup).map((a) => ({ name: a.name, n: 2, cols: 0 }));
      let x = f.s % 2 === 1 ? pick(inScope, f.s >> 1) : undefined;
      if (!x) {
        const name = c.fresh(kind === 0 ? 'M' : kind === 1 ? 'ps' : 't');
        const v = rhs();
        if (kind === 0) c.emit(`const ${name}: number[][] = [[${v}, 0.5], [-0.25, 1]];`);
        else if (kind === 1) c.emit(`const ${name}: P[] = [{ u: ${v}, v: 0.5, w: 1 }, { u: -0.5, v: 0.25, w: 0.25 }];`);
        else c.emit(`const ${name}: [number, number] = [${v}, 0.5];`);
        x = { name, n: 2, cols: 2 };
      }
      const X = x;
      whileAndNested(() => {
        const t = c.fresh(kind === 0 ? 'M' : kind === 1 ? 'ps' : 't');
        c.emit(`const ${t} = ${X.name};`);
        c.base.set(t, c.baseOf(X.name));
        const at = renderIdx(c, f.i, X.n, `${t}.length`);
        if (kind === 0) c.emit(`${t}[${at}][${X.cols - 1}] = ${rhs()};`);
        else if (kind === 1) c.emit(`${t}[${at}].${FIELDS[f.q % 3]} = ${rhs()};`);
        else c.emit(`${t}[${at}] = 0.5 * ${t}[${at}] + ${rhs()};`);
      });
      acc(kind === 0 ? `${X.name}[0][0] * ${X.name}[${X.n - 1}][${X.cols - 1}]` : kind === 1 ? `(${X.name}[0].u + ${X.name}[${X.n - 1}].${FIELDS[f.q % 3]})` : `(${X.name}[0] - ${X.name}[1])`);
    } else if (f.fam <= 6) {
      // the focus helper (declared last), called straight-line, in a counted loop, in a while, two loops deep
      const h = c.callable[c.callable.length - 1];
      const once = () => {
        const r = c.fresh(h.ret === 4 ? 'M' : h.ret === 3 ? 'q' : 't');
        c.emit(`const ${r} = ${h.name}(${callArgs(c, h, [f.e], [f.s, f.q]).join(', ')});`);
        acc(h.ret === 1 ? `${r}[${h.retLen - 1}]` : h.ret === 4 ? `${r}[1][0] * ${r}[0][1]` : h.ret === 3 ? `${r}.u * ${r}.w` : `${r}[0] * ${r}[1]`);
      };
      once();
      ownLoop(c, 1, 2, once);
      whileAndNested(once);
    } else if (f.fam === 7) {
      // rows swapped by reference two loops deep, an element updated after each swap
      const useObj = f.s % 4 === 3;
      let t: MatVar | { name: string; len: number } | undefined = useObj ? pick(c.aobjs, f.s >> 1) : pick(c.mats.filter((m) => m.rows >= 2), f.s >> 1);
      if (!t) {
        const name = c.fresh(useObj ? 'ps' : 'M');
        const v = rhs();
        if (useObj) {
          c.emit(`const ${name}: P[] = [{ u: ${v}, v: 0.5, w: 1 }, { u: -0.5, v: 0.25, w: 0.25 }, { u: 1, v: -1, w: 0.5 }];`);
          t = { name, len: 3 };
        } else {
          c.emit(`const ${name}: number[][] = [[${v}, 0.5], [-0.25, 1], [0.75, -1]];`);
          t = { name, rows: 3, cols: 2 };
        }
      }
      const T = t;
      const n = 'len' in T ? T.len : T.rows;
      whileAndNested(() => {
        renderRows(c, { k: 'rows', s: f.s, i: f.i, j: f.j, mode: 0, e: f.e, q: f.q, loop: 0 }, T.name, n, useObj, T);
        if ('len' in T) c.emit(`${T.name}[0].u = 0.5 * ${T.name}[0].u + ${rhs()};`);
        else c.emit(`${T.name}[0][0] = 0.5 * ${T.name}[0][0] + ${rhs()};`);
      }, f.q % 2 === 0);
      acc('len' in T ? `${T.name}[${n - 1}].u` : `${T.name}[${n - 1}][0]`);
    } else if (f.fam === 8) {
      // a matrix built by pushing rows in a while loop
      renderStmt(c, { k: 'mfrom', e: f.e, q: f.q, loop: 2 });
      const m = c.mats[c.mats.length - 1];
      acc(`${m.name}[1][0] * ${m.name}[0][1]`);
    } else if (f.fam <= 11) {
      // a switch, a labelled block or a while loop, two loops deep
      const x: Stmt =
        f.fam === 9
          ? { k: 'sw', s: f.s, e: f.e, cases: f.cases, ft: f.ft }
          : f.fam === 10
            ? { k: 'block', body: f.body, c: f.c }
            : { k: 'while', cap: 2, c: f.c, body: f.body, dw: false };
      ownLoop(c, 1 + (f.q % 2), 2, () =>
        ownLoop(c, 1 + ((f.q >> 1) % 2), 2, () => {
          renderStmt(c, x);
          acc(rhs());
        }),
      );
    } else if (f.fam === 13 && f.q >= 6) {
      // a nullable array assigned again and again (the previous point of a loop): a fresh literal, an
      // array in scope, or absent by a test
      const b = c.fresh('prevPt');
      const none = f.q % 2 ? 'undefined' : 'null';
      c.emit(none === 'null' ? `let ${b}: number[] | null = null;` : `let ${b}: number[] | undefined;`);
      const src = pick(c.arrs.filter((a) => !a.f64 && !a.ro && !a.tup && a.len >= 2), f.s);
      const step = () => {
        const v = c.fresh('v');
        c.emit(`const ${v} = ${rhs()};`);
        c.emit(`if (${b} !== ${none}) ${fo} += 0.5 * Math.tanh(${v} - ${b}[0] * ${b}[1]);`);
        if (f.s % 3 === 0 && src) c.emit(`${b} = ${src.name};`);
        else if (f.s % 3 === 1) c.emit(`${b} = ${v} > 0.25 ? [${v}, 0.5 * ${v}] : ${none};`);
        else c.emit(`${b} = [Math.tanh(${v}), ${b} === ${none} ? 0.5 : ${b}[0]];`);
      };
      step();
      ownLoop(c, 1, 2, step);
      whileAndNested(step);
      acc(`(${b} === ${none} ? 0.5 : ${b}[1])`);
    } else if (f.fam === 13) {
      // a nullable number assigned again and again (src/frontend/nullable-locals.ts)
      const b = c.fresh(f.q % 2 ? 'prev' : 'best');
      const none = f.q % 2 ? 'undefined' : 'null';
      if (f.q % 4 === 3) c.emit(`let ${b}: number | ${none} = ${rhs()};`);
      // (one in four of the undefined ones untyped: `let prev;`, typed by TypeScript from its assignments)
      else c.emit(f.q % 2 ? (f.q % 8 === 5 ? `let ${b};` : `let ${b}: number | undefined;`) : `let ${b}: number | null = null;`);
      const step = () => {
        const v = c.fresh('v');
        c.emit(`const ${v} = ${rhs()};`);
        if (f.s % 3 === 0) c.emit(`if (${b} === ${none} || ${v} < ${b}) ${b} = ${v};`);
        else if (f.s % 3 === 1) {
          c.emit(`if (${b} !== ${none}) ${fo} += 0.5 * Math.tanh(${v} - ${b});`);
          c.emit(`${b} = ${v};`);
        } else {
          c.emit(`if (typeof ${b} === 'number' && ${b} > ${v}) ${b} = ${none};`);
          c.emit(`else ${b} = (${b} ?? 0) * 0.5 + ${v};`);
        }
      };
      step();
      ownLoop(c, 1, 2, step);
      whileAndNested(step);
      acc(`(${b} ?? 0.5)`);
    } else {
      // a loop with a `continue` on some iterations (of its own counter), then work it skips
      const set = c.nums.filter((v) => v.w).findIndex((v) => v.name === fo);
      const loop = () => {
        // (the loop's counter comes next in scope)
        const body: Stmt[] = [
          ...f.body.slice(0, 1),
          { k: 'jump', j: 1, c: { k: 'ic', s: c.ints.length, m: f.q % 3 }, t: 0, lab: false, e: f.e, q: f.q },
          ...f.body.slice(1),
          { k: 'set', s: set, op: 1, e: f.e, q: f.q },
        ];
        renderStmt(c, { k: 'while', cap: f.cap + 1, c: f.c, body, dw: f.dw });
      };
      // every third one inside a counted loop
      if (f.q % 3 === 2) ownLoop(c, 1, 2, loop);
      else loop();
    }
  });
  return fo;
}

/** the helpers fam 5 and 6 of ExprsSpec call: destructured parameters with defaults; two numbers (for a spread tuple) */
const EXPRS_HELPERS = [
  'export function dpar([x0, x1]: number[], { u, v = 2, w }: P): number {',
  '  let s = u * x0;',
  '  s += (w = v * x1) * 0.5;',
  '  return s + w * x0;',
  '}',
  '',
  // a destructured parameter with a default object (the options idiom)
  'export function dopt(x: number[], { u = 0.5, z = -0.25 }: Partial<P> = {}): number {',
  '  return u * x[0] + z * x[x.length - 1];',
  '}',
  '',
  // options that may be absent, merged over defaults (`{ ...d, ...o }`: fields o lacks or o absent)
  // (a string flag too, typed string in the defaults and a union of literals in the options)
  'export function dmerge(x: number[], o?: { u?: number; z?: number; mode?: \'soft\' | \'hard\' }): number {',
  '  const d = { u: 0.5, z: -0.25, mode: \'soft\' };',
  '  const m = { ...d, ...o };',
  '  return m.mode === \'hard\' ? m.u * Math.abs(x[0]) + m.z : m.u * x[0] + m.z;',
  '}',
  '',
  'export function dtwo(a: number, b: number): number {',
  '  return a * b - 0.5 * a;',
  '}',
  '',
  // options over module-level defaults whose declared type makes every field optional (its literal gives them)
  'export const DOPTS: { u?: number; z?: number } = { u: 0.5, z: -0.25 };',
  '',
  'export function dmod(x: number[], o: { u?: number; z?: number }): number {',
  '  const m = { ...DOPTS, ...o };',
  // (an optional field updated asserted present: `m.u! *= …`, its old value read first)
  '  if (m.u !== undefined) m.u! *= 1 + 0.25 * x[0];',
  '  return (m.u ?? 0) * x[0] + (m.z ?? 1);',
  '}',
  '',
  // optional chaining (src/frontend/optional-chains.ts): options that may be absent, with a nested
  // object and an array that may be absent too, read through `?.` and given defaults by `??` or a test;
  // weights that may be absent defaulted by `||` to an array a callback makes (an `if`, lower.ts chosenDecl)
  'export function dchain(x: number[], o?: { k?: { s?: number }; w?: number[] }, ws?: number[]): number {',
  '  const s = o?.k?.s ?? 0.5;',
  '  const w1 = o?.w?.[1];',
  // (ones: a default made from x's elements counts as holding its numbers, and a nullable array that
  // holds numbers of the independents is refused, nullable.ts; called without ws: an array passed
  // there from a loop, as the calls below are, is taken as holding them, a refusal seen on main too)
  '  const w = ws || x.map(() => 1);',
  '  return s * x[0] * w[0] + (w1 === undefined ? 0.25 : w1) * x[x.length - 1] + (o?.w?.length ?? 1) * 0.125;',
  '}',
  '',
  // defaults: a constant one, one computed from the parameters before it (at entry, where the argument
  // is undefined), an optional one; called with arguments left out, passed as undefined, or maybe undefined
  'export function ddef(x: number, c0: number = 1, c1?: number, c2 = c0 * 2 + x): number {',
  '  return c0 * x + (c1 ?? 0.5) + c2 * x * x;',
  '}',
  '',
];

/** Renders an ExprsSpec at the end of the head; returns the name of the number its values flow into. */
function renderExprs(c: Ctx, x: ExprsSpec): string {
  const ex = c.fresh('ex');
  c.emit(`let ${ex} = 0;`);
  const E = () => squash(x.q, renderExpr(c, x.e), false);
  const E2 = () => squash(x.q + 1, renderExpr(c, x.e2), false);
  c.scoped(() =>
    ownLoop(c, x.loop, 2, () => {
      const n = (p: string) => c.fresh(p);
      if (x.fam === 0) {
        const [k, buf, t] = [n('k'), n('buf'), n('t')];
        c.emit(`let ${k} = 0;`, `const ${buf}: number[] = [0, 0, 0];`, `${buf}[${k}++] = ${E()};`, `${buf}[${k}++] = 0.5 * ${buf}[0] + ${E2()};`);
        c.emit(`${buf}[${k}] = ${buf}[--${k}] * ${buf}[${k} - 1];`, `let ${t} = 1;`, `${ex} += ${t}++ * ${buf}[2] + ++${t} * ${buf}[${k}--] - ${buf}[${k}];`);
        c.emit(`${ex} += Math.atan2(${buf}[${k}++] + 2, ${buf}[--${k} + 1]) * ${t}--;`);
      } else if (x.fam === 1) {
        const [t, u, w] = [n('t'), n('u'), n('w')];
        c.emit(`let ${t} = 0;`, `let ${u} = 0;`, `const ${w}: number[] = [0.5, 1];`);
        c.emit(`${ex} += (${t} = ${E()}) * ${t};`, `${u} = ${t} = 0.5 * ${E2()};`);
        c.emit(`${ex} += ${u} * (${u} += ${t}) + (${t} *= 0.5) + (${w}[0] = ${E()}) * (${w}[1] += ${w}[0]);`);
      } else if (x.fam === 2) {
        const arr = pick(c.arrs.filter((a) => !a.tup), x.s);
        const v = arr ? arr.name : n('v');
        if (!arr) c.emit(`const ${v}: number[] = [${E()}, 0.5, -0.25, 1];`);
        const [i, j] = [n('i'), n('j')];
        c.emit(`for (let ${i} = 0, ${j} = ${v}.length - 1; ${i} < ${j}; ${i}++, ${j}--) ${ex} += ${v}[${i}] * ${v}[${j}];`);
        c.emit(`let ${i}b = 0, ${j}b = 0;`, `for (${i}b = 0, ${j}b = 2; ${i}b < ${j}b; ${i}b++, ${j}b--) ${ex} += (${i}b + 1) * ${E2()};`);
        c.emit(`${ex} += (${i}b = 1, ${j}b = 2, ${i}b * ${E()} + ${j}b);`);
      } else if (x.fam === 3) {
        const [k, m] = [n('k'), n('m')];
        c.emit(`let ${k} = 1;`, `while ((${k} *= 2) < 8) ${ex} += 0.125 * ${k} * ${E()};`);
        c.emit(`let ${m} = 0;`, `do {`, `  ${ex} += 0.25 * ${E2()};`, `} while (++${m} < 2);`);
        c.emit(`for (let ${m}b = 0; (${ex} += 0.125 * ${m}b) < 3 && ${m}b < 3; ${m}b++) ${ex} *= 0.75;`);
        // an increment in the right operand of `&&` (runs only when the left holds), and an assignment in a branch of `?:`
        c.emit(`let ${m}c = 0;`, `do {`, `  ${ex} += 0.125 * ${E()};`, `} while (${ex} < 2 && ++${m}c < 3);`);
        c.emit(`${ex} += ${E2()} > 0 ? (${m}c = 2) * 0.25 : ${m}c;`);
      } else if (x.fam === 4) {
        const [a, b] = [n('a'), n('b')];
        c.emit(`let ${a} = ${E()};`, `let ${b} = ${E2()};`, `[${a}, ${b}] = [${b}, 0.5 * ${a}];`, `${ex} += ${a} - 2 * ${b};`);
        let mat = x.s % 2 === 1 ? pick(c.mats.filter((m) => m.rows >= 2), x.s >> 1) : undefined;
        if (!mat) {
          mat = { name: n('M'), rows: 3, cols: 2 };
          c.emit(`const ${mat.name}: number[][] = [[${E()}, 0.5], [-0.25, 1], [0.75, -1]];`);
        }
        const M = mat;
        const i = renderIdx(c, x.i, M.rows, `${M.name}.length`);
        c.emit(`[${M.name}[${i}], ${M.name}[${M.rows - 1}]] = [${M.name}[${M.rows - 1}], ${M.name}[${i}]];`);
        c.emit(`${M.name}[0][0] = 0.5 * ${M.name}[0][0] + ${E2()};`, `${ex} += ${M.name}[0][0] * ${M.name}[${M.rows - 1}][${M.cols - 1}];`);
        const o = pick(c.objs, x.s);
        if (o) c.emit(`({ u: ${a}, w: ${b} } = ${o});`, `${ex} += ${a} * ${b};`);
        c.emit(`({ length: ${b} } = ${M.name}[0]);`, `${ex} += ${a} * ${b};`);
      } else if (x.fam === 5) {
        // (not the head's output array: a helper reading it before the head writes it hits a dot-product
        // failure that is not of these forms, reported separately)
        const arr = pick(c.arrs.filter((a) => a.len >= 2 && !a.tup && !a.ro && !a.f64 && !a.row && a.name !== 'out'), x.s);
        const o = pick(c.objs, x.s);
        c.emit(`${ex} += dpar(${arr ? arr.name : `[${E()}, 0.5]`}, ${o ?? `{ u: ${E2()}, v: 0.5, w: -0.25 }`});`);
        c.emit(`${ex} += dopt(${arr ? arr.name : `[${E()}, 0.5]`}) + dopt([${E2()}], ${o ?? `{ z: ${E()} }`});`);
        c.emit(`${ex} += dmerge([${E2()}]) + dmerge([${E()}, 0.5], { z: 0.75 }) + dmerge([${E()}], { mode: 'hard' });`);
        c.emit(`${ex} += dmod([${E()}], {}) + dmod([${E2()}, 0.5], { u: ${E()} });`);
        c.emit(`${ex} += dchain([${E()}]) + dchain([${E2()}, 0.5], { k: { s: 0.75 } }) + dchain([${E()}], { k: {}, w: [0.5, -0.25] });`);
        const mu = c.fresh('mu');
        c.emit(`const ${mu}: number | undefined = ${E()} > 0 ? undefined : ${E2()};`);
        c.emit(`${ex} += ddef(${E()}) + ddef(${E2()}, undefined, ${E()}) + ddef(${E()}, ${E2()}, undefined, ${E()}) + ddef(${E2()}, ${mu}, ${mu}, ${mu});`);
        // a local function reassigning only its own variables, called from a callback inside a chain
        const pr = c.fresh('pr');
        c.emit(`const ${pr} = (v: number[]): number => {`, '  let z = 0;', '  for (let j = 0; j < v.length; j++) z += v[j] * 0.5;', '  return z;', '};');
        c.emit(`${ex} += [[${E()}, 0.5], [${E2()}]].map((r) => ${pr}(r)).reduce((a, b) => a + b, 0);`);
        const src = pick(c.arrs.filter((a) => !a.tup), x.s + 1);
        const [d0, d1] = [n('d'), n('d')];
        c.emit(`const [${d0}, ${d1} = 0.5] = ${src ? src.name : `[${E()}]`};`, `${ex} += ${d0} * ${d1};`);
        // (an array's length read by a pattern: an integer, not a field of numbers)
        c.emit(`const { length: ${d0}n } = ${src ? src.name : `[${E2()}, 0.5]`};`, `${ex} += ${d0} * ${d0}n;`);
        if (o) c.emit(`const { u: ${d0}u, v: ${d0}v = 1 } = ${o};`, `${ex} += ${d0}u - ${d0}v;`);
        c.emit(`const ${d0}t: [number, number] = [${E2()}, ${d0}];`, `${ex} += dtwo(...${d0}t);`);
      } else {
        const arr = pick(c.arrs.filter((a) => !a.f64 && !a.tup), x.s);
        const xs = arr ? arr.name : n('xs');
        if (!arr) c.emit(`const ${xs}: number[] = [${E()}, 0.5, -0.25];`);
        const tp = n('tp');
        // (every other maximum in older JavaScript's spelling, `Math.max.apply(null, xs)`)
        c.emit(`${ex} += ${x.q % 2 ? `Math.max.apply(null, ${xs})` : `Math.max(...${xs})`} + Math.min(${E2()}, ...${xs}) + 0.25 * Math.hypot(...${xs});`);
        c.emit(`const ${tp}: [number, number] = [${E()}, 0.5];`, `${ex} += Math.atan2(...${tp}) + dtwo(...${tp});`);
      }
    }),
  );
  return ex;
}

export interface Rendered {
  source: string;
  head: string;
  params: string[];
  args: ArgSpec[];
  /** independents when not the default */
  wrt?: string[];
}

const num = (): ArgSpec => ({ kind: 'num', lo: -1.5, hi: 1.5 });
const vec = (n: number): ArgSpec => ({ kind: 'vec', n, lo: -1.5, hi: 1.5 });

function paramDecl(p: { kind: PKind; len: number; name: string }): string {
  return `${p.name}: ${{ num: 'number', vec: 'number[]', rovec: 'readonly number[]', mat: 'number[][]', obj: 'P' }[p.kind]}`;
}

function pushParam(c: Ctx, p: { kind: PKind; len: number; name: string }, rows = 2, cols = 2): void {
  if (p.kind === 'num') c.nums.push({ name: p.name, w: true });
  else if (p.kind === 'vec' || p.kind === 'rovec') c.arrs.push({ name: p.name, len: p.len, f64: false, ro: p.kind === 'rovec' });
  else if (p.kind === 'mat') c.mats.push({ name: p.name, rows, cols, param: c.helper });
  else c.objs.push(p.name);
}

/** The summary `0.125 * (s0 + a[0] + …)` that makes the head's result depend on what it computed. */
function mixTerm(c: Ctx): string {
  const parts = [
    ...c.nums.map((n) => n.name),
    ...c.arrs.map((a) => `${a.name}[${a.len - 1}]`),
    ...c.mats.map((m) => `${m.name}[0][0]`),
    ...c.objs.map((o) => `${o}.u`),
  ];
  return parts.length ? ` + 0.125 * (${parts.join(' + ')})` : '';
}

export function render(spec: ProgSpec): Rendered {
  const out: string[] = ['export interface P {', '  u: number;', '  v: number;', '  w: number;', '  z?: number;', '}', '', 'export interface Q {', '  a: number[];', '  s: number;', '}', ''];
  if (spec.gbl) out.push('const W: number[] = [0.5, -1.25, 2, 0.75];', '');
  const sigs: HelperSig[] = [];
  // (a helper's body may call `exchange` too: the head's context declares it once for all)
  let helpersExchange = false;
  // a call focus declares its helper last (returning number[], number[][], P or [number, number])
  const fam = spec.focus?.fam ?? -1;
  const helpers = fam >= 3 && fam <= 6 ? [...spec.helpers, { ...spec.focus!.helper, ret: [1, 4, 3, 5][fam - 3], rec: false }] : spec.helpers;
  helpers.forEach((h, hi) => {
    const name = `g${hi}`;
    const params = h.params.map((p, k) => ({ kind: p.kind, len: p.len, name: `${{ num: 'x', vec: 'v', rovec: 'ro', mat: 'm', obj: 'o' }[p.kind]}${k}` }));
    // void helpers write their first array (or object) parameter
    let ret = h.ret;
    if (ret === 2 && !params.some((p) => p.kind === 'vec')) params.unshift({ kind: 'vec', len: h.retLen, name: 'out' });
    if (h.rec) ret = 0;
    const sig: HelperSig = { name, params, ret, retLen: h.retLen, rec: h.rec, dflt: h.rec ? h.dflt : 0 };
    // every fourth number helper and every other array helper may give no result: `number | null` or
    // `number[] | null`, null past a threshold of its input (not a focus's helper, which the focus reads
    // as an array)
    if (ret === 0 && !h.rec && h.q % 4 === 3) {
      sig.nullable = true;
      sig.undef = h.q % 8 === 7;
    }
    if (ret === 1 && hi < spec.helpers.length && !h.rec && h.q % 2 === 1) {
      sig.nullable = true;
      sig.nullLoop = ((h.q >> 1) + hi) % 4;
    }
    // early returns: with a value (number), none (arrays, objects), bare (void)
    const c = new Ctx(ret === 0 ? 0 : ret === 2 ? 2 : 1, sigs.slice());
    c.fround = spec.fround;
    c.helper = true;
    for (const p of params) pushParam(c, p);
    if (spec.gbl) c.arrs.push({ name: 'W', len: 4, f64: false, ro: true });
    if (h.rec) c.emit(`if (d <= 0) return ${squash(h.q, renderExpr(c, h.base), false)};`);
    if (sig.nullable) {
      const p = params[0];
      const first = p.kind === 'num' ? p.name : p.kind === 'mat' ? `${p.name}[0][0]` : p.kind === 'obj' ? `${p.name}.u` : `${p.name}[0]`;
      c.emit(`if (${first} > 1.25) return${sig.undef ? '' : ' null'};`);
    }
    renderStmts(c, h.body);
    if (c.needsExchange) helpersExchange = true;
    if (ret === 0) {
      let e = renderExpr(c, h.retE);
      if (h.rec) {
        const rargs = params.map((p) => (p.kind === 'num' ? `${squash(h.q + 1, p.name, true)}` : p.name));
        e = `${e} + 0.5 * ${name}(${[...rargs, 'd - 1'].join(', ')})`;
      }
      c.emit(`return ${squash(h.q, e, false)};`);
    } else if (ret === 1) {
      const k = c.fresh('j');
      let body = '';
      c.scoped(() => {
        c.ints.push({ name: k, U: h.retLen });
        body = squash(h.q, renderExpr(c, h.retE), false);
      });
      // gl-matrix style, every third one: written into its array argument, which it returns (the result is
      // that very array, shared with the caller's); otherwise a fresh array
      // (not where the result may be null: a pair holding the caller's array is refused, src/frontend/nullable-locals.ts)
      const into = h.q % 3 === 0 && !sig.nullable ? params.find((p) => p.kind === 'vec' && p.len === h.retLen) : undefined;
      // a copy returned where it is made: of a parameter (`return v.slice()`), or of the local result
      const copied = h.q % 5 === 1 ? params.find((p) => (p.kind === 'vec' || p.kind === 'rovec') && p.len === h.retLen) : undefined;
      if (copied && !into) c.emit(`return ${copied.name}.slice();`);
      else if (into) {
        c.emit(`for (let ${k} = 0; ${k} < ${h.retLen}; ${k}++) ${into.name}[${k}] = ${body};`);
        c.emit(`return ${into.name};`);
      } else {
        // (`Array.from` is accepted only as the initializer of a variable)
        const r = c.fresh('r');
        c.emit(`const ${r} = Array.from({ length: ${h.retLen} }, (_, ${k}) => ${body});`);
        c.emit(h.q % 5 === 2 ? `return ${r}.slice();` : `return ${r};`);
      }
    } else if (ret === 4) {
      // a 2×2 matrix: a copy of a matrix parameter's rows (the caller may swap them), or a literal
      const m = params.find((p) => p.kind === 'mat');
      const e = squash(h.q, renderExpr(c, h.retE), false);
      if (m) {
        const r = c.fresh('R');
        c.emit(`const ${r}: number[][] = [${m.name}[0].slice(), ${m.name}[1].slice()];`, `${r}[0][1] = ${e};`, `return ${r};`);
      } else c.emit(`return [[${e}, 0.5], [${lit(LITS[h.q % LITS.length])}, 1]];`);
    } else if (ret === 5) {
      const e = renderExpr(c, h.retE);
      c.emit(`return [${squash(h.q, e, false)}, ${squash(h.q + 1, renderExpr(c, h.base), false)}];`);
    } else if (ret === 3) {
      const e = renderExpr(c, h.retE);
      c.emit(`return { u: ${squash(h.q, e, false)}, v: ${squash(h.q + 1, e, false)}, w: ${renderExpr(c, h.base)} };`);
    } else {
      const o = params.find((p) => p.kind === 'vec')!;
      c.emit(`${o.name}[${o.len - 1}] = ${squash(h.q, renderExpr(c, h.retE), false)};`);
    }
    const ps = params.map(paramDecl);
    if (h.rec) ps.push(h.dflt > 0 ? `d: number = ${h.dflt}` : 'd: number');
    const rt = sig.nullable ? (ret === 1 ? 'number[] | null' : sig.undef ? 'number | undefined' : 'number | null') : ['number', 'number[]', 'void', 'P', 'number[][]', '[number, number]'][ret];
    if (h.arrow) out.push(`export const ${name} = (${ps.join(', ')}): ${rt} => {`, ...c.lines, '};', '');
    else out.push(`export function ${name}(${ps.join(', ')}): ${rt} {`, ...c.lines, '}', '');
    sigs.push(sig);
  });

  if (spec.exprs && spec.exprs.fam >= 5) out.push(...EXPRS_HELPERS);

  // the head
  const hp = { ...spec.hp };
  if (!hp.x && !hp.y && !hp.a && !hp.b && !hp.m && !hp.p && !hp.c) hp.x = true;
  const params: string[] = [];
  const decls: string[] = [];
  const args: ArgSpec[] = [];
  const ret = spec.ret;
  const c = new Ctx(ret === 0 ? 0 : ret === 2 ? 1 : 2, sigs);
  c.fround = spec.fround;
  c.needsExchange = helpersExchange;
  const add = (name: string, ty: string, a: ArgSpec) => {
    params.push(name);
    decls.push(`${name}: ${ty}`);
    args.push(a);
  };
  if (hp.x) {
    add('x', 'number', num());
    c.nums.push({ name: 'x', w: true });
  }
  if (hp.a) {
    add('a', 'number[]', vec(spec.la));
    c.arrs.push({ name: 'a', len: spec.la, f64: false, ro: false });
  }
  // y, from the same draws: every fourth program takes it optional (`y?: number`) and left out, optional
  // and given, or with a default (`y = 0.5`); an optional y is read through `??` and `typeof` only
  const yForm = hp.y ? (spec.la + spec.lb) % 4 : 3;
  // (every third optional y takes its default in the body, JavaScript's old way: src/frontend/param-defaults.ts)
  const yInBody = hp.y && yForm < 2 && (spec.la + 2 * spec.rows) % 3 === 0;
  if (hp.y && yForm < 2) {
    params.push('y');
    decls.push('y?: number');
    args.push(yForm === 0 ? { kind: 'absent' } : num());
    if (yInBody) {
      // (the last one's fallback needs statements of its own, run only where y is absent)
      c.emit(...[['if (y === undefined) y = 0.5;'], ['y = y ?? 0.75;'], ['y ??= 0.25;'], ['if (y == null) {', '  y = 1.25;', '}'], ['if (y === undefined) y = [0.5, 0.25].reduce((s, v) => s + v * v, 0);']][(spec.lb + spec.rows) % 5]);
      // (read through a const: TypeScript does not narrow a reassigned parameter inside closures)
      c.emit('const yv = y;');
      c.nums.push({ name: 'yv', w: false });
    } else c.opts.push({ name: 'y', none: 'undefined' });
  } else if (hp.y) {
    add('y', 'number', num());
    if (yForm === 2) decls[decls.length - 1] = 'y: number = 0.5';
    c.nums.push({ name: 'y', w: true });
  }
  if (hp.m) {
    add('m', 'number[][]', { kind: 'mat', rows: spec.rows, cols: spec.cols, lo: -1.5, hi: 1.5 });
    c.mats.push({ name: 'm', rows: spec.rows, cols: spec.cols });
  }
  if (hp.b) {
    add('b', 'number[]', vec(spec.lb));
    c.arrs.push({ name: 'b', len: spec.lb, f64: false, ro: false });
  }
  if (hp.p) {
    // its optional field z: absent in one program of three, and read through `??` or a presence test
    const zAbsent = (spec.la + spec.lb + spec.rows) % 3 === 0;
    // (every fourth p is optional, given its default in the body: `p = p || { … }`, left out half the time)
    const pInBody = (spec.la + spec.lb) % 4 === 0;
    add(pInBody ? 'p?' : 'p', 'P', pInBody && spec.rows % 2 === 0 ? { kind: 'absent' } : { kind: 'obj', fields: { u: num(), v: num(), w: num(), ...(zAbsent ? {} : { z: num() }) } });
    if (pInBody) {
      params[params.length - 1] = 'p';
      const dflt = '{ u: 0.5, v: 0.25, w: 1 }';
      c.emit([`p = p || ${dflt};`, `if (!p) p = ${dflt};`, `p ??= ${dflt};`][spec.cols % 3]);
      // (an optional object is passive: read, never written with numbers that depend on the independents)
    } else c.objs.push('p');
    const pz = c.fresh('pz');
    c.emit((spec.la + spec.rows) % 2 ? `const ${pz} = p.z ?? 0.5${pInBody ? ' + p.u * p.w' : ''};` : `const ${pz} = p.z !== undefined ? p.z * 0.5 : 0.25${pInBody ? ' * p.v' : ''};`);
    c.nums.push({ name: pz, w: false });
  }
  if (hp.c) {
    add('c', 'Float64Array', { kind: 'vec', n: spec.lb, lo: -1.5, hi: 1.5, typed: true });
    c.arrs.push({ name: 'c', len: spec.lb, f64: true, ro: false });
  }
  if (ret === 1) {
    add('out', 'number[]', vec(spec.rl));
    c.arrs.push({ name: 'out', len: spec.rl, f64: false, ro: false });
  }
  if (spec.gbl) c.arrs.push({ name: 'W', len: 4, f64: false, ro: true });
  // the results of nullable helpers, bound once and then tested where they are read
  sigs.filter((h) => h.nullable).forEach((h, k) => {
    const call = `${h.name}(${callArgs(c, h, [{ k: 'var', s: k }, { k: 'lit', v: k + 1 }], [k]).join(', ')})`;
    if (h.ret === 1) {
      // in straight-line code, a counted loop, a `while` or two nested loops, summed into one number
      const acc = c.fresh('acc');
      c.emit(`let ${acc} = 0;`);
      const inner = () => {
        bindNullableArray(c, call, h.retLen, k);
        c.emit(`${acc} += 0.5 * ${c.nums[c.nums.length - 1].name};`);
      };
      const shape = h.nullLoop ?? 0;
      c.scoped(() => (shape === 3 ? ownLoop(c, 1, 2, () => ownLoop(c, 1, 2, inner)) : ownLoop(c, shape, 2, inner)));
      c.nums.push({ name: acc, w: true });
      return;
    }
    const n = c.fresh('maybe');
    c.emit(`const ${n} = ${call};`);
    c.opts.push({ name: n, none: h.undef ? 'undefined' : 'null' });
  });
  renderStmts(c, spec.body);
  const fo = spec.focus ? renderFocus(c, spec.focus) : '';
  const ex = spec.exprs ? renderExprs(c, spec.exprs) : '';
  const ja = spec.jsArrays?.length ? renderJsArrays(c, spec.jsArrays) : '';
  const cb = spec.callbacks?.length ? renderCallbacks(c, spec.callbacks) : '';
  const ta = spec.typedArrays?.length ? renderTypedArrays(c, spec.typedArrays) : '';
  const rs = spec.rests?.length ? renderRests(c, spec.rests) : '';
  const cl = spec.classes ? renderClasses(c, spec.classes) : '';
  const orr = spec.objRests?.length ? renderObjRests(c, spec.objRests) : '';
  const tss = spec.typedSets?.length ? renderTypedSets(c, spec.typedSets) : '';
  if (spec.classes) out.push(...CLASS_BODY);
  const cu = spec.customs ? renderCustoms(c, spec.customs) : '';
  if (spec.customs) out.push(...CUSTOM_BODY);
  const lc = spec.closures?.length ? renderClosures(c, spec.closures) : '';
  const jc = spec.jsCalls?.length ? renderJsArrays(c, spec.jsCalls) : '';
  const bfn = spec.blocks ? renderBlocks(spec.blocks, spec.seed) : null;
  if (bfn) out.push(...bfn.lines);
  const bl = spec.blocks && bfn ? callBlocks(c, spec.blocks, bfn) : '';
  if (spec.descent) out.push(...DESCENT_BODY(spec.descent));
  const gd = spec.descent ? renderDescent(c, spec.descent) : '';
  const tf = spec.tsForms?.length ? renderTsForms(c, spec.tsForms) : '';
  if (c.needsTsForms) out.push(...TS_FORM_BODY);
  if (c.needsClosureHelpers) out.push(...CLOSURE_HELPERS);
  if (c.needsRestHelpers) out.push(...REST_HELPERS);
  if (c.needsRegrow) out.push(...REGROW_HELPER);
  if (c.needsRowPick) out.push(...ROW_PICK_HELPER);
  if (c.needsFlagHelpers) out.push(...FLAG_HELPERS);
  if (c.needsExchange) out.push(...EXCHANGE_HELPER);
  if (c.needsTupleHelpers) out.push(...TUPLE_HELPERS);
  if (c.needsRebindHelpers) out.push(...REBIND_HELPERS);
  const mix = (spec.mix ? mixTerm(c) : '') + (fo ? ` + 0.25 * Math.tanh(${fo})` : '') + (ex ? ` + 0.25 * Math.tanh(${ex})` : '') + (ja ? ` + 0.25 * Math.tanh(${ja})` : '') + (cb ? ` + 0.25 * Math.tanh(${cb})` : '') + (ta ? ` + 0.25 * Math.tanh(${ta})` : '') + (rs ? ` + 0.25 * Math.tanh(${rs})` : '') + (cl ? ` + 0.25 * Math.tanh(${cl})` : '') + (orr ? ` + 0.25 * Math.tanh(${orr})` : '') + (tss ? ` + 0.25 * Math.tanh(${tss})` : '') + (cu ? ` + 0.25 * Math.tanh(${cu})` : '') + (lc ? ` + 0.25 * Math.tanh(${lc})` : '') + (jc ? ` + 0.25 * Math.tanh(${jc})` : '') + (bl ? ` + 0.25 * Math.tanh(${bl})` : '') + (gd ? ` + 0.25 * Math.tanh(${gd})` : '') + (tf ? ` + 0.25 * Math.tanh(${tf})` : '');
  // a third of the programs reset a number after its last use (`x = 1` before the return): a store the
  // forward sweep drops, which the backward sweep must not replay
  const reset = c.nums.filter((v) => v.w && !v.name.includes('.') && !v.name.includes('['));
  const resetAt = JSON.stringify(spec.retE).length % 3 === 0 && reset.length ? reset[JSON.stringify(spec.retE).length % reset.length].name : null;
  if (ret === 0 && resetAt) {
    const res = c.fresh('res');
    c.emit(`const ${res} = ${renderExpr(c, spec.retE)}${mix};`, `${resetAt} = ${lit(LITS[JSON.stringify(spec.retE).length % LITS.length])};`, `return ${res};`);
  } else if (ret === 0) c.emit(`return ${renderExpr(c, spec.retE)}${mix};`);
  else {
    const k = c.fresh('j');
    let body = '';
    c.scoped(() => {
      c.ints.push({ name: k, U: spec.rl });
      body = `${renderExpr(c, spec.retE)}${mix}`;
    });
    if (ret === 1) {
      c.emit(`for (let ${k} = 0; ${k} < out.length; ${k}++) {`);
      c.emit(`  out[${k}] = ${body};`);
      c.emit('}');
    } else {
      // a fresh array: from Array.from, grown by index from `[]` (upwards, or downwards so that the first
      // store leaves holes the later ones fill, one read before it is), or by push
      const r = c.fresh('r');
      const grow = (spec.rl + spec.cols + spec.la + spec.lb) % 7;
      // (a third of the grown arrays weigh each value by the length so far, read inline or named before
      // the store: the backward sweep must read the length the forward sweep read, not the final one)
      const byLength = (spec.la + spec.rl) % 3;
      const counted = byLength === 2 ? c.fresh('n') : null;
      const weighed = (v: string) => (byLength === 0 ? v : `(${v}) * (1 + 0.125 * ${counted ?? `${r}.length`})`);
      const count = counted ? [`  const ${counted} = ${r}.length;`] : [];
      if (grow >= 1 && grow <= 4) body = weighed(body);
      if (grow === 0) c.emit(`const ${r} = Array.from({ length: ${spec.rl} }, (_, ${k}) => ${body});`, `return ${r};`);
      else if (grow >= 4) {
        // appended by index (`r[r.length] = …`), a row pushed empty and filled by index, a field of an
        // object literal filled by index
        const loop = `for (let ${k} = 0; ${k} < ${spec.rl}; ${k}++) {`;
        if (grow === 4) c.emit(`const ${r}: number[] = [];`, loop, ...count, `  ${r}[${r}.length] = ${body};`, '}', `return ${r};`);
        else if (grow === 5) c.emit(`const ${r}: number[][] = [];`, `${r}.push([]);`, loop, `  ${r}[0][${k}] = ${body};`, '}', `return ${r}[0];`);
        else c.emit(`const ${r} = { v: [] as number[] };`, loop, `  ${r}.v[${k}] = ${body};`, '}', `return ${r}.v;`);
      } else {
        // (grown upwards from `new Array(1)` as well: an allocation stored past its end grows like a literal)
        c.emit(grow === 1 && spec.cols % 2 === 1 ? `const ${r}: number[] = new Array<number>(1).fill(0);` : `const ${r}: number[] = [];`);
        c.emit(grow === 3 ? `for (let ${k} = ${spec.rl - 1}; ${k} >= 0; ${k}--) {` : `for (let ${k} = 0; ${k} < ${spec.rl}; ${k}++) {`, ...count);
        // (downwards, the element below is still a hole when tested: the fallback is taken, as in JavaScript;
        // tested by `??` or in a statement)
        if (grow === 3 && spec.lb % 2 === 0) c.emit(`  ${r}[${k}] = ${body} + 0.5 * (${r}[${k} - 1] ?? 1);`);
        else if (grow === 3) {
          const h = c.fresh('below');
          c.emit(`  let ${h} = 1;`, `  if (${r}[${k} - 1] !== undefined) ${h} = ${r}[${k} - 1];`, `  ${r}[${k}] = ${body} + 0.5 * ${h};`);
        } else if (grow === 1 && spec.lb % 2 === 1) {
          // (stored by index and pushed in turn: the backward sweep of a push finds its element at the end)
          c.emit(`  if (${k} % 2 === 0) ${r}[${k}] = ${body};`, `  else ${r}.push(${body});`);
        } else c.emit(grow === 2 ? `  ${r}.push(${body});` : `  ${r}[${k}] = ${body};`);
        c.emit('}', `return ${r};`);
      }
    }
  }
  const rt = ret === 0 ? 'number' : ret === 1 ? 'void' : 'number[]';
  // (a required parameter may not follow an optional one: there y is `number | undefined`)
  for (let i = 0; i < decls.length - 1; i++) decls[i] = decls[i].replace(/^(\w+)\?: (.*)$/, '$1: $2 | undefined');
  out.push(`export function f(${decls.join(', ')}): ${rt} {`, ...c.lines, '}', '');

  // independents: by default every parameter; sometimes drop a few
  let wrt: string[] | undefined;
  if (spec.wrtDrop) {
    // (an optional object is passive: never named as an independent)
    const keep = params.filter((n, i) => !(spec.wrtDrop & (1 << i)) && !(n === 'p' && decls.some((d) => d.startsWith('p?:') || d.startsWith('p: P | undefined'))));
    if (keep.length && keep.length < params.length) wrt = keep;
  }
  return { source: out.join('\n'), head: 'f', params, args, ...(wrt ? { wrt } : {}) };
}

/** The function `fb` of loops over independent items (BlocksSpec), and how the head calls it. */
interface BlocksFn {
  lines: string[];
  params: string[];
  args: ArgSpec[];
  wrt: string[];
  out: number;
  obs: number[];
}

function renderBlocks(b: BlocksSpec, seed: number): BlocksFn {
  const out: string[] = [];
  const obs = (() => {
    const r = rng(seed + 29);
    return Array.from({ length: 2 * b.items }, (_, k) => Math.floor(r() * (k % 2 ? b.npts : b.ncams)));
  })();
  const n = b.items;
  const idxAt = (k: 0 | 1) => (b.idx === 0 ? `obs[2 * i${k ? ' + 1' : ''}]` : b.idx === 1 ? `LINK[2 * i${k ? ' + 1' : ''}]` : k ? `(i + 1) % ${b.npts}` : `i % ${b.ncams}`);
  if (b.idx === 1) out.push(`const LINK: number[] = [${obs.join(', ')}];`, '');
  if (b.helper) {
    // a helper of the two rows returning a small array (written out into the iteration by the blocks)
    const c = new Ctx(1, []);
    c.arrs.push({ name: 'c', len: b.ccols, f64: false, ro: true }, { name: 'p', len: b.pcols, f64: false, ro: true });
    for (const [k, e] of b.he.slice(0, 2).entries()) {
      c.emit(`const d${k} = ${squash(b.q + k, renderExpr(c, e), false)};`);
      c.nums.push({ name: `d${k}`, w: false });
    }
    c.emit(`return [${b.he.slice(2).map((e, k) => squash(b.q + k + 1, renderExpr(c, e), false)).join(', ')}];`);
    out.push('export function hb(c: number[], p: number[]): number[] {', ...c.lines, '}', '');
  }
  const outputs = b.out === 0 || b.out === 1 ? ['r'] : b.out === 2 ? ['out'] : ['out', 'reg'];
  const decls = ['cams: number[][]', 'pts: number[][]', 'w: number[]'];
  const args: ArgSpec[] = [{ kind: 'mat', rows: b.ncams, cols: b.ccols, lo: -1.5, hi: 1.5 }, { kind: 'mat', rows: b.npts, cols: b.pcols, lo: -1.5, hi: 1.5 }, vec(n)];
  const params = ['cams', 'pts', 'w'];
  if (b.idx === 0) {
    params.push('obs');
    decls.push('obs: number[]');
    args.push({ kind: 'index', n: 2 * n, hi: [b.ncams, b.npts] });
  }
  if (b.out === 2) {
    params.push('out');
    decls.push('out: Float64Array');
    args.push({ kind: 'vec', n: b.per * n, lo: -1.5, hi: 1.5, typed: true });
  } else if (b.out === 3) {
    params.push('out', 'reg');
    decls.push('out: number[]', 'reg: number[]');
    args.push(vec(b.per * n), vec(n));
  }
  const c = new Ctx(b.out < 2 ? 1 : 2, []);
  c.mats.push({ name: 'cams', rows: b.ncams, cols: b.ccols });
  c.arrs.push({ name: 'w', len: n, f64: false, ro: true, tup: true });
  c.emit('const n = w.length;');
  if (b.out === 0) c.emit(`const r = new Float64Array(${b.per} * n);`);
  if (b.out === 1) c.emit(`const r: number[] = new Array(${b.per} * n).fill(0);`);
  const carry = b.carry === 5;
  if (carry) c.emit('let s = 0.5;');
  c.emit('for (let i = 0; i < n; i++) {');
  c.block(() => {
    c.ints.push({ name: 'i', U: n });
    // the rows: bound to constants, or read in place (the array's name is the row expression)
    const rows = [
      { name: 'cam', at: `cams[${idxAt(0)}]`, len: b.ccols },
      { name: 'pt', at: `pts[${idxAt(1)}]`, len: b.pcols },
    ];
    for (const r of rows) {
      if (b.bind) c.emit(`const ${r.name} = ${r.at};`);
      // (not spread: \`Math.min(...cam)\` is a loop, which the blocks refuse; \`w\` still may be)
      c.arrs.push({ name: b.bind ? r.name : r.at, len: r.len, f64: false, ro: true, row: true, tup: true });
    }
    if (b.helper) {
      c.emit(`const h = hb(${b.bind ? 'cam' : rows[0].at}, ${b.bind ? 'pt' : rows[1].at});`);
      // (read at literal indices: the blocks refuse a computed index into a helper's result)
      c.nums.push({ name: 'h[0]', w: false }, { name: 'h[1]', w: false });
    }
    b.body.forEach((e, k) => {
      c.emit(`const t${k} = ${squash(b.q + k, renderExpr(c, e), false)};`);
      c.nums.push({ name: `t${k}`, w: false });
    });
    const value = (k: number) => squash(b.q + k + 2, `${renderExpr(c, b.outs[k])}${carry && k === 0 ? ' + s' : ''}`, false);
    const row = (k: number) => `${outputs[0]}[${b.per > 1 ? `${b.per} * i${k ? ` + ${k}` : ''}` : `i${k ? ` + ${k}` : ''}`}]`;
    const inBranch = b.branch?.out ? b.per - 1 : -1;
    if (b.branch) {
      const br = b.branch;
      c.emit('let u = 0;');
      c.emit(`if (${renderCond(c, br.c)}) {`);
      c.block(() => {
        c.emit(`u = ${squash(b.q, renderExpr(c, br.a), false)};`);
        if (inBranch >= 0) c.emit(`${row(inBranch)} = ${value(inBranch)};`);
      });
      c.emit('} else {');
      c.block(() => {
        c.emit(`u = ${squash(b.q + 1, renderExpr(c, br.b), false)};`);
        if (inBranch >= 0) c.emit(`${row(inBranch)} = u * ${renderExpr(c, { k: 'rd', s: 1, i: { k: 'c', v: 0 } })};`);
      });
      c.emit('}');
      c.nums.push({ name: 'u', w: false });
    }
    for (let k = 0; k < b.per; k++) if (k !== inBranch) c.emit(`${row(k)} = ${value(k)};`);
    if (carry) c.emit(`s = Math.tanh(s + ${row(0)});`);
  });
  c.emit('}');
  if (b.out === 3)
    c.scoped(() => {
      c.emit('for (let i = 0; i < n; i++) {');
      c.block(() => {
        c.ints.push({ name: 'i', U: n });
        c.emit(`reg[i] = ${squash(b.q + 5, `${renderExpr(c, b.second)} * w[i]`, false)};`);
      });
      c.emit('}');
    });
  if (b.out < 2) c.emit('return r;');
  const wrt = params.filter((p, k) => k < 3 && !((b.drop & 1 && p === 'w') || (b.drop & 2 && p === 'pts')));
  if (b.wrtOut === 7 && b.out >= 2) wrt.push('out');
  out.push(`// fb: loops over independent items (the fuzz property 'blocks'): wrt ${wrt.join(',')}; arguments ${JSON.stringify(args)}`);
  out.push(`export function fb(${decls.join(', ')}): ${b.out === 0 ? 'Float64Array' : b.out === 1 ? 'number[]' : 'void'} {`, ...c.lines, '}', '');
  return { lines: out, params, args, wrt, out: b.out, obs };
}

/** The head's call of `fb` (renderBlocks) on arrays of its numbers; returns the number its outputs give. */
function callBlocks(c: Ctx, b: BlocksSpec, fn: BlocksFn): string {
  let k = 0;
  const value = () => {
    const v = k++;
    const n = pick(c.nums, v + b.q);
    return n && v % 3 !== 2 ? (v % 2 ? `0.5 * ${n.name}` : n.name) : lit(LITS[(v + b.q) % LITS.length]);
  };
  const matrix = (rows: number, cols: number) => `[${Array.from({ length: rows }, () => `[${Array.from({ length: cols }, value).join(', ')}]`).join(', ')}]`;
  const args = [matrix(b.ncams, b.ccols), matrix(b.npts, b.pcols), `[${Array.from({ length: b.items }, value).join(', ')}]`];
  if (b.idx === 0) args.push(`[${fn.obs.join(', ')}]`);
  const r = c.fresh('bk');
  if (fn.out < 2) c.emit(`const ${r} = fb(${args.join(', ')});`);
  else if (fn.out === 2) c.emit(`const ${r} = new Float64Array(${b.per * b.items});`, `fb(${args.join(', ')}, ${r});`);
  else {
    c.emit(`const ${r}: number[] = new Array(${b.per * b.items}).fill(0);`, `const ${r}g: number[] = new Array(${b.items}).fill(0.5);`, `fb(${args.join(', ')}, ${r}, ${r}g);`);
    return `${r}[0] + ${r}[${b.per * b.items - 1}] + ${r}g[0]`;
  }
  return `${r}[0] + ${r}[${b.per * b.items - 1}]`;
}

/** Arguments for a rendered program: point number k of its seed. */
export function drawArguments(r: Pick<Rendered, 'args'>, seed: number, k = 0): unknown[] {
  const g = rng((seed * 7919 + k * 104729 + 1) >>> 0);
  return r.args.map((s) => drawArg(s, g));
}
