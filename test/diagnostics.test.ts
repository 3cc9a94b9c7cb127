// Diagnostics corpus: inputs outside the differentiable subset, each with the diagnostic tsad must give —
// exact file:line:col, a message matching a pattern, a hint, and a rendered code frame whose caret sits
// on that column. compile() must never throw. A few must-compile cases check that only functions the
// head reaches are held to the subset, and a separate block feeds very large and very deep inputs to a
// child process (so a hang or a stack overflow cannot take the test runner down) and measures time.
//
// Cases marked `bug:` run as `it.fails`: they document a compiler defect (see the `// BUG:` comment).
// When the defect is fixed the case starts to "fail" as an it.fails — then drop its `bug` field.
// TSAD_DIAG_STRICT=1 runs the bug cases as ordinary tests, to read why each one fails.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compile, type CompileOptions, type CompileResult } from '../src/api/compile.js';
import { loadGenerated } from '../src/api/load.js';
import { formatDiagnostic, type Diagnostic } from '../src/frontend/diagnostics.js';

type Src = string | Record<string, string>;

const STRICT = process.env.TSAD_DIAG_STRICT === '1';
/** `it`, or `it.fails` for a case that documents a known bug. */
const itCase = (bug: string | undefined | boolean) => (bug && !STRICT ? it.fails : it);

interface BadCase {
  name: string;
  src: Src;
  /** compile options; `head` defaults to 'f' */
  opts?: Partial<CompileOptions>;
  /** where the error must be reported (file defaults to input.ts) */
  file?: string;
  line: number;
  col: number;
  message: RegExp;
  /** further pattern the rendered diagnostic (message + frame + hint) must match */
  rendered?: RegExp;
  /** set when tsad currently gets this case wrong: the test runs as it.fails */
  bug?: string;
  /** the one problem gives exactly this one error (no cascade at later uses) */
  single?: boolean;
}

/** `export function f(x: number): number { <body> }` over several lines. */
const fn = (...body: string[]) => `export function f(x: number): number {\n${body.map((l) => '  ' + l).join('\n')}\n}\n`;

const BAD: BadCase[] = [
  {
    name: 'Math: apply with a this other than null, undefined or Math',
    src: `export function f(xs: number[]): number {\n  return Math.max.apply(xs, xs);\n}\n`,
    line: 2, col: 10, message: /Math\.max\.apply is supported as `Math\.max\.apply\(null, xs\)` only/, rendered: /Math\.max\(\.\.\.xs\)/, single: true,
  },
  {
    name: 'arrays: spreading rows into push',
    src: `export function f(m: number[][]): number {\n  const out: number[][] = [];\n  out.push(...m);\n  return out[0][0];\n}\n`,
    line: 3, col: 12, message: /spreading into `push` is supported for arrays of numbers only/, rendered: /push the values in a loop/, single: true,
  },
  {
    name: 'callbacks: a two-argument Math function given to map would take the index as its second argument',
    src: `export function f(xs: number[]): number {\n  return xs.map(Math.pow).reduce((a, b) => a + b, 0);\n}\n`,
    line: 2, col: 17, message: /`map` would pass `Math.pow` the index and the array as well as the value/,
    rendered: /\(v, i\) => Math\.pow\(v, i\)` for what this computes, or `\(v\) => Math\.pow\(v, 2\)`/, single: true,
  },
  // ---------------- reference model: what it cannot follow ----------------
  {
    name: 'reference: one array passed as a written parameter and as another',
    src: `function cross(out: number[], a: number[], b: number[]): number[] {\n  const ax = a[0], ay = a[1];\n  out[0] = ay * b[0];\n  out[1] = ax * b[1];\n  return out;\n}\nexport function f(w: number[], v: number[]): number {\n  cross(w, w, v);\n  return w[0] + w[1];\n}\n`,
    line: 8, col: 3, message: /'cross' is given one array as both 'out', which it writes, and 'a'/,
    rendered: /pass a copy for one of them/,
  },
  {
    name: 'reference: a helper that returns a given array on one branch only',
    src: `function pick(a: number[], b: number[]): number[] {\n  if (a[0] > 0) return a;\n  return [b[0], b[1]];\n}\nexport function f(x: number[], y: number[]): number {\n  const r = pick(x, y);\n  r[0] = r[0] * 2;\n  return r[0] + x[0];\n}\n`,
    line: 6, col: 13, message: /'pick' may return an array or object it was given/,
    rendered: /return a fresh array/,
  },
  {
    name: 'closure: a destructured rest parameter of a local function',
    src: fn('const g = (...[a, b]: number[]): number => a * b;', 'return g(x, 2);'),
    line: 2, col: 14, message: /a destructured rest parameter of the local function 'g' is not supported/, rendered: /name it/,
  },
  {
    name: 'namespace object: passed as a value is refused where it is passed',
    src: `const vec = { dot(a: number[], b: number[]): number { return a[0] * b[0]; } };\nfunction g(v: number[], o: object): number { return v[0]; }\nexport function f(x: number[]): number {\n  return g(x, vec) + vec.dot(x, x);\n}\n`,
    opts: { head: 'f' },
    line: 4, col: 15, message: /the object of functions 'vec' is used as a value here/, rendered: /call its functions/,
  },
  {
    name: 'namespace object: a member read without a call',
    src: `const vec = { dot(a: number[], b: number[]): number { return a[0] * b[0]; } };\nexport function f(x: number[]): number {\n  const d = vec.dot;\n  return d(x, x);\n}\n`,
    line: 3, col: 13, message: /the function 'vec.dot' is read as a value here/, rendered: /declare it as a top-level function/,
  },
  {
    name: 'namespace object: a member assigned',
    src: `const vec = { dot(a: number[], b: number[]): number { return a[0] * b[0]; } };\nexport function f(x: number[]): number {\n  vec.dot = (a: number[], b: number[]): number => 0;\n  return vec.dot(x, x);\n}\n`,
    line: 3, col: 3, message: /the object of functions 'vec' cannot be assigned to/, single: true,
  },
  {
    name: 'namespace object: data mixed with functions is refused at the data member',
    src: `const vec = { eps: 1e-3, dot(a: number[], b: number[]): number { return a[0] * b[0] + this.eps; } };\nexport function f(x: number[]): number {\n  return vec.dot(x, x);\n}\n`,
    line: 1, col: 15, message: /the object 'vec' mixes functions and data \(the data member 'eps'\)/, rendered: /const VEC_EPS = …/, single: true,
  },
  {
    name: 'namespace object: declared with let',
    src: `let vec = { dot(a: number[], b: number[]): number { return a[0] * b[0]; } };\nexport function f(x: number[]): number {\n  return vec.dot(x, x);\n}\n`,
    line: 1, col: 5, message: /the object of functions 'vec' is declared with `let`\/`var`/,
  },
  {
    name: 'classes: a function held in a field is refused at the field, with the method to write',
    src: `class Model {\n  constructor(public w: number) {}\n  act = (x: number): number => Math.tanh(this.w * x);\n}\nexport function f(w: number, x: number): number {\n  return new Model(w).act(x);\n}\n`,
    line: 3, col: 3, message: /a function held in a field \('act = \(…\) => …'\) is not supported/,
    rendered: /write it as a method: `act\(…\) \{ … \}`/,
  },
  {
    name: 'callbacks: removing elements from the array the method runs over',
    src: `export function f(x: number[]): number {\n  const xs = x.slice();\n  let s = 0;\n  xs.forEach((v) => {\n    s += v;\n    xs.pop();\n  });\n  return s;\n}\n`,
    line: 6, col: 5, message: /the callback of `forEach` removes elements from the array `forEach` runs over/,
    rendered: /iterate over a copy/,
  },
  {
    name: "classes: a getter read with a string key (`a['mean']`)",
    src: `class Acc {\n  total = 0;\n  get mean(): number { return this.total; }\n}\nexport function f(x: number): number {\n  const a = new Acc();\n  a.total = x;\n  return a['mean'];\n}\n`,
    line: 8, col: 10, message: /'mean' is not a data field of this object/,
    rendered: /write `a\.mean`/,
  },
  // ---------------- syntax errors ----------------
  {
    name: 'syntax: missing closing parenthesis',
    src: fn('return (x + 1;'),
    line: 2, col: 16, message: /'\)' expected/,
  },
  {
    name: 'syntax: missing operand',
    src: fn('const y = x *;', 'return y;'),
    line: 2, col: 16, message: /expression expected/i,
  },
  {
    name: 'syntax: unclosed block at end of file',
    src: `export function f(x: number): number {\n  if (x > 0) {\n    return x;\n  \n  return -x;\n`,
    line: 6, col: 1, message: /'\}' expected/,
  },
  {
    name: 'syntax: invalid character',
    src: fn('const y = x # 2;', 'return y;'),
    line: 2, col: 15, message: /invalid character/i,
  },
  // ---------------- type errors ----------------
  {
    name: 'type error: string assigned to number',
    src: fn("const y: number = 'a';", 'return x + y;'),
    line: 2, col: 9, message: /not assignable to type 'number'/,
  },
  {
    name: 'type error: boolean argument to a number parameter',
    src: `function g(a: number): number { return a; }\n${fn('return g(true);')}`,
    line: 3, col: 12, message: /Argument of type 'boolean' is not assignable/,
  },
  {
    name: 'type error: unknown interface field',
    src: `interface P { a: number }\nexport function f(p: P): number {\n  return p.b * 2;\n}\n`,
    line: 3, col: 12, message: /Property 'b' does not exist on type 'P'/,
  },
  // ---------------- classes, closures, nested functions ----------------
  {
    name: 'class inside the head',
    src: fn('class P { v = 1; }', 'return x;'),
    line: 2, col: 3, message: /classes declared inside a function are not supported/, rendered: /top level of the module/,
  },
  // classes (src/frontend/classes.ts): what is refused
  {
    name: 'class: a polymorphic call (the method depends on the run-time class)',
    src: `class A {\n  constructor(public w: number) {}\n  cost(): number { return this.w; }\n}\nclass B extends A {\n  cost(): number { return 2 * this.w; }\n}\nexport function f(x: number): number {\n  const a: A = new B(x);\n  return a.cost();\n}\n`,
    line: 10, col: 10, message: /'cost' is overridden in 'B', a subclass of 'A'.*polymorphic dispatch is not supported/, rendered: /a `const` made where it is declared, `const b = new A\(…\)`/,
  },
  {
    name: 'class: a polymorphic call through this in the base class',
    src: `class A {\n  constructor(public w: number) {}\n  cost(): number { return this.w; }\n  total(): number { return 2 * this.cost(); }\n}\nclass B extends A {\n  cost(): number { return this.w * this.w; }\n}\nexport function f(x: number): number {\n  return new B(x).total();\n}\n`,
    line: 4, col: 32, message: /'cost' is overridden in 'B'.*run-time class of 'this'/,
  },
  {
    name: 'class: a #private field',
    src: `class A {\n  #w = 1;\n  get w(): number { return this.#w; }\n}\n${fn('return new A().w * x;')}`,
    line: 2, col: 3, message: /'#private' members \('#w'\) are not supported/, rendered: /private w/,
  },
  {
    name: 'class: a static field',
    src: `class A {\n  static k = 2;\n}\n${fn('return A.k * x;')}`,
    line: 2, col: 3, message: /static fields \('static k'\) are not supported/, rendered: /module-level `const`/,
  },
  {
    name: 'class: a generic class',
    src: `class Box<T> {\n  constructor(public v: T) {}\n}\n${fn('return new Box(x).v;')}`,
    line: 1, col: 11, message: /generic classes \('Box<…>'\) are not supported/,
  },
  {
    name: 'class: an abstract class (one error, not one per member)',
    src: `abstract class A {\n  abstract m(): number;\n}\n${fn('return x;')}`,
    line: 1, col: 1, message: /abstract classes are not supported/,
  },
  {
    name: 'class: a recursive class (a tree) is named as such, also where an empty array literal is its first use',
    src: `class Node {\n  kids: Node[];\n  w: number;\n  constructor(kids: Node[], w: number) { this.kids = kids; this.w = w; }\n}\nexport function f(x: number): number {\n  const leaf = new Node([], x);\n  return new Node([leaf], 2).kids[0].w * x;\n}\n`,
    line: 7, col: 25, message: /array literal has type 'Node\[\]', and 'Node' holds instances of itself \(a tree, a linked list\)/, rendered: /flat arrays/, single: true,
  },
  {
    name: 'interface: a recursive parameter type',
    src: `interface Tree { w: number; kids: Tree[] }\nexport function f(t: Tree, x: number): number {\n  return t.w * x;\n}\n`,
    line: 2, col: 19, message: /parameter 't' has type 'Tree', and 'Tree' holds instances of itself/, single: true,
  },
  {
    // (a field given a fresh value after a loop filling another moves up, but not past what its value reads)
    name: 'class: a field whose value reads a local declared after the object is first used',
    src: `class A {\n  xs: number[];\n  buf: Float64Array;\n  constructor(x: number[]) {\n    this.xs = [];\n    for (const v of x) this.xs.push(v);\n    const n = this.xs.length;\n    this.buf = new Float64Array(n);\n  }\n}\nexport function f(x: number[]): number {\n  return new A(x).buf.length * x[0];\n}\n`,
    line: 6, col: 5, message: /field 'buf' of 'A' has no value yet where the constructor first uses the object/, single: true,
  },
  {
    name: 'class: a field the constructor may read before assigning it',
    src: `class A {\n  a: number;\n  b: number;\n  constructor(x: number) {\n    this.a = x;\n    this.show();\n    this.b = x;\n  }\n  show(): void {}\n}\n${fn('return new A(x).b;')}`,
    line: 6, col: 5, message: /field 'b' of 'A' has no value yet where the constructor first uses the object/,
  },
  {
    name: 'class: a field initializer reading this',
    src: `class A {\n  v = 1;\n  init = this.v * 2;\n}\n${fn('return new A().init * x;')}`,
    line: 3, col: 10, message: /the initializer of field 'init' reads `this`/,
  },
  {
    name: 'class: a compound assignment through a setter',
    src: `class A {\n  v = 0;\n  get s(): number { return this.v; }\n  set s(t: number) { this.v = t; }\n}\n${fn('const a = new A();', 'const y = (a.s += x) * 2;', 'return a.v + y;')}`,
    line: 8, col: 14, message: /compound assignment or an assignment inside an expression through the setter 's'/, rendered: /`a\.s = …;`/,
  },
  {
    name: 'class: a method used as a value',
    src: `class A {\n  v = 0;\n  m(): number { return this.v; }\n}\n${fn('const a = new A();', 'const g = a.m;', 'return x;')}`,
    line: 7, col: 13, message: /the method 'm' used as a value/,
  },
  {
    name: 'class: super(…) inside a branch',
    src: `class A {\n  constructor(public w: number) {}\n}\nclass B extends A {\n  constructor(w: number) {\n    if (w > 0) super(w); else super(-w);\n  }\n}\n${fn('return new B(x).w;')}`,
    line: 6, col: 16, message: /`super\(…\)` inside a block or an expression is not supported/,
  },
  {
    name: 'class: a base field declared again without a value',
    src: `class A {\n  constructor(public x: number) {}\n}\nclass B extends A {\n  x: number;\n  constructor(x: number) {\n    super(x);\n  }\n}\n${fn('return new B(x).x;')}`,
    line: 5, col: 3, message: /field 'x' of 'B' declares a field of its base class again without a value/, rendered: /declare x/,
  },
  {
    name: 'class: this.s() in a static method overridden by a subclass',
    src: `class A {\n  static make(x: number): number { return this.twice(x); }\n  static twice(x: number): number { return 2 * x; }\n}\nclass B extends A {\n  static twice(x: number): number { return 3 * x; }\n}\n${fn('return B.make(x);')}`,
    line: 2, col: 43, message: /'twice' is overridden in 'B'/,
  },
  // ---------------- closures and functions as values (src/frontend/closures.ts) ----------------
  {
    name: 'closure: a local function assigning an enclosing variable escapes into a variable',
    src: fn('let s = 0;', 'const add = (v: number) => { s += v; };', 'const g = add;', 'g(x);', 'return s;'),
    line: 4, col: 13, message: /the local function 'add' assigns variables of the enclosing function and escapes here/, rendered: /call it directly in the enclosing function/,
  },
  {
    name: 'closure: recursion of a local function',
    src: fn('const g = (v: number): number => (v > 1 ? g(v / 2) : v);', 'return g(x);'),
    line: 2, col: 45, message: /the local function 'g' calls itself \(recursion\)/, rendered: /move it to the top level/,
  },
  {
    name: 'closure: `this` inside a nested function declaration',
    src: fn('function g(v: number): number { return v * this.k; }', 'return g(x);'),
    line: 2, col: 46, message: /`this` inside the local function 'g' depends on how it is called/, rendered: /write an arrow function/,
  },
  {
    name: 'closure: a function chosen at run time passed to a helper',
    src: `function sq(v: number): number { return v * v; }\nfunction cube(v: number): number { return v * v * v; }\nfunction apply(h: (v: number) => number, v: number): number { return h(v); }\n${fn('return apply(x > 0 ? sq : cube, x);')}`,
    line: 5, col: 16, message: /the function passed to 'apply' as 'h' cannot be known statically here/, rendered: /write an `if` with one call of 'apply' per function/,
  },
  {
    name: 'closure: a head taking a function',
    src: `export function f(h: (v: number) => number, x: number): number {\n  return h(x) * 2;\n}\n`,
    line: 1, col: 19, message: /the parameter 'h' of 'f' holds a function, known only at run time here/, rendered: /give the head data, not functions/,
  },
  {
    name: 'closure: a function passed to a helper assigns an enclosing variable',
    src: `function apply(h: (v: number) => number, v: number): number { return h(v); }\n${fn('let n = 0;', 'const g = (v: number) => { n++; return v * 2; };', 'return apply(g, x) + n;')}`,
    line: 5, col: 16, message: /the function passed to 'apply' assigns 'n', a variable of the enclosing function/, rendered: /return the new value from the function/,
  },
  {
    name: 'closure: a local function assigning an enclosing variable inside a larger expression',
    src: fn('let s = 1;', 'const add = (v: number) => { s += v; return s; };', 'return s * add(x);'),
    line: 4, col: 14, message: /the local function 'add' assigns 's', a variable of the enclosing function, and is called inside a larger expression/, rendered: /call it in a statement of its own/,
  },
  {
    name: 'closure: a `const` local function called (through another) before its declaration',
    src: fn('const r = () => g3(2);', 'const y = r();', 'const g3 = (v: number) => v * x;', 'return y;'),
    line: 2, col: 19, message: /the local function 'g3' is called before its `const` declaration has run/, rendered: /function declaration/,
  },
  {
    name: 'closure: a local function needing statements in a branch of ?:',
    src: fn('const g = (v: number) => { let t = v; for (let i = 0; i < 3; i++) t = Math.sin(t); return t; };', 'return x > 0 ? g(x) : 0;'),
    line: 3, col: 18, message: /the local function 'g' is called in a branch of `\? :`/, rendered: /compute it in an `if`/,
  },
  {
    name: 'closure: a function read from an array',
    src: fn('const g = (v: number) => v * 2;', 'return [g][0](x);'),
    line: 3, col: 10, message: /this kind of call is not supported/, rendered: /known only at run time/,
  },
  {
    name: 'closure stored in a `let` assigned again',
    src: `export function f(xs: number[]): number {\n  let g = (v: number) => v * 2;\n  if (xs.length > 2) g = (v: number) => v * 3;\n  return xs.map(g)[0];\n}\n`,
    line: 2, col: 7, message: /the local function 'g' is assigned again, or named above its declaration/, rendered: /declare it once/,
  },
  // ---------------- generators, async ----------------
  {
    name: 'generator head',
    src: `export function* f(x: number) {\n  yield x;\n}\n`,
    line: 1, col: 1, message: /generators/,
  },
  {
    name: 'async head',
    src: `export async function f(x: number): Promise<number> {\n  return x;\n}\n`,
    line: 1, col: 1, message: /async/,
  },
  {
    name: 'await in the head',
    src: `export async function f(x: number): Promise<number> {\n  const y = await g(x);\n  return y;\n}\nasync function g(x: number): Promise<number> { return x; }\n`,
    line: 1, col: 1, message: /async/,
  },
  // ---------------- try, eval, dynamic keys, any ----------------
  {
    name: 'try/catch',
    src: fn('try {', '  return x * x;', '} catch (e) {', '  return 0;', '}'),
    line: 2, col: 3, message: /`try`\/`catch` is not supported/,
  },
  {
    name: 'eval',
    src: fn("const y: number = eval('x * 2');", 'return y;'),
    line: 2, col: 21, message: /eval/,
  },
  {
    name: 'dynamic key obj[key]',
    src: `export function f(p: Record<string, number>, k: string): number {\n  const q = { a: p.a, b: 1 };\n  return p[k] * 2 + q.b;\n}\n`,
    line: 3, col: 10, message: /dynamic keys/,
  },
  {
    name: 'dynamic key on a Record<string, number>',
    src: `export function f(p: Record<string, number>, k: string): number {\n  return p[k] * 2;\n}\n`,
    line: 2, col: 10, message: /dynamic keys/,
  },
  {
    name: '`any` parameter',
    src: `export function f(x: any): number {\n  return x * 2;\n}\n`,
    line: 1, col: 19, message: /type 'any'/,
  },
  {
    name: '`any` local',
    src: fn('const y: any = x;', 'return y * 2;'),
    line: 2, col: 9, message: /type 'any'/,
  },
  // ---------------- non-determinism, unknown identifiers ----------------
  {
    name: 'Math.random in the head',
    src: fn('return x * Math.random();'),
    line: 2, col: 14, message: /Math\.random\(\) is non-deterministic/,
  },
  {
    name: 'Math.random in a function the head calls',
    src: `function noise(s: number): number {\n  return s * Math.random();\n}\n${fn('return x + noise(0.1);')}`,
    line: 2, col: 14, message: /Math\.random\(\) is non-deterministic/,
  },
  {
    name: 'Date.now',
    src: fn('const t = Date.now();', 'return x * t;'),
    line: 2, col: 13, message: /Date\.now\(\) is non-deterministic/,
  },
  {
    name: 'a helper result holding its argument, then written through: refused (the derivatives were silently wrong)',
    src: 'function wrap(a: number[]): number[][] {\n  return [a, [1, 2]];\n}\nexport function f(x: number[]): number {\n  const m = wrap(x);\n  m[0][0] = m[0][1] * 3;\n  return x[0] * x[1];\n}\n',
    line: 5, col: 13, message: /'wrap' returns an array or object that holds one it was given, and this function writes numbers into them/,
  },
  {
    name: 'a standard-library global tsc knows (Object.keys): refused as unsupported, not as undefined',
    src: fn('const o = { a: x };', 'return Object.keys(o).length * x;'),
    line: 3, col: 10, message: /'Object' of JavaScript's standard library is not supported/,
  },
  {
    name: 'a standard-library function (parseFloat) called in a differentiated function',
    src: fn("return x * parseFloat('1.5');"),
    line: 2, col: 14, message: /'parseFloat' of JavaScript's standard library is not supported/,
  },
  {
    name: 'unknown identifier',
    src: fn('return x * scale;'),
    line: 2, col: 14, message: /Cannot find name 'scale'/,
  },
  // ---------------- head, --wrt, --of ----------------
  {
    name: 'head function not declared',
    src: `export function g(x: number): number {\n  return x;\n}\nexport const h = (x: number): number => x * 2;\n`,
    line: 1, col: 1, message: /head function 'f' is not declared/,
    rendered: /\bg, h\b/,
  },
  {
    name: 'head names a constant, not a function',
    src: `export const f = 3;\nexport function g(x: number): number {\n  return x;\n}\n`,
    line: 1, col: 14, message: /'f'.*(not a function|is a constant)/,
    rendered: /\bg\b/,
  },
  {
    name: '--wrt names a non-parameter',
    src: `export function f(x: number, y: number): number {\n  return x * y;\n}\n`,
    opts: { wrt: ['z'] },
    line: 1, col: 1, message: /\(--wrt, or wrt in the runtime API\) name 'z', which is not a parameter/,
    rendered: /parameters: x, y/,
  },
  {
    name: '--wrt names a non-parameter of an arrow-function head',
    src: `export const f = (x: number, y: number): number => x * y;\n`,
    opts: { wrt: ['q'] },
    line: 1, col: 18, message: /name 'q', which is not a parameter/,
  },
  {
    name: '--wrt names a boolean',
    src: `export function f(x: number, flag: boolean): number {\n  return flag ? x : -x;\n}\n`,
    opts: { wrt: ['flag'] },
    line: 1, col: 1, message: /\(--wrt, or wrt in the runtime API\) name 'flag', which carries no floating-point value/,
  },
  {
    name: '--of names a number parameter',
    src: `export function f(x: number, y: number): number {\n  return x * y;\n}\n`,
    opts: { of: ['y'] },
    line: 1, col: 1, message: /--of names 'y', which is not an array or object parameter/,
  },
  {
    name: 'head returns void and writes nothing',
    src: `export function f(x: number): void {\n  const y = x * 2;\n}\n`,
    line: 1, col: 1, message: /returns no floating-point value/,
  },
  {
    name: 'head returns a boolean',
    src: `export function f(x: number): boolean {\n  return x > 0;\n}\n`,
    line: 1, col: 1, message: /returns no floating-point value/,
  },
  {
    name: 'head returns void and only reads its array',
    src: `export function f(x: number, out: number[]): void {\n  const y = x * out[0];\n}\n`,
    line: 1, col: 1, message: /returns no floating-point value|writes no/,
  },
  // ---------------- declarations ----------------
  {
    name: '`var` read before it is assigned',
    src: fn('var y;', 'if (x > 0) y = x * 2;', 'return y;'),
    line: 4, col: 10, message: /'y' may be read before it is assigned/,
  },
  {
    name: 'module-level `let`',
    src: `let scale = 2;\n${fn('return x * scale;')}`,
    line: 1, col: 5, message: /module-level mutable state/,
  },
  {
    name: 'module-level `var` assigned in a function',
    src: `var k = 2;\nfunction bump(): void { k = k + 1; }\n${fn('return x * k;')}`,
    line: 1, col: 5, message: /module-level mutable state/,
  },
  {
    name: 'enum',
    src: `enum K { A, B }\n${fn('return x;')}`,
    line: 1, col: 1, message: /enums are not supported/,
  },
  // ---------------- strings ----------------
  {
    name: 'array of strings as --wrt',
    src: `export function f(x: number, names: string[]): number {\n  return x * names.length;\n}\n`,
    opts: { wrt: ['names'] },
    line: 1, col: 1, message: /\(--wrt, or wrt in the runtime API\) name 'names', which carries no floating-point value/,
  },
  {
    name: 'head returns an array of strings',
    src: `export function f(x: number): string[] {\n  return x > 0 ? ['a'] : ['b'];\n}\n`,
    line: 1, col: 1, message: /returns no floating-point value|string/,
  },
  {
    name: 'template string',
    src: fn('const s = `v${x}`;', 'return x;'),
    line: 2, col: 13, message: /template strings are not supported/,
  },
  {
    name: 'string concatenation',
    src: `export function f(x: number, a: string): number {\n  const s = a + 'b';\n  return x;\n}\n`,
    line: 2, col: 13, message: /string operations are not supported/,
  },
  // ---------------- expressions ----------------
  {
    name: 'spread in an array literal inside a condition',
    src: `export function f(xs: number[]): number {\n  const ys = xs.length > 0 ? [...xs, 1] : xs;\n  return ys[0];\n}\n`,
    line: 2, col: 30, message: /building an array inside a condition/,
  },
  {
    name: 'an untyped empty array never pushed into',
    src: fn('const out = [];', 'return x;'),
    line: 2, col: 9, message: /cannot determine the element type of 'out'/, rendered: /const out: number\[\] = \[\]/,
  },
  {
    name: '`new Array(n)` filled by a loop that may stop early',
    src: fn('const a = new Array(3);', 'for (let i = 0; i < 3; i++) {', '  a[i] = x;', '  if (x > 1) break;', '}', 'return a[2];'),
    line: 2, col: 13, message: /created with holes.*may stop before the last element/,
  },
  {
    name: 'an array literal indexed in a branch of `?:`',
    src: fn('return x > 1 ? [x, 2 * x][1] : 0;'),
    line: 2, col: 18, message: /an array or object literal \(or a copy\) read at once, inside a branch.*is not supported/, rendered: /name it first/,
  },
  {
    name: 'a nullable `let` assigned in a branch only',
    src: fn('let y: { u: number } | undefined;', 'if (x > 1) y = { u: x * x };', 'return y === undefined ? 0 : y.u;'),
    line: 2, col: 7, message: /the nullable variable 'y' must be `const` with an initializer/, rendered: /assign it once, in the block that declares it/,
  },
  {
    name: 'writing into module-level data (an element)',
    src: `const W = [1, 2];\nexport function f(x: number): number {\n  W[0] = x;\n  return W[0] * W[0];\n}\n`,
    line: 3, col: 3, message: /'f' writes into the module constant 'W': tsad treats module-level data as constant/, rendered: /allocate the buffer inside the function, or pass it as a parameter/,
  },
  {
    name: 'writing into module-level data (through a local name, and by a helper given it)',
    src: `const BUF = [0, 0];\nfunction put(out: number[], x: number): void {\n  out[0] = x;\n}\nexport function f(x: number): number {\n  const b = BUF;\n  put(b, x);\n  return b[0] * x;\n}\n`,
    line: 7, col: 3, message: /'f' writes into the module constant 'BUF'/,
  },
  {
    name: 'an optional array field holding active values',
    src: `interface Opt { w?: number[] }\nexport function f(x: number): number {\n  const o: Opt = { w: [x, 2] };\n  return o.w ? o.w[0] * o.w[1] : 0;\n}\n`,
    line: 3, col: 9, message: /'o' has the optional field 'w', an array or object that may be absent, and its numbers depend on the independents/, rendered: /make the field required/,
  },
  {
    name: 'a variable declared inside a checkpoint region and used after it',
    src: fn('// $ad checkpoint-start', 'const z = Math.sin(x);', '// $ad checkpoint-end', 'return z * x;'),
    line: 3, col: 9, message: /'z' is declared inside a '\$ad checkpoint-start' … '\$ad checkpoint-end' region and used after it/, rendered: /declare it before the region/,
  },
  {
    name: 'a parameter default computed from another parameter, holding an array',
    src: `export function f(x: number, ys: number[] = [x, 1]): number {\n  return ys[0] * ys[1];\n}\n`,
    line: 1, col: 45, message: /the default value of 'ys' reads other parameters: tsad computes such defaults for numbers only/, rendered: /declare it required \(`ys: number\[\]`\) and pass \[x, 1\] where it is left out; to keep it optional, give it the default in the body, `if \(ys === undefined\) ys = \[x, 1\];`/,
  },
  {
    // (`p?.a` on a `p` typed present reads it as `p.a`; after an element read, past the end is undefined)
    name: 'optional chaining after an element read',
    src: `interface P { a: number }\nexport function f(ps: P[]): number {\n  return (ps[0]?.a ?? 1) * 2;\n}\n`,
    line: 3, col: 11, message: /`\?\.` after `ps\[0\]`/,
  },
  {
    // (a statement's own `g(x) ?? 1` freezes the call's value first; in a branch that would run it unconditionally)
    name: '`??` on a call in a branch of `? :` (its left operand is tested and then used)',
    src: `function g(x: number): number | null { return x > 0 ? x : null; }\n${fn('const y = x > 0.5 ? g(x) ?? 1 : 0;', 'return y * 2;')}`,
    line: 3, col: 23, message: /left operand of `\?\?` must be a variable or a field/, rendered: /name it first/,
  },
  {
    name: 'a nullable `let`',
    src: fn('let best: { u: number } | null = null;', 'if (x > 0) best = { u: x };', 'return best === null ? 0 : best.u;'),
    line: 2, col: 7, message: /nullable variable 'best' must be `const`/, single: true,
  },
  {
    name: 'reduce on an array made by new Array(n), typed any[]',
    src: `export function f(x: number[]): number {\n  const out = new Array(x.length);\n  for (let i = 0; i < x.length; i++) out[i] = Math.tanh(x[i]);\n  return out.reduce((s, v) => s + v, 0);\n}\n`,
    line: 4, col: 10, message: /is called on an array TypeScript types `any\[\]`/, rendered: /const out: number\[\] = new Array\(n\)/,
  },
  {
    name: 'a `var` of a local function used outside its block',
    src: `export function f(xs: number[]): number {\n  function last(v: number[]): number {\n    for (var i = 0; i < v.length; i++) {}\n    return v[i - 1];\n  }\n  return last(xs) * 2;\n}\n`,
    line: 3, col: 14, message: /a `var` inside the local function 'last' that is used outside its block/, rendered: /declare it with `let` or `const`/,
  },
  {
    name: 'an optional parameter given its default in the body, then assigned again',
    src: `export function f(x: number, y?: number): number {\n  y = y ?? 2;\n  y = y * x;\n  return x * y;\n}\n`,
    line: 2, col: 3, message: /'y' is nullable and cannot be reassigned/, rendered: /const y2 = y \?\? …/,
  },
  {
    name: 'an optional field assigned',
    src: `export function f(x: number, o: { s?: number }): number {\n  o.s = x;\n  return x;\n}\n`,
    line: 2, col: 3, message: /optional field 's' cannot be assigned/,
  },
  {
    name: '`??` on a value that may be false',
    src: `function g(x: number): number | false { return x > 0 ? x : false; }\n${fn('const r = g(x);', 'return (r ?? 1) as number;')}`,
    line: 4, col: 11, message: /`\?\?` on a value that may be `false`/,
  },
  {
    name: '`||` on an array',
    src: `export function f(xs: number[], ys: number[]): number {\n  const zs = xs || ys;\n  return zs[0];\n}\n`,
    line: 2, col: 14, message: /`\|\|` is supported on numbers/,
  },
  {
    name: 'assignment in the right operand of `||` used as a number',
    src: fn('let y = 0;', 'const z = x || (y = x * 2);', 'return z + y;'),
    line: 3, col: 19, message: /assignment inside an expression in the right operand of `\|\|` is not supported/, rendered: /write an `if` statement/,
  },
  {
    name: 'assignment in the right operand of `&&` used as a number',
    src: fn('let y = 0;', 'const z = x && (y = x + 1);', 'return z + y;'),
    line: 3, col: 19, message: /in the right operand of `&&` is not supported/,
  },
  {
    name: '`i++` in a `case` test',
    src: `export function f(x: number): number {\n  let i = 0;\n  switch (x) {\n    case i++: return x;\n  }\n  return 2 * x;\n}\n`,
    line: 4, col: 10, message: /increment inside an expression in a `case` test/,
  },
  {
    name: 'assignment in a `do…while` condition of a loop with `continue`',
    src: `export function f(x: number, n: number): number {\n  let i = 0;\n  let s = 0;\n  do {\n    if (s > 2) continue;\n    s += x;\n  } while ((i += 1) < n);\n  return s;\n}\n`,
    line: 7, col: 12, message: /`do…while` condition with an assignment, in a loop that uses `continue`/,
  },
  {
    name: 'comma operator in the right operand of `??`',
    src: `export function f(x: number, o?: number): number {\n  let y = 0;\n  const z = o ?? (y = x * 2, y + 1);\n  return z + y;\n}\n`,
    line: 3, col: 19, message: /comma operator in the right operand of `\?\?`/,
  },
  {
    name: 'destructuring default that calls a function',
    src: `function g(x: number): number { return x; }\nexport function f(xs: number[], x: number): number {\n  const [a, b = g(x)] = xs;\n  return a * b;\n}\n`,
    line: 3, col: 17, message: /a destructuring default that calls a function or assigns is not supported/,
  },
  {
    name: 'rest element in a destructuring assignment',
    src: `export function f(xs: number[]): number {\n  let a = 0;\n  let r: number[] = [];\n  [a, ...r] = xs;\n  return a * r[0];\n}\n`,
    line: 4, col: 7, message: /rest elements in destructuring assignment are not supported/,
  },
  {
    name: 'default for a destructured parameter that reads another parameter',
    src: `interface Pt { x: number; y: number }\nexport function f(a: number, { x, y }: Pt = { x: a, y: 2 }): number {\n  return x * y * a;\n}\n`,
    line: 2, col: 45, message: /the default value of parameter 2 reads 'a': tsad does not differentiate through parameter defaults/,
  },
  {
    name: 'destructuring assignment inside an expression',
    src: fn('let a = x, b = 2;', 'const u = ([a, b] = [b, a]);', 'return u[0] * a;'),
    line: 3, col: 14, message: /a destructuring assignment is supported only as a statement/,
  },
  {
    name: 'Math.hypot of a spread array among other arguments',
    src: `export function f(xs: number[], x: number): number {\n  return Math.hypot(x, ...xs);\n}\n`,
    line: 2, col: 24, message: /Math.hypot with a spread array among other arguments/,
  },
  {
    name: 'comma operator with a pure left side',
    src: fn('const y = (x, x * 2);', 'return y;'),
    line: 2, col: 14, message: /comma operator/,
  },
  {
    name: '`typeof` of a computed value',
    src: fn("return typeof (x * 2) === 'number' ? x : 0;"),
    line: 2, col: 10, message: /`typeof` is supported on variables and fields only/,
  },
  {
    name: '`in` with a computed key',
    src: `interface P { a: number }\nexport function f(p: P, k: 'a'): number {\n  return k in p ? p.a : 0;\n}\n`,
    line: 3, col: 10, message: /`in` is supported with a field name written as a string literal/,
  },
  {
    name: 'tagged template',
    src: `function tag(s: TemplateStringsArray, x: number): number { return x; }\n${fn('return tag`a${x}`;')}`,
    line: 3, col: 10, message: /not supported/,
  },
  // ---------------- statements ----------------
  {
    name: 'for…in over an object',
    src: `export function f(o: { a: number; b: number }): number {\n  let s = 0;\n  for (const k in o) s += 1;\n  return s;\n}\n`,
    line: 3, col: 19, message: /`for…in` over the keys of an object/, rendered: /read the fields by name/,
  },
  {
    name: 'for…in key used as a string',
    src: `export function f(xs: number[]): number {\n  let s = 0;\n  for (const k in xs) if (k === '1') s += xs[k];\n  return s;\n}\n`,
    line: 3, col: 27, message: /the key 'k' of a `for…in` is a string/, rendered: /Number\(k\)/,
  },
  {
    name: 'labelled continue to a block',
    src: fn('let s = 0;', 'outer: {', '  for (let i = 0; i < 3; i++) {', '    if (i === 1) continue outer;', '    s += x;', '  }', '}', 'return s;'),
    line: 5, col: 20, message: /continue.*label.*iteration/,
  },
  // ---------------- library objects and methods ----------------
  {
    name: '`new Map()`',
    src: fn('const m = new Map();', 'return x;'),
    line: 2, col: 13, message: /`?new Map`?.*not supported|Map.*not supported/,
  },
  {
    name: '`new Array(n)` filled by a recurrence that reads ahead of its store (a hole)',
    src: fn('const a = new Array(3);', 'a[0] = x;', 'for (let i = 1; i < 3; i++) a[i] = x + a[i + 1];', 'return a[2];'),
    line: 2, col: 13, message: /created with holes.*reads 'a' before it stores `a\[i\]` or `i - 1`/,
  },
  {
    name: '`new Array(n)` filled downwards from an index that skips the last element',
    src: fn('const a = new Array(3);', 'for (let i = 1; i >= 0; i--) a[i] = x;', 'return a[0];'),
    line: 2, col: 13, message: /created with holes.*does not start at the last index not yet stored/,
  },
  {
    name: '`new Array(n)` without fill',
    src: fn('const a: number[] = new Array(3);', 'a[0] = x;', 'return a[0];'),
    line: 2, col: 23, message: /created with holes.*not filled by a counted loop/,
  },
  {
    name: 'console.log',
    src: fn('console.log(x);', 'return x;'),
    line: 2, col: 3, message: /console/,
  },
  {
    name: 'unsupported Math function',
    src: fn('return Math.imul(x, 3);'),
    line: 2, col: 10, message: /Math\.imul is not supported/,
  },
  // ---------------- array methods with callbacks (src/frontend/callbacks.ts) ----------------
  {
    name: '.map with a callback that is not a function of the compilation',
    src: `export function f(xs: number[]): number {\n  const ys = xs.map(Number);\n  return ys[0];\n}\n`,
    line: 2, col: 21, message: /the callback of `map` must be an arrow function, a function expression/, rendered: /write the callback inline/,
  },
  {
    name: 'a local function passing itself as a callback',
    src: `export function f(xs: number[]): number {\n  const g = (v: number): number => [v / 2].map(g)[0] + v;\n  return xs.map(g)[0];\n}\n`,
    line: 2, col: 48, message: /the local function 'g' passes itself as a callback/,
  },
  {
    name: '.reduce in a branch of || used as a number',
    src: `export function f(xs: number[], w: number): number {\n  return w || xs.reduce((a, v) => a + v);\n}\n`,
    line: 2, col: 15, message: /in a branch of `\? :`, `&&`, `\|\|` or `\?\?`/, rendered: /compute it into a variable inside an `if`/,
  },
  {
    name: '.forEach writing a variable inside a larger expression',
    src: `export function f(xs: number[]): number {\n  let s = 0;\n  const t = 1 + xs.reduce((a, v) => { s += v; return a + v; }, 0);\n  return s + t;\n}\n`,
    line: 3, col: 39, message: /a callback assigning 's' inside a larger expression/, rendered: /in a statement of its own/,
  },
  {
    name: '.map whose callback may not return',
    src: `export function f(xs: number[]): number {\n  const ys: (number | undefined)[] = xs.map((v) => { if (v > 0) return v; });\n  return ys.length;\n}\n`,
    line: 2, col: 45, message: /the callback of `map` must return a value on every path/,
  },
  {
    name: '.map with `this` in a function expression',
    src: `export function f(xs: number[]): number {\n  const ys = xs.map(function (v) { return v * (this as { k: number }).k; });\n  return ys[0];\n}\n`,
    line: 2, col: 48, message: /`this` in a callback is not supported/,
  },
  {
    name: '.map passing a helper that takes more parameters than map passes',
    src: `function h(a: number, i: number, xs: number[], k = 2): number { return a * k; }\nexport function f(xs: number[]): number {\n  return xs.map(h)[0];\n}\n`,
    line: 3, col: 17, message: /'h' takes 4 parameters, more than `map` passes/,
  },
  {
    name: '.filter with a predicate returning an array',
    src: `export function f(xs: number[]): number {\n  return xs.filter((v) => [v]).length;\n}\n`,
    line: 2, col: 20, message: /the callback of `filter` must return a boolean or a number/,
  },
  {
    name: '.find with a callback that writes',
    src: `export function f(xs: number[]): number {\n  const v = xs.find((a, i) => { xs[i] = 0; return a > 0; });\n  return v ?? 0;\n}\n`,
    line: 2, col: 21, message: /a callback of `find` that assigns/, rendered: /use `findIndex`/,
  },
  {
    name: '.sort (no callback method tsad lowers)',
    src: `export function f(xs: number[]): number {\n  return xs.join(',').length;\n}\n`,
    line: 2, col: 10, message: /\.join\(\)/,
  },
  // ---------------- functions as values ----------------
  {
    name: 'function stored in a variable',
    src: `function sq(v: number): number { return v * v; }\n${fn('const g = sq;', 'return g(x);')}`,
    line: 3, col: 13, message: /function 'sq' used as a value/,
  },
  {
    name: 'function chosen by a condition: one side not a function tsad follows (one error)',
    src: `function sq(v: number): number { return v * v; }\n${fn('const g = x > 0 ? sq : Math.abs;', 'return [x].map(g)[0] + g(x);')}`,
    line: 3, col: 26, message: /'g' holds a function chosen by a condition, and 'Math.abs' is not a function tsad can follow/, rendered: /\(v: number\) => Math\.abs\(v\)/, single: true,
  },
  {
    name: 'function chosen by a condition, assigned again',
    src: `function sq(v: number): number { return v * v; }\n${fn('let g = x > 0 ? sq : (v: number) => -v;', 'if (x > 2) g = sq;', 'return g(x);')}`,
    line: 3, col: 7, message: /'g' holds a function chosen by a condition and is assigned again/, single: true,
  },
  {
    name: 'function chosen by a condition, called in a branch of `? :`',
    src: `function sq(v: number): number { return v * v; }\n${fn('const g = x > 0 ? sq : (v: number) => -v;', 'return x > 1 ? g(x) : 0;')}`,
    line: 4, col: 18, message: /called inside a larger expression where its call must become an `if`/, single: true,
  },
  {
    name: 'function chosen by a condition, passed to map',
    src: `function sq(v: number): number { return v * v; }\n${fn('const g = x > 0 ? sq : (v: number) => -v;', 'return [x, 1].map(g)[0];')}`,
    line: 4, col: 21, message: /'g' holds a function chosen by a condition, which `map` cannot take as its callback/, rendered: /\(v\) => g\(v\)/, single: true,
  },
  {
    name: 'factory returning a closure from two places',
    src: `function make(k: number) {\n  if (k > 1) return (t: number) => t;\n  return (t: number) => k * t;\n}\n${fn('const m = make(x);', 'return m(x) + m(2);')}`,
    line: 6, col: 13, message: /'m' holds the function 'make' returns, which tsad cannot follow here: it returns before its last statement/, rendered: /with one `return`/, single: true,
  },
  {
    name: 'factory called without its defaulted parameter',
    src: `function make(k: number, c = 2) {\n  return (t: number) => k * t + c;\n}\n${fn('const m = make(x);', 'return m(x);')}`,
    line: 5, col: 13, message: /'make' returns a function and is called with 1 argument\(s\) for 2 parameter\(s\)/, single: true,
  },
  {
    name: 'function held in a module-level `let`',
    src: `let g = (x: number): number => x * 2;\n${fn('return g(x);')}`,
    line: 1, col: 5, message: /`let`\/`var`/,
  },
  // ---------------- multi-file ----------------
  {
    name: 'error in an imported file is reported in that file',
    src: {
      'main.ts': `import { helper } from './lib.js';\n${fn('return helper(x);')}`,
      'lib.ts': `export function helper(x: number): number {\n  let s = 0;\n  try {\n    s = x * 2;\n  } catch {\n    s = 0;\n  }\n  return s;\n}\n`,
    },
    file: 'lib.ts', line: 3, col: 3, message: /`try`\/`catch`/,
  },
  {
    name: 'a callback refused in an imported file',
    src: {
      'main.ts': `import { helper } from './lib.ts';\n${fn('return helper(x);')}`,
      'lib.ts': `export function helper(x: number): number {\n  return [1, 2].map(Number)[0] * x;\n}\n`,
    },
    file: 'lib.ts', line: 2, col: 21, message: /the callback of `map` must be/,
  },
  // ---------------- typed arrays and rest elements (src/frontend/typed-arrays.ts, rest-elements.ts) ----------------
  {
    name: 'nullable: an optional boolean with a number as its `??` fallback',
    src: `export function f(x: number, opts: { on?: boolean; s?: number }): number {\n  const s = opts.s ?? 2;\n  const w = opts.on ?? 0;\n  return w ? x * s : x;\n}\n`,
    line: 3, col: 24, message: /the fallback of `\?\?` on an optional boolean must be a boolean/, rendered: /flag \?\? false/,
  },
  {
    // (it had no shadow: the tangent read one that did not exist, or a write through it was dropped)
    name: 'nullable: a helper returning `number[] | null` read inside an expression, not named',
    src: `export function solve2(A: number[][], b: number[]): number[] | null {\n  const det = A[0][0] * A[1][1] - A[0][1] * A[1][0];\n  if (det === 0) return null;\n  return [(b[0] * A[1][1] - A[0][1] * b[1]) / det, (A[0][0] * b[1] - b[0] * A[1][0]) / det];\n}\nexport function f(A: number[][], b: number[]): number {\n  if (solve2(A, b) === null) return 0;\n  const x = solve2(A, b)!;\n  return x[0] + 2 * x[1];\n}\n`,
    line: 7, col: 7, message: /'solve2' returns an array or null: tsad follows such a result where it is named/, rendered: /const r = solve2\(…\);/,
  },
  {
    name: 'nullable: a helper returning an object or null computed from the independents',
    src: `interface Pt { x: number; y: number }\nexport function meet(a: number, b: number): Pt | null {\n  if (a === b) return null;\n  return { x: 1 / (a - b), y: a / (a - b) };\n}\nexport function f(a: number, b: number): number {\n  const p = meet(a, b);\n  if (p === null) return 0;\n  return p.x + p.y;\n}\n`,
    line: 7, col: 9, message: /'p' is an array or object that may be null or undefined/, rendered: /return an object in every case/,
  },
  {
    name: 'nullable: `find` returning a row that is written through',
    src: `export function f(A: number[][], s: number): number {\n  const r = A.find((row) => row[1] < 1);\n  if (r === undefined) return 0;\n  r[0] *= s;\n  return A[1][0];\n}\n`,
    line: 2, col: 13, message: /'r' is an array or object that may be null/, rendered: /use `findIndex`/,
  },
  {
    name: 'typed array: `.copyWithin()` in a Float32Array',
    src: `export function f(x: number[]): number {\n  const buf = Float32Array.from(x);\n  buf.copyWithin(0, 1);\n  return buf[1];\n}\n`,
    line: 3, col: 3, message: /the array method '\.copyWithin\(\)' is not supported/, rendered: /loops and indexing/,
  },
  {
    name: 'typed array: `fill` of a range of a new Int8Array',
    src: `export function f(x: number): number {\n  const s = new Int8Array(4).fill(1, 0, 2);\n  return s[0] * x;\n}\n`,
    line: 2, col: 13, message: /only `new Int8Array\(n\)\.fill\(value\)` is supported/, rendered: /fill a range with a loop/,
  },
  {
    name: 'rest element with a nested pattern',
    src: `export function f(xs: number[]): number {\n  const [a, ...[b, c]] = xs;\n  return a * b * c;\n}\n`,
    line: 2, col: 13, message: /a rest element with a pattern is not supported/, rendered: /const \[b, c\] = rest/,
  },
  {
    name: 'object rest that would hold an optional field (one error, no cascade at its uses)',
    src: `interface P { a: number; b?: number; c: number }\nexport function f(p: P): number {\n  const { a, ...others } = p;\n  return a * others.c;\n}\n`,
    line: 3, col: 14, message: /the rest element 'others' would hold the optional field 'b'/, rendered: /const others = \{ b: o\.b/, single: true,
  },
  {
    name: "typed array `set` at a negative literal offset",
    src: `export function f(x: number[]): number {\n  const t = new Float64Array(4);\n  t.set(x, -1);\n  return t[0];\n}\n`,
    line: 3, col: 12, message: /`set`'s offset is not a whole number ≥ 0/, rendered: /throws a RangeError/,
  },
];

function tryCompile(src: Src, opts: Partial<CompileOptions>): { r?: CompileResult; err?: unknown } {
  try {
    return { r: compile(src, { head: 'f', ...opts }) };
  } catch (err) {
    return { err };
  }
}

const show = (ds: Diagnostic[]) => ds.map(formatDiagnostic).join('\n\n') || '(no diagnostics)';

/** The rendered diagnostic names its place and draws a frame with the caret under the column. */
function expectRendered(d: Diagnostic, file: string, line: number, col: number): void {
  const text = formatDiagnostic(d);
  expect(text).toContain(`${file}:${line}:${col}`);
  const marked = [...text.matchAll(/^> +(\d+) \| /gm)].map((m) => Number(m[1]));
  expect(marked, `code frame marks line ${line}:\n${text}`).toContain(line);
  const carets = [...text.matchAll(/^ +\| ( *)\^$/gm)].map((m) => m[1].length + 1);
  // (a line longer than the frame is shown as a window around the column, `…` before it)
  const windowed = /^> +\d+ \| …/m.test(text);
  if (windowed) expect(carets.length === 1 && carets[0] <= 121 && carets[0] < col, `caret inside the window:\n${text}`).toBe(true);
  else expect(carets, `caret under column ${col}:\n${text}`).toContain(col);
}

/** Checks one bad case; shared with the large-input block (which gets its result from a child). */
function expectDiagnostic(c: Pick<BadCase, 'file' | 'line' | 'col' | 'message' | 'rendered'>, diags: Diagnostic[]): void {
  const file = c.file ?? 'input.ts';
  const errors = diags.filter((d) => d.severity === 'error');
  expect(errors.length, 'at least one error').toBeGreaterThanOrEqual(1);
  const d = errors.find((x) => x.file === file && x.line === c.line && x.col === c.col && c.message.test(x.message));
  expect(d, `an error at ${file}:${c.line}:${c.col} matching ${c.message}; got:\n${show(diags)}`).toBeDefined();
  expect(d!.hint?.trim(), `a hint on:\n${formatDiagnostic(d!)}`).toBeTruthy();
  expectRendered(d!, file, c.line, c.col);
  if (c.rendered) expect(formatDiagnostic(d!)).toMatch(c.rendered);
}

describe('diagnostics corpus', () => {
  it('has at least 45 bad inputs', () => expect(BAD.length).toBeGreaterThanOrEqual(45));

  for (const c of BAD) {
    itCase(c.bug)(c.name, () => {
      const { r, err } = tryCompile(c.src, c.opts ?? {});
      expect(err, `compile threw: ${String((err as Error)?.stack ?? err)}`).toBeUndefined();
      expect(r!.code).toBe('');
      expectDiagnostic(c, r!.diagnostics);
      if (c.single) expect(r!.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toHaveLength(1);
    });
  }
});

// ---------------- must compile: only functions the head reaches are held to the subset ----------------

interface OkCase {
  name: string;
  src: Src;
  opts?: Partial<CompileOptions>;
  /** primal functions that must not be emitted (unreachable from the head) */
  absent?: string[];
  bug?: string;
}

const square = fn('return x * x;');
const OK: OkCase[] = [
  {
    name: 'unreachable function with try/catch',
    src: `function bad(x: number): number {\n  try { return x; } catch { return 0; }\n}\n${square}`,
    absent: ['bad'],
  },
  {
    name: 'unreachable function with Math.random',
    src: `function noise(x: number): number {\n  return x * Math.random();\n}\n${square}`,
    absent: ['noise'],
  },
  {
    name: 'unreachable function with a closure and .reduce',
    src: `function total(xs: number[]): number {\n  const k = (v: number) => v * 2;\n  return xs.reduce((a, v) => a + k(v), 0);\n}\n${square}`,
    absent: ['total'],
  },
  {
    name: 'unreachable function that calls an unsupported one',
    src: `function inner(x: number): number {\n  return Math.random() * x;\n}\nfunction outer(x: number): number {\n  return inner(x);\n}\n${square}`,
    absent: ['inner', 'outer'],
  },
  {
    name: 'unreachable async function',
    src: `async function later(x: number): Promise<number> {\n  return x;\n}\n${square}`,
    absent: ['later'],
  },
  {
    name: 'unreachable generator',
    src: `function* gen(x: number) {\n  yield x;\n}\n${square}`,
    absent: ['gen'],
  },
  {
    // passive data of any element type is fine: only floats carry derivatives
    name: 'array of strings as passive data',
    src: `export function f(x: number, names: string[]): number {\n  let s = 0;\n  for (let i = 0; i < names.length; i++) if (names[i] === 'a') s += x;\n  return s;\n}\n`,
    absent: [],
  },
  {
    name: 'unreachable function held in a module-level `let`',
    src: `let g = (x: number): number => x;\n${square}`,
    absent: ['g'],
  },
];

describe('must compile: unsupported code the head does not reach', () => {
  for (const c of OK) {
    itCase(c.bug)(c.name, () => {
      const { r, err } = tryCompile(c.src, c.opts ?? {});
      expect(err, `compile threw: ${String((err as Error)?.stack ?? err)}`).toBeUndefined();
      expect(show(r!.diagnostics)).toBe('(no diagnostics)');
      expect(r!.code).toMatch(/export function f_d\b/);
      for (const a of c.absent ?? []) expect(r!.primals).not.toContain(a);
    });
  }
});

describe('must compile: head that does not depend on its independents', () => {
  it('constant result: every derivative is zero', () => {
    const { r, err } = tryCompile(fn('return 3;'), { js: true, runtimeImport: null });
    expect(err).toBeUndefined();
    expect(show(r!.diagnostics)).toBe('(no diagnostics)');
    const m = loadGenerated(r!.code);
    expect(m.f_d(1.5, 1)).toEqual([3, 0]);
    expect(m.f_b(1.5, 1)).toBe(0);
    const [v, vd] = m.f_dv(1.5, Float64Array.from([1, -2]), 2) as [number, Float64Array];
    expect(v).toBe(3);
    expect([...vd]).toEqual([0, 0]);
  });

  it('result depends only on a passive parameter: derivative w.r.t. x is zero', () => {
    const src = `export function f(x: number, y: number): number {\n  const t = x * 0;\n  return y * 2;\n}\n`;
    const { r, err } = tryCompile(src, { wrt: ['x'], js: true, runtimeImport: null });
    expect(err).toBeUndefined();
    expect(show(r!.diagnostics)).toBe('(no diagnostics)');
    const m = loadGenerated(r!.code);
    expect(m.f_d(1.5, 1, 4)).toEqual([8, 0]);
    expect(m.f_b(1.5, 4, 1)).toBe(0);
  });
});

// ---------------- large and deep inputs, in a child process with a time limit ----------------

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface ChildResult {
  ms?: number;
  diagnostics?: Diagnostic[];
  codeLength?: number;
  threw?: { name: string; message: string };
  /** killed at the time limit */
  timedOut?: boolean;
  /** died without reporting (native stack overflow, out of memory, …) */
  crashed?: string;
}

let workDir = '';
let runner = '';

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'tsad-diagnostics-'));
  const entry = join(workDir, 'entry.ts');
  writeFileSync(
    entry,
    `import { readFileSync } from 'node:fs';
import { compile } from ${JSON.stringify(join(ROOT, 'src/api/compile.ts'))};
import { setLibReader } from ${JSON.stringify(join(ROOT, 'src/frontend/stdlib.ts'))};
// bundled into a temporary folder, the compiler is handed TypeScript's lib files from the repository
setLibReader((name) => readFileSync(${JSON.stringify(join(ROOT, 'node_modules/typescript/lib'))} + '/' + name, 'utf8'));
const job = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const t0 = performance.now();
let out: unknown;
try {
  const r = compile(job.src, job.opts);
  out = { ms: performance.now() - t0, diagnostics: r.diagnostics, codeLength: r.code.length };
} catch (e) {
  const err = e as Error;
  out = { ms: performance.now() - t0, threw: { name: err?.name, message: String(err?.message).slice(0, 1000) } };
}
process.stdout.write(JSON.stringify(out));
`,
  );
  runner = join(workDir, 'runner.cjs');
  buildSync({ entryPoints: [entry], outfile: runner, bundle: true, platform: 'node', format: 'cjs', logLevel: 'error' });
}, 60_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

function compileInChild(src: Src, opts: Partial<CompileOptions>, limitMs: number): Promise<ChildResult> {
  const job = join(workDir, `job-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(job, JSON.stringify({ src, opts: { head: 'f', ...opts } }));
  return new Promise((done) => {
    execFile(process.execPath, [runner, job], { timeout: limitMs, killSignal: 'SIGKILL', maxBuffer: 256 << 20 }, (error, stdout, stderr) => {
      rmSync(job, { force: true });
      if (error && (error as { killed?: boolean }).killed) return done({ timedOut: true });
      try {
        done(JSON.parse(stdout) as ChildResult);
      } catch {
        done({ crashed: `exit ${error?.code ?? 0}: ${stderr.slice(0, 2000)}` });
      }
    });
  });
}

function describeChild(r: ChildResult): string {
  if (r.timedOut) return 'killed at the time limit';
  if (r.crashed) return `crashed: ${r.crashed}`;
  if (r.threw) return `compile threw ${r.threw.name}: ${r.threw.message.slice(0, 200)} after ${Math.round(r.ms!)} ms`;
  return `${Math.round(r.ms!)} ms, ${r.diagnostics!.length} diagnostics, ${r.codeLength} chars of code`;
}

/** Either compiles cleanly or reports a located "too deep/too large" error on `line`; never throws. */
function expectCompilesOrTooDeep(r: ChildResult, line: number): void {
  expect(r.timedOut, describeChild(r)).toBeFalsy();
  expect(r.crashed, describeChild(r)).toBeUndefined();
  expect(r.threw, describeChild(r)).toBeUndefined();
  const errors = r.diagnostics!.filter((d) => d.severity === 'error');
  if (errors.length === 0) {
    expect(r.codeLength).toBeGreaterThan(0);
    return;
  }
  const d = errors.find((x) => x.file === 'input.ts' && x.line === line && /too (deep|large|long|complex)|nest/i.test(x.message));
  expect(d, `a located "too deep" error on line ${line}; got:\n${show(r.diagnostics!)}`).toBeDefined();
  expect(d!.hint?.trim()).toBeTruthy();
  expectRendered(d!, 'input.ts', d!.line, d!.col);
}

const LARGE_LIMIT = 90_000;

describe.concurrent('large and deeply nested inputs', () => {
  it(
    'an expression with 1,000 nested parentheses',
    async () => {
      const src = fn(`return ${'('.repeat(1000)}x${')'.repeat(1000)};`);
      const r = await compileInChild(src, {}, LARGE_LIMIT);
      console.log(`1,000 nested parentheses: ${describeChild(r)}`);
      expectCompilesOrTooDeep(r, 2);
    },
    LARGE_LIMIT + 30_000,
  );

  it(
    'a sum of 500 terms compiles (a chain of operators counts half a level per link), and a refusal on a long line shows a window of it',
    async () => {
      const terms = (n: number) => Array.from({ length: n }, (_, i) => `${(i % 7) + 1} * Math.sin(x * ${(i % 5) + 1})`).join(' + ');
      const ok = await compileInChild(fn(`return ${terms(500)};`), {}, LARGE_LIMIT);
      expect(ok.diagnostics?.filter((d) => d.severity === 'error') ?? [], describeChild(ok)).toEqual([]);
      expect(ok.codeLength).toBeGreaterThan(0);
      const deep = await compileInChild(fn(`return ${terms(1500)};`), {}, LARGE_LIMIT);
      const d = deep.diagnostics!.find((x) => x.severity === 'error')!;
      expect(d.message).toMatch(/too deep/);
      for (const l of formatDiagnostic(d).split('\n')) expect(l.length, l.slice(0, 80)).toBeLessThan(300);
    },
    LARGE_LIMIT + 30_000,
  );

  it(
    'a sum of 5,000 terms',
    async () => {
      const src = fn(`return ${Array(5000).fill('x').join(' + ')};`);
      const r = await compileInChild(src, {}, LARGE_LIMIT);
      console.log(`sum of 5,000 terms: ${describeChild(r)}`);
      expectCompilesOrTooDeep(r, 2);
    },
    LARGE_LIMIT + 30_000,
  );

  it(
    'a sum of 100,000 terms',
    async () => {
      const src = fn(`return ${Array.from({ length: 100_000 }, (_, i) => (i % 2 ? 'x' : String(i))).join(' + ')};`);
      const r = await compileInChild(src, {}, 60_000);
      console.log(`sum of 100,000 terms: ${describeChild(r)}`);
      expectCompilesOrTooDeep(r, 2);
    },
    LARGE_LIMIT + 30_000,
  );

  it(
    'a 100,000-line module of simple functions compiles within 60 s',
    async () => {
      const parts: string[] = [];
      const n = 20_000;
      for (let i = 0; i < n; i++) parts.push(`export function g${i}(x: number): number {\n  const y = x * ${i + 1};\n  return y + ${i};\n}\n`);
      parts.push(`export function f(x: number): number {\n  return g0(x) + g${n - 1}(x);\n}\n`);
      const src = parts.join('\n');
      expect(src.split('\n').length).toBeGreaterThanOrEqual(100_000);
      const r = await compileInChild(src, {}, LARGE_LIMIT);
      console.log(`100,000-line module: ${describeChild(r)}`);
      expect(r.timedOut, describeChild(r)).toBeFalsy();
      expect(r.threw, describeChild(r)).toBeUndefined();
      expect(r.crashed, describeChild(r)).toBeUndefined();
      expect(show(r.diagnostics!)).toBe('(no diagnostics)');
      expect(r.codeLength).toBeGreaterThan(0);
      expect(r.ms!, describeChild(r)).toBeLessThan(60_000);
    },
    LARGE_LIMIT + 30_000,
  );
});

describe('API misuse from JavaScript', () => {
  // the types forbid these; plain JavaScript callers still get a message that says what to pass
  it('a non-string file content is named with what to pass instead', () => {
    const files = { 'kb.ts': { text: 'export function f(x: number) { return x; }' } } as unknown as Record<string, string>;
    expect(() => compile(files, { head: 'f' })).toThrow(/input file 'kb\.ts' must be source text \(a string\), not an object/);
  });
  it('an input that is neither text nor a record of files', () => {
    expect(() => compile(42 as unknown as string, { head: 'f' })).toThrow(/must be source text or an object mapping file names to source text, not a number/);
    expect(() => compile(null as unknown as string, { head: 'f' })).toThrow(/not null/);
  });
});
