// Sparse vector mode (issue 18; `compile(…, { sparseVector: true })`): the vector tangent f_dv in which
// every tangent row carries the half-open interval [lo, hi) of directions outside which it is zero, and
// each direction loop runs over the union of the intervals it reads instead of over all nbdirs
// directions. A loop over independent items (ht's vertices, each skinned by bones whose transforms
// depend on two to four of the 26 pose parameters) then does work in proportion to the non-zeros.
//
// Rows. A scalar's tangent (`xd`, nbdirs floats read as `xd[nd]`) has one interval, in two locals
// `xdLo`, `xdHi`; an array's tangent (`ad`, element E's directions at `E * nbdirs + nd`) one interval per
// element, in two Int32Arrays `adLo[E]`, `adHi[E]`. Empty is [nbdirs, 0), so unions are Math.min of the
// starts and Math.max of the ends.
//
// Invariant: wherever the function runs, storage outside a row's interval holds zeros. It holds for
// fresh zero-filled tangents (empty intervals) and for tangents that come from elsewhere (parameters,
// call results, arrays a call may have written, `zeroFill`), whose intervals are found by scanning them
// (the exact non-zero hull). A direction loop keeps it:
//   - its interval L is the union of the intervals of every tangent row its body reads (a row read
//     through anything but a plain variable, as a call's returned tuple, makes it all directions);
//   - for every direction outside L each tangent is a linear function of zero reads: 0 (the tangent
//     expressions guard an infinite partial against a zero tangent; an unguarded 0 · ∞ or 0 · NaN, which
//     the dense mode turns into NaN, stays 0 here);
//   - an assignment `t = e` sets t's interval to L and first zeroes t's old interval outside L;
//   - an accumulation `t = t + e` (or `- e`; t's slot read only there) leaves t's directions outside L as
//     they are: its own read is not part of L, and its interval grows to the union of the old one and L.
// Whatever this pass does not understand (a write of a tangent outside a direction loop, a tangent
// stored under another name, tape operations, direction loops over anything but slots, …) leaves the
// whole function dense: the dense vector code is correct for any intervals, and every function scans
// what it receives, so sparse and dense functions call each other freely.
import type { Expr, Func, LValue, Stmt, Ty } from '../ir/types.js';
import { BOOL, INT, NUM, assign, bin, bodiesOf, countedFor, declaredNames, exprEq, forEachChild, forEachExpr, forEachStmt, idx, intr, mapBodies, mapExpr, num, stmtExprs, v as vr } from '../ir/util.js';
import { directionLoopVar, isDirectionSlot } from './direction-loops.js';
import { Names } from './linearize.js';

/** A tangent row: the scalar tangent `v` (e null), or element `e` of the array tangent `v`. */
interface Row {
  v: string;
  e: Expr | null;
  /** read only where this holds (`i > 0 ? ud[(i - 1) * nbdirs + nd] : 0`): element e may not exist elsewhere */
  guard?: Expr;
}

/** What a direction loop reads and writes. */
interface LoopRows {
  reads: Row[];
  /** reads a tangent row through something else than a variable: all directions */
  all: boolean;
  writes: { row: Row; accumulates: boolean }[];
}

class Unsupported extends Error {}

const I32: Ty = { k: 'arr', elem: INT, typed: true, ro: false, ctor: 'Int32Array' };

/** whether a call of `callee` may write the array passed as its argument `arg` (true when unknown) */
export type MayWrite = (callee: string, arg: number) => boolean;

/**
 * The sparse form of the vector tangent `g`, or `g` itself (dense) where this pass does not apply;
 * `reserved`: names taken module-wide. `dense` tells which, with the reason.
 */
/** may the array this parameter's tangent shadows grow in the call (analysis/grown-arrays.ts)? */
export type MayGrow = (param: string) => boolean;

export function sparseVectorFunc(g: Func, reserved: ReadonlySet<string>, mayWrite: MayWrite = () => true, mayGrow: MayGrow = () => false): { func: Func; dense: string | null } {
  const nb = g.params.find((p) => p.role === 'directions')?.name;
  if (!nb) return { func: g, dense: 'no directions' };
  try {
    return { func: new SparseVector(g, nb, reserved, mayWrite, mayGrow).build(), dense: null };
  } catch (e) {
    if (e instanceof Unsupported) return { func: g, dense: e.message };
    throw e;
  }
}

class SparseVector {
  private names: Names;
  private nbv: Expr & { k: 'var' };
  /** tangents with rows: scalar ('row') or array ('rows') */
  private kinds = new Map<string, 'row' | 'rows'>();
  private lo = new Map<string, string>();
  private hi = new Map<string, string>();
  /** the direction variable (of the scans) */
  private nd: string | null = null;
  /** tangents direction loops write */
  private written = new Set<string>();
  /** tangents only read, whose rows the pass does not follow (`const usd_i = usd[i]`): read in all directions */
  private opaque = new Set<string>();

  constructor(
    private g: Func,
    private nb: string,
    reserved: ReadonlySet<string>,
    private mayWrite: MayWrite,
    private mayGrow: MayGrow,
  ) {
    this.names = new Names(declaredNames(g), reserved);
    this.nbv = vr(nb, INT);
  }

  build(): Func {
    this.collect(this.g.body);
    if (this.kinds.size === 0) throw new Unsupported('no direction loop');
    this.nd ??= this.names.fresh('nd');
    const params = new Set(this.g.params.map((p) => p.name));
    // (the tangent of an optional number is absent with it, read only where the number is present)
    const absent = (p: Func['params'][number]) => p.optional || p.rest || p.ty.k !== 'arr' || this.g.params.some((q) => q.name === p.of && (q.optional || q.ty.k === 'opt'));
    for (const p of this.g.params) if (this.kinds.has(p.name) && absent(p)) throw new Unsupported(`parameter ${p.name} may be absent or is not an array`);
    for (const v of [...this.kinds.keys()].sort()) {
      if (!params.has(v) && !this.declared(this.g.body, v)) throw new Unsupported(`${v} is not a local or a parameter`);
      // (its intervals are sized on entry or at its definition: an array that grows past them is not followed)
      if (this.kinds.get(v) === 'rows' && (params.has(v) ? this.mayGrow(v) : this.bornGrowable(v))) throw new Unsupported(`${v} shadows an array that may grow`);
      this.lo.set(v, this.names.fresh(`${v}Lo`));
      this.hi.set(v, this.names.fresh(`${v}Hi`));
    }
    this.checkDefinitions(this.g.body);
    const entry: Stmt[] = [];
    // (an output array the function zeroes first, `zeroFill(errd)`, needs no scan on entry)
    const zeroedFirst = (p: string) => {
      const first = this.g.body.find((x) => stmtExprs(x).some((e) => mentions(e, new Set([p]))) || bodiesOf(x).length > 0);
      return !!first && isZeroFill(first) === p;
    };
    for (const p of this.g.params) if (this.kinds.has(p.name)) entry.push(...this.defineRows(p.name, null, false, null, null, zeroedFirst(p.name)));
    return { ...this.g, body: [...entry, ...this.stmts(this.g.body)] };
  }

  // ---------- which tangents have rows ----------

  /** records the tangents direction loops index, and refuses loops it cannot narrow */
  private collect(list: Stmt[]): void {
    for (const s of list) {
      const nd = directionLoopVar(s, this.nb);
      if (nd) {
        this.nd ??= nd;
        this.loopRows(s as Extract<Stmt, { k: 'for' }>, nd);
      } else for (const b of bodiesOf(s)) this.collect(b);
    }
  }

  private setKind(v: string, kind: 'row' | 'rows'): void {
    const was = this.kinds.get(v);
    if (was && was !== kind) throw new Unsupported(`${v} is read both as a scalar and as an array tangent`);
    this.kinds.set(v, kind);
  }

  /**
   * The row of `x` (an element read or written in a direction loop over `nd`): 'all' for a row of
   * something not a variable (`res[1][nd]`), null for no row.
   */
  private rowOf(x: Expr, nd: string, locals: ReadonlySet<string>): Row | 'all' | null {
    if (x.k !== 'idx' || !mentions(x.index, new Set([nd]))) return null;
    if (x.obj.k !== 'var') {
      if (x.index.k === 'var' && !mentions(x.obj, new Set([nd, ...locals]))) return 'all';
      throw new Unsupported('direction index into an expression');
    }
    if (this.opaque.has(x.obj.name)) return 'all';
    if (!isDirectionSlot(x.index, nd, this.nb)) throw new Unsupported('direction index not of a slot');
    if (x.index.k === 'var') {
      this.setKind(x.obj.name, 'row');
      return { v: x.obj.name, e: null };
    }
    // E * nbdirs + nd
    const e = ((x.index as Extract<Expr, { k: 'bin' }>).a as Extract<Expr, { k: 'bin' }>).a;
    if (mentions(e, locals)) throw new Unsupported('element index depends on the direction');
    this.setKind(x.obj.name, 'rows');
    return { v: x.obj.name, e };
  }

  /** the rows a direction loop reads and writes */
  private loopRows(s: Extract<Stmt, { k: 'for' }>, nd: string): LoopRows {
    const out: LoopRows = { reads: [], all: false, writes: [] };
    const locals = new Set<string>();
    // `guard`: the condition under which `e` is evaluated (null: always; 'opaque': a condition that
    // depends on the direction, under which no array row may be read)
    const read = (e: Expr, skip: Expr | null, guard: Expr | null | 'opaque' = null): void => {
      if (e === skip) return;
      const r = this.rowOf(e, nd, locals);
      if (r === 'all') {
        out.all = true;
        return;
      }
      if (r) {
        if (guard === 'opaque' && r.e) throw new Unsupported('array tangent read under a condition on the direction');
        const row: Row = guard && guard !== 'opaque' ? { ...r, guard } : r;
        if (!out.reads.some((x) => sameRow(x, row))) out.reads.push(row);
        return;
      }
      if (e.k === 'var' && e.name === nd) throw new Unsupported('direction used as a value');
      if (e.k === 'call') throw new Unsupported(`call of ${e.fn} in a direction loop`);
      if (e.k === 'intr' && !e.fn.startsWith('Math.') && e.fn !== 'Number.isFinite') throw new Unsupported(`${e.fn} in a direction loop`);
      const test = e.k === 'cond' ? e.c : e.k === 'bin' && (e.op === '&&' || e.op === '||') ? e.a : null;
      if (!test) {
        forEachChild(e, (c) => read(c, skip, guard));
        return;
      }
      // the branches of `c ? a : b`, and the right operand of `a && b` / `a || b`, run only where the test says
      read(test, skip, guard);
      const opaque = guard === 'opaque' || mentions(test, new Set([nd, ...locals]));
      const under = (t: Expr): Expr | 'opaque' => (opaque ? 'opaque' : guard ? bin('&&', guard as Expr, t, BOOL) : t);
      const not: Expr = { k: 'un', op: '!', a: test, ty: BOOL };
      if (e.k === 'cond') {
        read(e.a, skip, under(test));
        read(e.b, skip, under(not));
      } else if (e.k === 'bin') read(e.b, skip, under(e.op === '&&' ? test : not));
    };
    for (const x of s.body) {
      if (x.k === 'decl' && x.init) {
        read(x.init, null);
        locals.add(x.name);
        continue;
      }
      if (x.k !== 'assign') throw new Unsupported(`${x.k} in a direction loop`);
      const w = this.rowOf(x.target, nd, locals);
      if (!w || w === 'all') throw new Unsupported('write of something not a tangent row');
      this.written.add(w.v);
      const value = x.value;
      const accumulates = value.k === 'bin' && (value.op === '+' || value.op === '-') && exprEq(value.a, x.target);
      // `t = t + c * e` with c a value of the primal (`px += w * (…)`, a weight): where c is 0 the
      // increment is 0 (e finite), and the rows e reads count only where c is not
      const term = accumulates ? (value as Extract<Expr, { k: 'bin' }>).b : null;
      // (c read from memory, or a variable holding such a read: `c !== 0` type-checks, as it would not
      // for a constant of literal type, `const dt = 0.05`)
      const primal = (c: Expr) => (c.k === 'idx' || c.k === 'field' || (c.k === 'var' && this.readsFromMemory().has(c.name))) && !mentions(c, new Set([nd, ...locals]));
      const factor = term?.k === 'bin' && term.op === '*' ? (primal(term.a) ? [term.a, term.b] : primal(term.b) ? [term.b, term.a] : null) : null;
      if (factor) {
        read(factor[0], null);
        read(factor[1], null, bin('!==', factor[0], num(0), BOOL));
      } else read(value, accumulates ? (value as Extract<Expr, { k: 'bin' }>).a : null);
      if (w.e) read(w.e, null);
      out.writes.push({ row: w, accumulates });
    }
    return out;
  }

  private memoryReads: Set<string> | null = null;
  /** variables declared once, by an element or field read (`const w = wv[b]`) */
  private readsFromMemory(): Set<string> {
    if (!this.memoryReads) {
      const decls = new Map<string, number>();
      const reads = new Set<string>();
      forEachStmt(this.g.body, (s) => {
        if (s.k !== 'decl') return;
        decls.set(s.name, (decls.get(s.name) ?? 0) + 1);
        if (s.konst && (s.init?.k === 'idx' || s.init?.k === 'field')) reads.add(s.name);
      });
      this.memoryReads = new Set([...reads].filter((v) => decls.get(v) === 1));
    }
    return this.memoryReads;
  }

  /**
   * Is the local `v` the tangent of a plain array literal, which stores past its end may grow: a
   * literal itself, the zeros of one (`zerosLike(k, nbdirs)`, k `[]` or `[x[0]]`), or plain zeros of
   * a constant number of rows (`zeros(1 * nbdirs)`: the shadow of `const k = [x[0]]`)? A typed array
   * keeps its length, and an allocation sized by a length or a variable is not a literal's.
   */
  private bornGrowable(v: string): boolean {
    const init = (n: string): Expr | null => {
      let found: Expr | null = null;
      forEachStmt(this.g.body, (s) => {
        if (s.k === 'decl' && s.name === n && s.init) found = s.init;
      });
      return found;
    };
    const e = init(v);
    if (!e) return false;
    if (e.k === 'arrlit') return true;
    if (e.k === 'intr' && e.fn === 'zerosLike' && e.args[0].k === 'var') return init(e.args[0].name)?.k === 'arrlit';
    const plain = e.k === 'intr' && e.fn === 'zeros' ? e.args[0] : e.k === 'alloc' && e.ty.k === 'arr' && !e.ty.typed ? e.len : null;
    if (!plain) return false;
    let sized = false;
    forEachExpr(plain, (x) => {
      if ((x.k === 'var' && x.name !== this.nb) || x.k === 'len' || x.k === 'call' || x.k === 'idx' || x.k === 'field') sized = true;
    });
    return !sized;
  }

  private declared(list: Stmt[], v: string): boolean {
    return list.some((s) => (s.k === 'decl' && s.name === v) || bodiesOf(s).some((b) => this.declared(b, v)));
  }

  /**
   * Tangents whose definition this pass cannot follow. A tangent with rows is defined by an
   * allocation, `copy` or `zerosLike`, an array tangent with rows of its own (sharing them), or a part
   * of a call's result tuple (`res[1]`, `res` read nowhere else: no other name for its memory). Another
   * tangent (a row of a matrix tangent, `const usd_i = usd[i]`) that no direction loop writes and that
   * is only ever indexed becomes opaque: read in all directions. Else the function stays dense.
   */
  private checkDefinitions(body: Stmt[]): void {
    const unfollowed = new Set<string>();
    this.definitions(body, unfollowed);
    if (!unfollowed.size) return;
    for (const v of unfollowed) if (this.written.has(v) || !onlyIndexed(body, v)) throw new Unsupported(`${v} is defined by a form the pass does not follow`);
    for (const v of unfollowed) {
      this.opaque.add(v);
      this.kinds.delete(v);
    }
    // (an alias of an opaque tangent would share rows it does not have)
    this.definitions(body, unfollowed);
  }

  private definitions(body: Stmt[], unfollowed: Set<string>): void {
    const tupleReads = new Map<string, number>();
    const mentionsOf = new Map<string, number>();
    const count = (e: Expr): void => {
      if (e.k === 'idx' && e.obj.k === 'var' && e.index.k === 'num') tupleReads.set(e.obj.name, (tupleReads.get(e.obj.name) ?? 0) + 1);
      if (e.k === 'var') mentionsOf.set(e.name, (mentionsOf.get(e.name) ?? 0) + 1);
      forEachChild(e, count);
    };
    forEachStmt(body, (s) => {
      for (const e of stmtExprs(s)) count(e);
    });
    forEachStmt(body, (s) => {
      const defined = s.k === 'decl' ? s.name : s.k === 'assign' && s.target.k === 'var' ? s.target.name : null;
      if (!defined || !this.kinds.has(defined)) return;
      const value = s.k === 'decl' ? s.init : s.k === 'assign' ? s.value : null;
      if (!value) throw new Unsupported(`${defined} declared without a value`);
      if (value.k === 'alloc' || (value.k === 'intr' && (value.fn === 'copy' || value.fn === 'zerosLike'))) return;
      if (value.k === 'var' && this.kinds.get(value.name) === 'rows' && this.kinds.get(defined) === 'rows') return;
      if (value.k === 'idx' && value.obj.k === 'var' && value.index.k === 'num') {
        const r = value.obj.name;
        if (!this.kinds.has(r) && (mentionsOf.get(r) ?? 0) === (tupleReads.get(r) ?? 0)) return;
      }
      if (this.opaque.size) throw new Unsupported(`${defined} aliases an opaque tangent`);
      unfollowed.add(defined);
    });
  }

  // ---------- the transformation ----------

  private stmts(list: Stmt[]): Stmt[] {
    const out: Stmt[] = [];
    for (const s of list) {
      const nd = directionLoopVar(s, this.nb);
      if (nd) out.push(...this.narrowLoop(s as Extract<Stmt, { k: 'for' }>, nd));
      else if (bodiesOf(s).length) {
        if (s.k === 'for' && [...s.init, ...s.update].some((x) => x.k !== 'decl' && x.k !== 'assign')) throw new Unsupported('statement in a loop header');
        const header = [...stmtExprs(s), ...(s.k === 'for' ? [...s.init, ...s.update].flatMap((x) => (x.k === 'decl' ? [vr(x.name, INT), ...stmtExprs(x)] : stmtExprs(x))) : [])];
        if (header.some((e) => mentions(e, this.tracked()))) throw new Unsupported(`a tangent in the header of a ${s.k}`);
        out.push(mapBodies(s, (b) => this.stmts(b)));
      } else out.push(...this.leaf(s));
    }
    return out;
  }

  private tracked(): Set<string> {
    return new Set(this.kinds.keys());
  }

  /** a statement outside the direction loops: rows defined or rescanned, or the function refused */
  private leaf(s: Stmt): Stmt[] {
    if (s.k === 'return' || s.k === 'break' || s.k === 'continue') return [s];
    const tracked = this.tracked();
    let defined: string | null = null;
    let value: Expr | null = null;
    if (s.k === 'decl') {
      if (tracked.has(s.name)) defined = s.name;
      value = s.init;
    } else if (s.k === 'assign') {
      if (s.target.k === 'var' && tracked.has(s.target.name)) defined = s.target.name;
      else if (mentions(s.target, tracked)) throw new Unsupported('tangent written outside a direction loop');
      value = s.value;
    } else if (s.k === 'expr') value = s.e;
    else if (s.k === 'throw') {
      if (mentions(s.e, tracked)) throw new Unsupported('tangent in a throw');
      return [s];
    } else throw new Unsupported(`${s.k} statement`);
    const rescan = new Set<string>();
    // (an alias of an array tangent shares its rows: checkDefinitions)
    const alias = defined && value?.k === 'var' && tracked.has(value.name) ? value.name : null;
    if (value && !alias) this.uses(value, rescan);
    const out: Stmt[] = [s];
    if (defined) out.push(...this.defineRows(defined, s.k === 'decl' ? s : null, true, alias, value?.k === 'alloc' ? value : null));
    // (zeroFill empties every row: no scan)
    const zeroed = isZeroFill(s);
    for (const v of [...rescan].sort()) if (v !== defined) out.push(...(v === zeroed ? this.emptyRows(v) : this.scan(v, true)));
    return out;
  }

  /** every row of `v` empty (its tangent all zeros) */
  private emptyRows(v: string): Stmt[] {
    const lo = this.lo.get(v)!, hi = this.hi.get(v)!;
    if (this.kinds.get(v) === 'row') return [assign(vr(lo, INT), this.nbv), assign(vr(hi, INT), num(0))];
    const row = vr(this.names.fresh('row'), INT);
    return [dirFor(row.name, num(0), { k: 'len', obj: vr(lo, I32) }, [assign(idx(vr(lo, I32), row, INT), this.nbv), assign(idx(vr(hi, I32), row, INT), num(0))])];
  }

  /**
   * Checks the tangents `e` mentions: element reads and lengths are harmless; an argument of a call
   * that may write it, or of `zeroFill`, is rescanned after the statement (`rescan`), of `copy` or
   * `zerosLike` left as it is; anything else is refused.
   */
  private uses(e: Expr, rescan: Set<string>): void {
    if (e.k === 'var') {
      if (this.kinds.has(e.name)) throw new Unsupported(`${e.name} used as a value`);
      return;
    }
    if ((e.k === 'idx' || e.k === 'len') && e.obj.k === 'var') {
      if (e.k === 'idx') this.uses(e.index, rescan);
      return;
    }
    if (e.k === 'call' || (e.k === 'intr' && (e.fn === 'zeroFill' || e.fn === 'copy' || e.fn === 'zerosLike'))) {
      e.args.forEach((a, k) => {
        if (a.k !== 'var' || !this.kinds.has(a.name)) this.uses(a, rescan);
        else if (e.k === 'intr' ? e.fn === 'zeroFill' : this.mayWrite(e.fn, k)) rescan.add(a.name);
      });
      return;
    }
    forEachChild(e, (c) => this.uses(c, rescan));
  }

  /**
   * The rows of `v` where it is (re)defined: empty for a fresh allocation, shared with the array tangent
   * it aliases, else found by a scan. `decl`: the declaration (rows declared beside it, const with it).
   */
  private defineRows(v: string, decl: Extract<Stmt, { k: 'decl' }> | null, inBody: boolean, alias: string | null = null, alloc: Extract<Expr, { k: 'alloc' }> | null = null, zeroedNext = false): Stmt[] {
    const again = inBody && !decl;
    const set = (name: string, ty: Ty, value: Expr, konst: boolean): Stmt =>
      again ? assign(vr(name, ty), value) : { k: 'decl', name, ty, init: value, konst };
    const lo = this.lo.get(v)!;
    const hi = this.hi.get(v)!;
    if (this.kinds.get(v) === 'row') {
      const rows = [set(lo, INT, this.nbv, false), set(hi, INT, num(0), false)];
      const fresh = !!alloc && alloc.len.k === 'var' && alloc.len.name === this.nb;
      return fresh ? rows : [...rows, ...this.scan(v, false)];
    }
    const konst = !!decl?.konst;
    if (alias) return [set(lo, I32, vr(this.lo.get(alias)!, I32), konst), set(hi, I32, vr(this.hi.get(alias)!, I32), konst)];
    const per = alloc && alloc.len.k === 'bin' && alloc.len.op === '*' && alloc.len.b.k === 'var' && alloc.len.b.name === this.nb ? alloc.len.a : null;
    const len: Expr = per ?? bin('/', { k: 'len', obj: vr(v, NUMS) }, this.nbv, INT);
    const rows = [set(lo, I32, { k: 'alloc', len, fill: this.nbv, ty: I32 }, konst), set(hi, I32, { k: 'alloc', len, fill: null, ty: I32 }, konst)];
    return per || zeroedNext ? rows : [...rows, ...this.scan(v, false)];
  }

  /** finds the rows of `v` from its contents; `reset`: empties them first (array rows always are) */
  private scan(v: string, reset: boolean): Stmt[] {
    const nd = vr(this.nd!, INT);
    const row = this.kinds.get(v) === 'rows' ? vr(this.names.fresh('row'), INT) : null;
    const lo: LValue = row ? idx(vr(this.lo.get(v)!, I32), row, INT) : vr(this.lo.get(v)!, INT);
    const hi: LValue = row ? idx(vr(this.hi.get(v)!, I32), row, INT) : vr(this.hi.get(v)!, INT);
    const slot: Expr = row ? bin('+', bin('*', row, this.nbv, INT), nd, INT) : nd;
    const found: Stmt = {
      k: 'if',
      c: bin('!==', idx(vr(v, NUMS), slot), num(0), BOOL),
      then: [assign(lo, intr('Math.min', [lo, nd], INT)), assign(hi, bin('+', nd, num(1), INT))],
      else: [],
    };
    const body: Stmt[] = [...(reset || row ? [assign(lo, this.nbv), assign(hi, num(0))] : []), dirFor(nd.name, num(0), this.nbv, [found])];
    const comments = [`// directions of ${v} that may be non-zero`];
    if (!row) return [{ ...body[0], comments }, ...body.slice(1)];
    return [{ ...dirFor(row.name, num(0), { k: 'len', obj: vr(this.lo.get(v)!, I32) }, body), comments }];
  }

  /** a direction loop over the union of the rows it reads (head comment) */
  private narrowLoop(s: Extract<Stmt, { k: 'for' }>, nd: string): Stmt[] {
    const rows = this.loopRows(s, nd);
    const out: Stmt[] = [];
    const loOf = (r: Row): LValue => (r.e ? idx(vr(this.lo.get(r.v)!, I32), r.e, INT) : vr(this.lo.get(r.v)!, INT));
    const hiOf = (r: Row): LValue => (r.e ? idx(vr(this.hi.get(r.v)!, I32), r.e, INT) : vr(this.hi.get(r.v)!, INT));
    // (a guarded row counts only where its guard holds: elsewhere its element may not exist)
    const guarded = (r: Row, x: Expr, none: Expr): Expr => (r.guard ? { k: 'cond', c: r.guard, a: x, b: none, ty: INT } : x);
    const empty = !rows.all && rows.reads.length === 0;
    let lo: Expr = num(0);
    let hi: Expr = this.nbv;
    if (empty) {
      lo = this.nbv;
      hi = num(0);
    } else if (!rows.all) {
      const minMax = (fn: string, xs: Expr[]): Expr => (xs.length === 1 ? xs[0] : intr(fn, xs, INT));
      const loName = this.names.fresh(`${nd}Lo`);
      const hiName = this.names.fresh(`${nd}Hi`);
      // (rows under one guard share it: `w !== 0 ? Math.min(…) : nbdirs`)
      const groups: Row[][] = [];
      for (const r of rows.reads) {
        const g = groups.find((x) => (x[0].guard ? !!r.guard && exprEq(x[0].guard, r.guard) : !r.guard));
        if (g) g.push(r);
        else groups.push([r]);
      }
      const bound = (fn: string, of: (r: Row) => Expr, none: Expr) => minMax(fn, groups.map((g) => guarded(g[0], minMax(fn, g.map(of)), none)));
      out.push({ k: 'decl', name: loName, ty: INT, init: bound('Math.min', loOf, this.nbv), konst: true });
      out.push({ k: 'decl', name: hiName, ty: INT, init: bound('Math.max', hiOf, num(0)), konst: true });
      lo = vr(loName, INT);
      hi = vr(hiName, INT);
    }
    // an assigned row's old directions outside the loop's are zeroed
    const slot = (r: Row): LValue => idx(vr(r.v, NUMS), r.e ? bin('+', bin('*', r.e, this.nbv, INT), vr(nd, INT), INT) : vr(nd, INT));
    for (const w of rows.writes) {
      if (w.accumulates || rows.all) continue;
      const zero = (from: Expr, to: Expr): Stmt => dirFor(nd, from, to, [assign(slot(w.row), num(0))]);
      if (empty) out.push(zero(loOf(w.row), hiOf(w.row)));
      else out.push(zero(loOf(w.row), intr('Math.min', [hiOf(w.row), lo], INT)), zero(intr('Math.max', [loOf(w.row), hi], INT), hiOf(w.row)));
    }
    if (!empty) out.push(...this.runLoop(s, nd, lo, hi, rows));
    for (const w of rows.writes) {
      if (!w.accumulates) out.push(assign(loOf(w.row), lo), assign(hiOf(w.row), hi));
      else out.push(assign(loOf(w.row), intr('Math.min', [loOf(w.row), lo], INT)), assign(hiOf(w.row), intr('Math.max', [hiOf(w.row), hi], INT)));
    }
    if (s.comments && out.length) out[0] = { ...out[0], comments: s.comments };
    return out;
  }

  /**
   * The loop over [lo, hi). The row offsets `E * nbdirs` of the elements it always touches are computed
   * once before it (`const at = E * nbdirs`, `ad[at + nd]`), where it runs at all.
   */
  private runLoop(s: Extract<Stmt, { k: 'for' }>, nd: string, lo: Expr, hi: Expr, rows: LoopRows): Stmt[] {
    const offsets: { e: Expr; name: string }[] = [];
    for (const r of [...rows.writes.map((w) => w.row), ...rows.reads.filter((x) => !x.guard)])
      if (r.e && r.e.k !== 'num' && !offsets.some((o) => exprEq(o.e, r.e!))) offsets.push({ e: r.e, name: this.names.fresh('at') });
    const at = (e: Expr): Expr => {
      if (e.k !== 'idx' || e.obj.k !== 'var' || this.kinds.get(e.obj.name) !== 'rows' || !isDirectionSlot(e.index, nd, this.nb) || e.index.k !== 'bin') return e;
      const row = (e.index.a as Extract<Expr, { k: 'bin' }>).a;
      const o = offsets.find((x) => exprEq(x.e, row));
      return o ? { ...e, index: bin('+', vr(o.name, INT), vr(nd, INT), INT) } : e;
    };
    const body = s.body.map((x): Stmt => (x.k === 'decl' && x.init ? { ...x, init: mapExpr(x.init, at) } : x.k === 'assign' ? { ...x, target: mapExpr(x.target, at) as LValue, value: mapExpr(x.value, at) } : x));
    const loop: Stmt = { ...s, comments: undefined, init: [{ ...(s.init[0] as Extract<Stmt, { k: 'decl' }>), init: lo }], cond: bin('<', vr(nd, INT), hi, BOOL), body };
    if (!offsets.length) return [loop];
    const decls = offsets.map((o): Stmt => ({ k: 'decl', name: o.name, ty: INT, init: bin('*', o.e, this.nbv, INT), konst: true }));
    return [{ k: 'if', c: bin('<', lo, hi, BOOL), then: [...decls, loop], else: [] }];
  }
}

const NUMS: Ty = { k: 'arr', elem: NUM, typed: true, ro: false };

/** `for (let d = from; d < to; d++) body` */
function dirFor(d: string, from: Expr, to: Expr, body: Stmt[]): Stmt {
  const loop = countedFor(d, to, body) as Extract<Stmt, { k: 'for' }>;
  return { ...loop, init: [{ ...(loop.init[0] as Extract<Stmt, { k: 'decl' }>), init: from }] };
}

/** `v` appears only indexed (`v[…]`) or defined (`v = …`, `const v = …`) in `body` */
function onlyIndexed(body: Stmt[], v: string): boolean {
  let ok = true;
  const visit = (e: Expr): void => {
    if (e.k === 'var' && e.name === v) ok = false;
    else if (e.k === 'idx' && e.obj.k === 'var' && e.obj.name === v) visit(e.index);
    else forEachChild(e, visit);
  };
  forEachStmt(body, (s) => {
    const exprs = s.k === 'assign' && s.target.k === 'var' && s.target.name === v ? [s.value] : stmtExprs(s);
    exprs.forEach(visit);
    if (s.k === 'for') for (const x of [...s.init, ...s.update]) stmtExprs(x).forEach(visit);
  });
  return ok;
}

/** the variable `s` zeroes, if it is `zeroFill(v)` */
function isZeroFill(s: Stmt): string | null {
  return s.k === 'expr' && s.e.k === 'intr' && s.e.fn === 'zeroFill' && s.e.args[0]?.k === 'var' ? s.e.args[0].name : null;
}

function sameRow(a: Row, b: Row): boolean {
  const same = (x: Expr | null | undefined, y: Expr | null | undefined): boolean => (x ? !!y && exprEq(x, y) : !y);
  return a.v === b.v && same(a.e, b.e) && same(a.guard, b.guard);
}

function mentions(e: Expr, names: ReadonlySet<string>): boolean {
  if (e.k === 'var') return names.has(e.name);
  let found = false;
  forEachChild(e, (c) => {
    if (!found && mentions(c, names)) found = true;
  });
  return found;
}
