// Counted loops: recognizing `for (i = a; i < b; i += c)` with an index the body does not write (its
// reversal runs the index backwards), and the forward sweep's loop with its init.
import type { Expr, Stmt } from '../../../ir/types.js';
import { BOOL, forEachExpr, forEachStmt, INT, tyOf } from '../../../ir/util.js';
import type { AdjointContext, Pair } from '../context.js';

/** Keeps `for (let i = 0; …)` readable when the init needs no pushes. */
export function forInit(cx: AdjointContext, fwd: Stmt, init: Pair): Stmt[] {
  if (fwd.k !== 'for') return [fwd];
  const simple = init.fwd.every((x) => x.k === 'assign' && x.target.k === 'var');
  if (simple) return [fwd];
  return [...init.fwd, { ...fwd, init: [] }];
}

/** by body (a statement list): a loop rebuilt with another body is asked again */
const assignedInBodies = new WeakMap<Stmt[], ReadonlySet<string>>();

/**
 * the variables a loop's body assigns or declares, and '*call*' when it calls a function (which may
 * write arrays its bounds read); found once per loop: the adjoint asks of each loop in every round
 */
function assignedInBody(s: Extract<Stmt, { k: 'for' }>): ReadonlySet<string> {
  const known = assignedInBodies.get(s.body);
  if (known) return known;
  const written = new Set<string>();
  forEachStmt(s.body, (x) => {
    if (x.k === 'assign' && x.target.k === 'var') written.add(x.target.name);
    if (x.k === 'decl') written.add(x.name);
    if (x.k === 'expr' || x.k === 'assign' || x.k === 'decl') {
      forEachExpr(x.k === 'expr' ? x.e : x.k === 'assign' ? x.value : x.init ?? { k: 'undef' }, (y) => {
        if (y.k === 'call') written.add('*call*');
      });
    }
  });
  assignedInBodies.set(s.body, written);
  return written;
}

/**
 * `for (i = a; i < b; i += c)` with i, a, b not written in the body, c constant, no jumps; also
 * `i + k < b` for an integer constant k (a loop over neighbours: `i + 1 < x.length`), which is
 * `i < b - k`. `bound` is b (b - k), `op` the comparison, `start` a, `integral` whether b is an integer
 * whatever the inputs.
 */
export function countedLoop(cx: AdjointContext, s: Extract<Stmt, { k: 'for' }>): { index: Extract<Expr, { k: 'var' }>; last: Expr; revCond: Expr; step: number; bound: Expr; op: '<' | '<=' | '>' | '>='; start: Expr; integral: boolean } | null {
  if (s.init.length !== 1 || s.update.length !== 1 || !s.cond) return null;
  const ini = s.init[0];
  const name = ini.k === 'decl' ? ini.name : ini.k === 'assign' && ini.target.k === 'var' ? ini.target.name : null;
  const start = ini.k === 'decl' ? ini.init : ini.k === 'assign' ? ini.value : null;
  if (!name || !start) return null;
  const up = s.update[0];
  if (up.k !== 'assign' || up.target.k !== 'var' || up.target.name !== name || up.value.k !== 'bin') return null;
  const uv = up.value;
  if (!(uv.a.k === 'var' && uv.a.name === name && uv.b.k === 'num' && (uv.op === '+' || uv.op === '-'))) return null;
  const step = uv.op === '+' ? uv.b.v : -uv.b.v;
  if (!Number.isInteger(step) || step === 0) return null;
  const c = s.cond;
  if (c.k !== 'bin' || (c.op !== '<' && c.op !== '<=' && c.op !== '>' && c.op !== '>=')) return null;
  const offset = indexOffset(c.a, name);
  // (an offset moves to the bound exactly for an integer index only)
  const indexTy = ini.k === 'decl' ? ini.ty : ini.k === 'assign' ? ini.target.ty : null;
  if (offset === null || (offset !== 0 && indexTy?.k !== 'int')) return null;
  const bound = plus(c.b, -offset);
  const written = assignedInBody(s);
  const reads = new Set<string>();
  let pure = true;
  for (const e of [start, bound])
    forEachExpr(e, (y) => {
      if (y.k === 'var') reads.add(y.name);
      if (y.k === 'call' || y.k === 'idx' || y.k === 'field' || (y.k === 'intr' && !y.fn.startsWith('Math.'))) pure = false;
    });
  if (!pure || written.has(name) || [...reads].some((r) => written.has(r))) return null;
  const i = { k: 'var', name, ty: INT } as Extract<Expr, { k: 'var' }>;
  const I = (op: '+' | '-' | '*' | '/', a: Expr, b: Expr): Expr => ({ k: 'bin', op, a, b, ty: INT });
  const n = (v: number): Expr => ({ k: 'num', v });
  // (the reversal starts from the last index the loop took: for an integer start, the index stays an
  // integer, and the count of steps before a bound that may not be one, `k <= n / 2` with n odd, is a
  // ceiling or a floor; a start that may not be an integer accumulates rounding the reversal would not
  // reproduce, and such a loop is reversed with its trip count recorded instead)
  if (!isInteger(start)) return null;
  const integral = isInteger(bound);
  const floor = (x: Expr): Expr => ({ k: 'intr', fn: 'Math.floor', args: [x], ty: INT });
  const ceil = (x: Expr): Expr => ({ k: 'intr', fn: 'Math.ceil', args: [x], ty: INT });
  // the steps taken after the first: below an integer bound `(b - 1 - a) / c` rounded down, below any
  // bound `ceil((b - a) / c) - 1`; up to a bound, `(b - a) / c` rounded down
  const steps = (span: Expr, strict: boolean, st: number): Expr =>
    integral || !strict ? floor(st === 1 ? (strict ? plus(span, -1) : span) : I('/', strict ? plus(span, -1) : span, n(st))) : plus(ceil(st === 1 ? span : I('/', span, n(st))), -1);
  let last: Expr;
  let revCond: Expr;
  if (step > 0 && (c.op === '<' || c.op === '<=')) {
    last = step === 1 && integral ? (c.op === '<' ? plus(bound, -1) : bound) : I('+', start, scaled(steps(I('-', bound, start), c.op === '<', step), step));
    revCond = { k: 'bin', op: '>=', a: i, b: start, ty: BOOL };
  } else if (step < 0 && (c.op === '>' || c.op === '>=')) {
    const st = -step;
    last = st === 1 && integral ? (c.op === '>' ? plus(bound, 1) : bound) : I('-', start, scaled(steps(I('-', start, bound), c.op === '>', st), st));
    revCond = { k: 'bin', op: '<=', a: i, b: start, ty: BOOL };
  } else return null;
  return { index: i, last, revCond, step, bound, op: c.op, start, integral };
}

/**
 * The iterations of an upward loop of step 1 (`countedLoop`), before clamping at 0: `b - a` below an
 * integer bound b, `b - a + 1` up to one; `ceil(b - a)` and `floor(b - a) + 1` for any bound.
 */
export function upwardTrips(counted: NonNullable<ReturnType<typeof countedLoop>>): Expr {
  const I = (op: '+' | '-', a: Expr, b: Expr): Expr => (b.k === 'num' && b.v === 0 ? a : { k: 'bin', op, a, b, ty: INT });
  const span = I('-', counted.bound, counted.start);
  if (counted.integral) return counted.op === '<' ? span : I('+', span, { k: 'num', v: 1 });
  return counted.op === '<' ? { k: 'intr', fn: 'Math.ceil', args: [span], ty: INT } : I('+', { k: 'intr', fn: 'Math.floor', args: [span], ty: INT }, { k: 'num', v: 1 });
}

/** `e * k`, without the product for k = 1 */
function scaled(e: Expr, k: number): Expr {
  return k === 1 ? e : { k: 'bin', op: '*', a: e, b: { k: 'num', v: k }, ty: INT };
}

const ROUNDING = new Set(['Math.floor', 'Math.ceil', 'Math.round', 'Math.trunc']);

/**
 * whether `e` is an integer whatever the inputs: an integer literal, a length, a value typed an integer
 * (src/analysis/ints.ts), a rounding, or a sum, difference or product of such
 */
function isInteger(e: Expr): boolean {
  switch (e.k) {
    case 'num':
      return Number.isInteger(e.v);
    case 'len':
      return true;
    case 'bin':
      return (e.op === '+' || e.op === '-' || e.op === '*') ? isInteger(e.a) && isInteger(e.b) : tyOf(e).k === 'int';
    case 'un':
      return e.op === '-' ? isInteger(e.a) : tyOf(e).k === 'int';
    case 'intr':
      return ROUNDING.has(e.fn) || tyOf(e).k === 'int';
    default:
      return tyOf(e).k === 'int';
  }
}

/** e + k, constants folded (`x.length - 1 - 1` reads `x.length - 2`) */
function plus(e: Expr, k: number): Expr {
  if (k === 0) return e;
  if (e.k === 'num' && Number.isInteger(e.v)) return { k: 'num', v: e.v + k };
  if (e.k === 'bin' && (e.op === '+' || e.op === '-') && e.ty.k === 'int' && e.b.k === 'num' && Number.isInteger(e.b.v)) {
    const sum = (e.op === '+' ? e.b.v : -e.b.v) + k;
    return sum === 0 ? e.a : { ...e, op: sum > 0 ? '+' : '-', b: { k: 'num', v: Math.abs(sum) } };
  }
  return { k: 'bin', op: k > 0 ? '+' : '-', a: e, b: { k: 'num', v: Math.abs(k) }, ty: INT };
}

/** k where `e` is the index `i`, `i + k`, `k + i` or `i - k` with k an integer constant; else null */
function indexOffset(e: Expr, i: string): number | null {
  if (e.k === 'var') return e.name === i ? 0 : null;
  if (e.k !== 'bin' || (e.op !== '+' && e.op !== '-')) return null;
  const isI = (x: Expr) => x.k === 'var' && x.name === i;
  const k = (x: Expr) => (x.k === 'num' && Number.isInteger(x.v) ? x.v : null);
  if (isI(e.a) && k(e.b) !== null) return e.op === '+' ? k(e.b)! : -k(e.b)!;
  if (e.op === '+' && isI(e.b) && k(e.a) !== null) return k(e.a)!;
  return null;
}
