// Element Hessians of partially separable objectives (issue 18): f(x) = s₀ + Σ_e f_e(x[j₁(e)], …,
// x[j_K(e)]), where each element f_e is one iteration of a loop body that adds to the result (or one
// statement `s += E` outside loops) and reads x at a few indices that depend on loop counters and
// passive values only. Its Hessian is the sum of the elements' small dense K × K Hessians, scattered to
// (j_k, j_l). This module writes `<head>_elements(…params, idx, h)`: for each element, the indices it
// read (idx, K a element, -1 for a site it did not read) and its Hessian (h, the K diagonal entries,
// then the K(K−1)/2 upper ones row by row), by second-order forward mode on scalars (every active
// local carries its gradient and Hessian over the element's K sites as locals). It returns the number
// of elements, or -1 when idx or h has no room for one more (the caller grows them and calls again).
// src/api/elements.ts turns the indices into the pattern and scatters.
//
// Anything outside this form is refused with a TransformError naming the construct (the caller then
// uses the colouring method of src/api/sparse.ts): a value carried from one element to the next other
// than through the sum, a read of the sum, an index computed from x, writes to arrays, calls, jumps
// inside an element, operations without a second-order rule below.
import type { Expr, Func, Loc, Param, Stmt, Ty } from '../ir/types.js';
import { BOOL, INT, NUM, bin, declaredNames, exprEq, forEachChild, forEachExpr, forEachStmt, hasJump, idx as index, stmtExprs, readsVar } from '../ir/util.js';
import { TransformError } from './tangent.js';

/** the most x reads (sites) an element may have: its Hessian has K(K+1)/2 entries, each a local per active value */
export const MAX_SITES = 6;

export interface ElementCode {
  /** `<head>_elements`: records each element's indices and Hessian */
  func: Func;
  /** `<head>_elements_add`: adds each element's Hessian into its places, for indices equal to a recorded run's */
  add: Func;
  /** sites per element (the stride of idx) */
  sites: number;
  /** Hessian entries per element (the stride of h): sites(sites+1)/2 */
  slots: number;
}

const I32: Ty = { k: 'arr', elem: INT, typed: true, ro: false, ctor: 'Int32Array' };
const F64: Ty = { k: 'arr', elem: NUM, typed: true, ro: false };
const refuse = (what: string, loc?: Loc): never => {
  throw new TransformError(`not a sum of element functions: ${what}`, loc ? { loc } : undefined);
};

/** `<head>_elements` for `head`, the Hessian with respect to the number array `wrt`; throws TransformError where the form does not hold */
export function elementHessianFunc(head: Func, wrt: string, name: string): ElementCode {
  const xp = head.params.find((p) => p.name === wrt);
  if (!xp || xp.ty.k !== 'arr' || xp.ty.elem.k !== 'num' || xp.ty.ctor) refuse(`'${wrt}' is not an array of numbers`, head.loc);
  const last = head.body[head.body.length - 1];
  if (!last || last.k !== 'return' || last.e?.k !== 'var') return refuse('the function does not end by returning a local', last?.loc ?? head.loc);
  const sum = last.e.name;
  forEachStmt(head.body, (t) => {
    for (const e of stmtExprs(t)) {
      forEachExpr(e, (c) => {
        // (the code is loaded alone, without the module's other functions, its constants or the runtime API's scope)
        if (c.k === 'global') refuse(`a read of the module constant '${c.name}'`, c.loc ?? t.loc);
        if (c.k === 'call') refuse(`a call of '${c.fn}'`, c.loc ?? t.loc);
      });
      // (x's values reach the elements only through x[i]: any other use, `x.at(i)`, an alias, would carry them unseen)
      if (otherUse(e, wrt)) refuse(`'${wrt}' used other than as ${wrt}[i] or ${wrt}.length`, e.loc ?? t.loc);
    }
  });
  const record = build(head, wrt, sum, name, 'record');
  const add = build(head, wrt, sum, `${name}_add`, 'add');
  return { func: record.func, add: add.func, sites: record.K, slots: (record.K * (record.K + 1)) / 2 };
}

/** one of the two functions: 'record' writes indices and Hessians, 'add' adds the Hessians into a plan's places */
function build(head: Func, wrt: string, sum: string, name: string, mode: Mode): { func: Func; K: number } {
  const g = new Gen(head, wrt, sum, name, mode);
  const body = g.structural(head.body.slice(0, -1), true);
  const K = Math.max(1, g.maxSites);
  g.finish(K);
  const slots = (K * (K + 1)) / 2;
  const [a, b, c] = g.bufferNames;
  const params: Param[] = [...head.params.map((p) => ({ ...p })), ...(mode === 'record' ? [{ name: a, ty: I32 }, { name: b, ty: F64 }] : [{ name: a, ty: I32 }, { name: b, ty: I32 }, { name: c, ty: F64 }])];
  const comments =
    mode === 'record'
      ? [
          `// The Hessian of '${head.name}' by elements (src/transform/elements.ts): the indices of '${wrt}' each element read (${K} an`,
          `// element, in ${a}, -1 for one not read) and its Hessian (${slots} an element, in ${b}); returns the number of elements, or -1 when they have no room for one more.`,
        ]
      : [
          `// The Hessian of '${head.name}' by elements, added into ${c} at each element's places (${K * K} an element, in ${b}: src/api/elements.ts); returns`,
          `// the number of elements, or -1 where an element reads '${wrt}' at another index than ${a} (the indices of the run the places are for) or past them.`,
        ];
  const func: Func = { name, params, ret: NUM, exported: true, loc: head.loc, comments, body: [{ k: 'decl', name: g.countName, ty: INT, init: { k: 'num', v: 0 }, konst: false }, ...body, { k: 'return', e: vr(g.countName, INT) }] };
  return { func, K };
}

type Mode = 'record' | 'add';

/** whether `x` occurs in e other than as the array of an index or a length */
function otherUse(e: Expr, x: string): boolean {
  if (e.k === 'var') return e.name === x;
  if ((e.k === 'idx' || e.k === 'len') && e.obj.k === 'var' && e.obj.name === x) return e.k === 'idx' && otherUse(e.index, x);
  let found = false;
  forEachChild(e, (c) => {
    if (!found && otherUse(c, x)) found = true;
  });
  return found;
}

const vr = (name: string, ty: Ty = NUM): Expr => ({ k: 'var', name, ty });
const lit = (n: number): Expr => ({ k: 'num', v: n });
const isLit = (e: Expr | null, n: number) => e !== null && e.k === 'num' && e.v === n;

/** a value and its first and second derivatives over the element's sites (null: structurally zero) */
interface D2 {
  v: Expr;
  g: (Expr | null)[];
  /** packed: the K diagonal entries, then (k, l) for k < l row by row */
  h: (Expr | null)[];
}

/** the packed slot of (k, l) */
function slot(k: number, l: number, K: number): number {
  if (k === l) return k;
  const [a, b] = k < l ? [k, l] : [l, k];
  // (off-diagonal slots after the diagonal, row by row)
  let s = K;
  for (let r = 0; r < a; r++) s += K - 1 - r;
  return s + (b - a - 1);
}

/** the generated function's names and its elements, written once the stride K is known (finish) */
class Gen {
  /** record: idx, h; add: trace, places, values */
  readonly bufferNames: string[];
  readonly countName: string;
  maxSites = 0;
  private taken: Set<string>;
  private counter = 0;
  /** element bodies to patch once K is known */
  private pending: { stmts: Stmt[]; el: Element }[] = [];

  constructor(
    head: Func,
    private x: string,
    private sum: string,
    name: string,
    readonly mode: Mode,
  ) {
    this.taken = declaredNames(head);
    this.taken.add(name);
    this.bufferNames = (mode === 'record' ? ['idx', 'h'] : ['trace', 'places', 'values']).map((b) => this.fresh(b));
    this.countName = this.fresh('e');
  }

  fresh(base: string): string {
    let n = base;
    while (this.taken.has(n)) n = `${base}${this.counter++}`;
    this.taken.add(n);
    return n;
  }

  /** reads of x, of the sum, calls anywhere in e */
  private scan(e: Expr): { x: boolean; sum: boolean } {
    let x = false, sum = false;
    forEachExpr(e, (c) => {
      if (c.k === 'var' && c.name === this.x) x = true;
      if (c.k === 'var' && c.name === this.sum) sum = true;
      if (c.k === 'call') refuse(`a call of '${c.fn}'`, c.loc);
    });
    return { x, sum };
  }

  /** the value added to the sum by `s = s + E`, `s = E + s`, `s = s - E` (negated), or null */
  private increment(s: Stmt): { e: Expr; sign: 1 | -1 } | null {
    if (s.k !== 'assign' || s.target.k !== 'var' || s.target.name !== this.sum) return null;
    const val = s.value;
    if (val.k === 'bin' && (val.op === '+' || val.op === '-') && val.a.k === 'var' && val.a.name === this.sum) return { e: val.b, sign: val.op === '+' ? 1 : -1 };
    if (val.k === 'bin' && val.op === '+' && val.b.k === 'var' && val.b.name === this.sum) return { e: val.a, sign: 1 };
    return refuse(`'${this.sum}' is assigned other than by adding to it`, s.loc);
  }

  /** a statement that neither touches x's values nor the sum: kept as it is */
  private passive(s: Stmt): Stmt {
    forEachStmt([s], (t) => {
      if (t.k === 'assign' && t.target.k !== 'var') refuse('a write into an array or object', t.loc);
      if (t.k === 'assign' && t.target.k === 'var' && t.target.name === this.x) refuse(`'${this.x}' is assigned`, t.loc);
      if (t.k === 'return') refuse('a return before the end', t.loc);
      if (t.k === 'switch') refuse('a switch', t.loc);
      if ((t.k === 'decl' && (t.ty.k === 'num' || t.ty.k === 'arr' || t.ty.k === 'obj' || t.ty.k === 'tuple') && t.init && this.scan(t.init).x) || (t.k === 'assign' && this.scan(t.value).x))
        refuse(`a value computed from '${this.x}' outside an element`, t.loc);
    });
    const exprs: Expr[] = [];
    forEachStmt([s], (t) => {
      if (t.k === 'decl' && t.init) exprs.push(t.init);
      else if (t.k === 'assign') exprs.push(t.value);
      else if (t.k === 'expr' || t.k === 'throw') exprs.push(t.e);
      else if (t.k === 'if') exprs.push(t.c);
      else if ((t.k === 'for' && t.cond) || t.k === 'while' || t.k === 'do') exprs.push(t.cond!);
    });
    for (const e of exprs) if (this.scan(e).sum) refuse(`'${this.sum}' is read`, s.loc);
    return s;
  }

  /** the function's statements outside elements: passive ones kept, loops with an element body rewritten */
  structural(list: Stmt[], top: boolean): Stmt[] {
    const out: Stmt[] = [];
    for (const s of list) {
      if (top && s.k === 'decl' && s.name === this.sum) {
        if (s.init && this.scan(s.init).x) refuse(`'${this.sum}' starts from a value computed from '${this.x}'`, s.loc);
        continue; // (the sum's own value is not computed: only its elements' Hessians)
      }
      if (s.k === 'assign' && s.target.k === 'var' && s.target.name === this.sum) {
        out.push({ k: 'block', body: this.element([s], s.loc), loc: s.loc });
        continue;
      }
      if (s.k === 'for' || s.k === 'while' || s.k === 'do') {
        const nested = s.body.some((t) => containsLoop(t));
        const touches = mentions(s.body, this.x) || mentions(s.body, this.sum);
        if (s.k === 'for') for (const t of [...s.init, ...s.update]) this.passive(t);
        if (s.cond && this.scan(s.cond).sum) refuse(`'${this.sum}' is read`, s.loc);
        if (s.k === 'do' && touches) refuse('a do-while loop adding to the sum', s.loc);
        if (nested || !touches) {
          out.push({ ...s, body: this.structural(s.body, false) });
          continue;
        }
        // (the loop's condition may read x and the element's values: a test carries no derivative)
        out.push({ ...s, body: this.element(s.body, s.loc) });
        continue;
      }
      if (s.k === 'if') {
        this.passive({ ...s, then: [], else: [] });
        out.push({ ...s, then: this.structural(s.then, false), else: this.structural(s.else, false) });
        continue;
      }
      if (s.k === 'block') {
        out.push({ ...s, body: this.structural(s.body, false) });
        continue;
      }
      out.push(this.passive(s));
    }
    return out;
  }

  /**
   * one element: the statements of a loop body, or one increment of the sum. Analysed now; its code is
   * written into the returned list by finish, once the stride (the most sites of any element) is known.
   */
  private element(body: Stmt[], loc?: Loc): Stmt[] {
    if (hasJump(body)) refuse('a jump (break, continue, return, throw) inside an element', loc);
    const el = new Element(this, this.x, this.sum, body);
    this.maxSites = Math.max(this.maxSites, el.sites.length);
    if (el.sites.length > MAX_SITES) refuse(`an element reads ${el.sites.length} entries of '${this.x}' (at most ${MAX_SITES})`, loc);
    const stmts: Stmt[] = [];
    this.pending.push({ stmts, el });
    return stmts;
  }

  /** each element's statements, now that the stride K is known */
  finish(K: number): void {
    for (const p of this.pending) p.stmts.push(...p.el.wrap(K, this.bufferNames, this.countName));
  }

  refuseAt(what: string, loc?: Loc): never {
    return refuse(what, loc);
  }

  check(e: Expr): { x: boolean; sum: boolean } {
    return this.scan(e);
  }

  incrementOf(s: Stmt): { e: Expr; sign: 1 | -1 } | null {
    return this.increment(s);
  }
}

function containsLoop(s: Stmt): boolean {
  let found = false;
  forEachStmt([s], (t) => {
    if (t.k === 'for' || t.k === 'while' || t.k === 'do') found = true;
  });
  return found;
}

function mentions(list: Stmt[], name: string): boolean {
  let found = false;
  forEachStmt(list, (t) => {
    const exprs: Expr[] = [];
    if (t.k === 'decl' && t.init) exprs.push(t.init);
    if (t.k === 'assign') exprs.push(t.target, t.value);
    if (t.k === 'expr' || t.k === 'throw' || (t.k === 'return' && t.e)) exprs.push((t as { e: Expr }).e);
    if (t.k === 'if') exprs.push(t.c);
    if ((t.k === 'for' && t.cond) || t.k === 'while' || t.k === 'do') exprs.push(t.cond!);
    for (const e of exprs)
      forEachExpr(e, (c) => {
        if (c.k === 'var' && c.name === name) found = true;
      });
  });
  return found;
}

/** unary functions with their first and second derivatives, over the argument `a` and the result `r` */
const SECOND: Record<string, (a: Expr, r: Expr) => [Expr, Expr]> = {
  'Math.exp': (_a, r) => [r, r],
  'Math.expm1': (_a, r) => [bin('+', r, lit(1)), bin('+', r, lit(1))],
  'Math.log': (a) => [bin('/', lit(1), a), bin('/', lit(-1), bin('*', a, a))],
  'Math.log1p': (a) => {
    const b = bin('+', lit(1), a);
    return [bin('/', lit(1), b), bin('/', lit(-1), bin('*', b, b))];
  },
  'Math.sqrt': (_a, r) => [bin('/', lit(0.5), r), bin('/', lit(-0.25), bin('*', r, bin('*', r, r)))],
  'Math.sin': (a, r) => [{ k: 'intr', fn: 'Math.cos', args: [a], ty: NUM }, { k: 'un', op: '-', a: r, ty: NUM }],
  'Math.cos': (a, r) => [{ k: 'un', op: '-', a: { k: 'intr', fn: 'Math.sin', args: [a], ty: NUM }, ty: NUM }, { k: 'un', op: '-', a: r, ty: NUM }],
  'Math.sinh': (a, r) => [{ k: 'intr', fn: 'Math.cosh', args: [a], ty: NUM }, r],
  'Math.cosh': (a, r) => [{ k: 'intr', fn: 'Math.sinh', args: [a], ty: NUM }, r],
  'Math.tanh': (_a, r) => {
    const d = bin('-', lit(1), bin('*', r, r));
    return [d, bin('*', bin('*', lit(-2), r), d)];
  },
  'Math.atan': (a) => {
    const q = bin('+', lit(1), bin('*', a, a));
    return [bin('/', lit(1), q), bin('/', bin('*', lit(-2), a), bin('*', q, q))];
  },
  'Math.abs': (a) => [{ k: 'intr', fn: 'Math.sign', args: [a], ty: NUM }, lit(0)],
};

/** one element's code: its sites, the dependence of its locals on them, and the second-order forward statements */
class Element {
  /** the index expressions of x read, in order of appearance */
  sites: Expr[] = [];
  /** active locals (numbers declared in the element) and the sites each depends on */
  private dep = new Map<string, Set<number>>();
  private declared = new Set<string>();
  private assigned = new Set<string>();
  private K = 0;
  /**
   * companions: local → gradient and Hessian per site / slot, by name (a local holding it), or for a
   * `const` local whose companion is a constant, that constant (null: zero), declared nowhere
   */
  private comp = new Map<string, { g: string[]; h: string[]; fixedG?: (Expr | null)[]; fixedH?: (Expr | null)[] }>();
  /** sites read at the element's top level: the local holding the value (valid to the element's end) */
  private readTop = new Map<number, Expr>();
  private acc: string[] = [];
  private out: Stmt[] = [];

  constructor(
    private gen: Gen,
    private x: string,
    private sum: string,
    private body: Stmt[],
  ) {
    forEachStmt(body, (s) => {
      if (s.k === 'decl') {
        if (this.declared.has(s.name)) gen.refuseAt(`'${s.name}' is declared twice in one element`, s.loc);
        this.declared.add(s.name);
      }
      if (s.k === 'assign' && s.target.k === 'var') this.assigned.add(s.target.name);
      if (s.k === 'assign' && s.target.k !== 'var') gen.refuseAt('a write into an array or object', s.loc);
      if (s.k === 'for' || s.k === 'while' || s.k === 'do' || s.k === 'switch') gen.refuseAt(`a ${s.k} inside an element`, s.loc);
      if (s.k === 'assign' && s.target.k === 'var' && s.target.name === this.x) gen.refuseAt(`'${x}' is assigned`, s.loc);
      if (s.k === 'assign' && s.target.k === 'var' && s.target.name !== sum && s.target.ty.k === 'num' && !this.declared.has(s.target.name))
        gen.refuseAt(`'${s.target.name}' carries a number from one element to the next`, s.loc);
    });
    // sites, and which locals depend on them (a fixpoint: a local assigned in a branch from a later one)
    this.collect(body);
    for (let changed = true; changed; ) {
      changed = false;
      forEachStmt(body, (s) => {
        const target = s.k === 'decl' && s.ty.k === 'num' ? s.name : s.k === 'assign' && s.target.k === 'var' && s.target.name !== sum && s.target.ty.k === 'num' ? s.target.name : null;
        const rhs = s.k === 'decl' ? s.init : s.k === 'assign' ? s.value : null;
        if (!target || !rhs) return;
        const d = this.dep.get(target) ?? new Set<number>();
        const before = d.size;
        for (const k of this.depOf(rhs)) d.add(k);
        if (!this.dep.has(target) || d.size !== before) changed = true;
        this.dep.set(target, d);
      });
    }
  }

  /** the sites in the number-valued expressions of the element (decl inits, assigned values, increments) */
  private collect(list: Stmt[]): void {
    forEachStmt(list, (s) => {
      const rhs = s.k === 'decl' && s.ty.k === 'num' ? s.init : s.k === 'assign' && s.target.ty.k === 'num' ? s.value : null;
      if (!rhs) return;
      forEachExpr(rhs, (e) => {
        if (e.k === 'call') this.gen.refuseAt(`a call of '${e.fn}'`, e.loc);
        if (e.k !== 'idx' || e.obj.k !== 'var' || e.obj.name !== this.x) return;
        forEachExpr(e.index, (c) => {
          if (c.k === 'var' && (c.name === this.x || c.name === this.sum)) this.gen.refuseAt(`an index computed from '${c.name}'`, e.loc);
          if (c.k === 'var' && this.assigned.has(c.name)) this.gen.refuseAt(`an index reading '${c.name}', which the element assigns`, e.loc);
          if (c.k === 'var' && c.ty.k === 'num' && this.declared.has(c.name)) this.gen.refuseAt(`an index computed from the number '${c.name}'`, e.loc);
        });
        if (!this.sites.some((t) => exprEq(t, e.index))) this.sites.push(e.index);
      });
    });
  }

  private siteOf(e: Expr): number {
    return this.sites.findIndex((t) => exprEq(t, e));
  }

  private depOf(e: Expr): Set<number> {
    const d = new Set<number>();
    forEachExpr(e, (c) => {
      if (c.k === 'idx' && c.obj.k === 'var' && c.obj.name === this.x) {
        const k = this.siteOf(c.index);
        if (k >= 0) d.add(k);
      }
      if (c.k === 'var') for (const k of this.dep.get(c.name) ?? []) d.add(k);
    });
    return d;
  }

  /** the element's statements, for a stride of K sites, into the buffers of the generator's mode */
  wrap(K: number, buffers: string[], count: string): Stmt[] {
    this.K = K;
    const S = (K * (K + 1)) / 2;
    const g = this.gen;
    const add = g.mode === 'add';
    const [idxName, outName, valuesName] = buffers;
    const base = g.fresh('o'), hbase = g.fresh(add ? 'p' : 'oh');
    this.idxBase = base;
    this.idxName = idxName;
    for (const [name, d] of this.dep) {
      if (!d.size) continue;
      const gs: string[] = [], hs: string[] = [];
      for (let k = 0; k < K; k++) gs.push(d.has(k) ? g.fresh(`${name}_d${k}`) : '');
      for (let s = 0; s < S; s++) hs.push('');
      for (const k of d) for (const l of d) if (k <= l) hs[slot(k, l, K)] = g.fresh(k === l ? `${name}_d${k}${k}` : `${name}_d${k}${l}`);
      this.comp.set(name, { g: gs, h: hs });
    }
    for (let s = 0; s < S; s++) this.acc.push(g.fresh(`h${s}`));
    const cnt = vr(count, INT);
    const stmts: Stmt[] = [];
    // (record: room for this element, else -1 tells the caller to grow idx and h and call again; add:
    // more elements than the run the places are for)
    stmts.push({ k: 'if', c: bin('>', bin('*', bin('+', cnt, lit(1), INT), lit(K), INT), { k: 'len', obj: vr(idxName, I32) }, BOOL), then: [{ k: 'return', e: lit(-1) }], else: [] });
    stmts.push({ k: 'decl', name: base, ty: INT, init: bin('*', cnt, lit(K), INT), konst: true });
    stmts.push({ k: 'decl', name: hbase, ty: INT, init: bin('*', cnt, lit(add ? K * K : S), INT), konst: true });
    for (const a of this.acc) stmts.push({ k: 'decl', name: a, ty: NUM, init: lit(0), konst: false });
    this.out = this.top = stmts;
    const at = stmts.length;
    this.block(this.body);
    if (!add) {
      // (a site not read on every path, in a branch or beyond this element's own sites, is -1 unless read)
      const unset: Stmt[] = [];
      for (let k = 0; k < K; k++) if (!this.readTop.has(k)) unset.push({ k: 'assign', target: index(vr(idxName, I32), bin('+', vr(base, INT), lit(k), INT), INT), value: lit(-1) });
      stmts.splice(at, 0, ...unset);
      for (let s = 0; s < S; s++) stmts.push({ k: 'assign', target: index(vr(outName, F64), bin('+', vr(hbase, INT), lit(s), INT)), value: vr(this.acc[s]) });
    } else {
      // the places: the diagonal slots' first, then (k, l) and (l, k) of each upper slot (src/api/elements.ts)
      const addAt = (place: number, s: number) => {
        const target = index(vr(valuesName, F64), index(vr(outName, I32), bin('+', vr(hbase, INT), lit(place), INT), INT));
        stmts.push({ k: 'assign', target, value: bin('+', target, vr(this.acc[s])), op: '+' });
      };
      for (let k = 0; k < K; k++) addAt(k, k);
      for (let t = 0; t < S - K; t++) {
        addAt(K + 2 * t, K + t);
        addAt(K + 2 * t + 1, K + t);
      }
    }
    stmts.push({ k: 'assign', target: vr(count, INT) as Extract<Expr, { k: 'var' }>, value: bin('+', cnt, lit(1), INT), op: '+', inc: true });
    return stmts;
  }

  private idxBase = '';
  private idxName = '';
  /** the statement list of the element's top level */
  private top: Stmt[] = [];

  /** the statements of `list` into this.out */
  private block(list: Stmt[]): void {
    for (const s of list) this.stmt(s);
  }

  private stmt(s: Stmt): void {
    const inc = this.gen.incrementOf(s);
    if (inc) {
      const d = this.lower(inc.e, s.loc);
      for (let t = 0; t < d.h.length; t++) {
        const h = d.h[t];
        if (h) this.out.push({ k: 'assign', target: vr(this.acc[t]) as Extract<Expr, { k: 'var' }>, value: bin(inc.sign > 0 ? '+' : '-', vr(this.acc[t]), h), op: inc.sign > 0 ? '+' : '-' });
      }
      return;
    }
    if (s.k === 'decl' && s.ty.k === 'num' && this.comp.has(s.name)) {
      const d = s.init ? this.lower(s.init, s.loc) : this.passiveD(lit(0));
      this.out.push(s.init ? { ...s, init: d.v } : s);
      this.bindCompanions(s.name, d, true, s.konst && !!s.init);
      return;
    }
    if (s.k === 'assign' && s.target.k === 'var' && this.comp.has(s.target.name)) {
      let d = this.lower(s.value, s.loc);
      // (`t = t * f`: the new companions read the old value and companions, so all are computed first)
      if (readsVar(s.value, s.target.name)) d = this.frozen(d);
      this.out.push({ k: 'assign', target: s.target, value: d.v, loc: s.loc });
      this.bindCompanions(s.target.name, d, false, false);
      return;
    }
    if (s.k === 'if') {
      const saved = this.out;
      const then: Stmt[] = [], els: Stmt[] = [];
      this.out = then;
      this.block(s.then);
      this.out = els;
      this.block(s.else);
      this.out = saved;
      this.out.push({ ...s, then, else: els });
      return;
    }
    if (s.k === 'block') {
      const saved = this.out;
      const inner: Stmt[] = [];
      this.out = inner;
      this.block(s.body);
      this.out = saved;
      this.out.push({ ...s, body: inner });
      return;
    }
    if (s.k === 'decl' || s.k === 'assign' || s.k === 'expr') {
      // (passive: an integer, a flag, a number that never depends on x)
      const rhs = s.k === 'decl' ? s.init : s.k === 'assign' ? s.value : s.e;
      const ty = s.k === 'decl' ? s.ty : s.k === 'assign' ? s.target.ty : null;
      if (rhs && this.gen.check(rhs).sum) this.gen.refuseAt(`'${this.sum}' is read`, s.loc);
      // (an integer or a flag computed from x carries no derivative; anything else would carry one unseen)
      if (rhs && this.isActive(rhs) && ty?.k !== 'int' && ty?.k !== 'bool') this.gen.refuseAt(`a value computed from '${this.x}' that is not a number local of the element`, s.loc);
      this.out.push(s);
      return;
    }
    this.gen.refuseAt(`a ${s.k} statement inside an element`, s.loc);
  }

  /** d with every part not a constant held in a new temporary */
  private frozen(d: D2): D2 {
    const hold = (e: Expr | null, base: string): Expr | null => {
      if (!e || e.k === 'num') return e;
      const n = this.gen.fresh(base);
      this.out.push({ k: 'decl', name: n, ty: NUM, init: e, konst: true });
      return vr(n);
    };
    return { v: hold(d.v, 'next')!, g: d.g.map((e) => hold(e, 'next_d')), h: d.h.map((e) => hold(e, 'next_d')) };
  }

  /** a local's value written: its companions from d (zeros where d has none) */
  private bindCompanions(name: string, d: D2, isDecl: boolean, konst: boolean): void {
    const c = this.comp.get(name)!;
    if (isDecl && konst) {
      // (constants folded into the expressions reading them: a zero drops whole terms)
      const fixed = (e: Expr | null) => e === null || e.k === 'num';
      const bind = (n: string, e: Expr | null): Expr | null => {
        if (!n || fixed(e)) return n ? e : null;
        this.out.push({ k: 'decl', name: n, ty: NUM, init: e!, konst: true });
        return vr(n);
      };
      c.fixedG = c.g.map((n, k) => bind(n, d.g[k]));
      c.fixedH = c.h.map((n, t) => bind(n, d.h[t]));
      return;
    }
    const put = (n: string, e: Expr | null) => {
      if (!n) {
        if (e) this.gen.refuseAt(`internal: '${name}' gains a dependence its analysis missed`);
        return;
      }
      this.out.push(isDecl ? { k: 'decl', name: n, ty: NUM, init: e ?? lit(0), konst } : { k: 'assign', target: vr(n) as Extract<Expr, { k: 'var' }>, value: e ?? lit(0) });
    };
    c.g.forEach((n, k) => put(n, d.g[k]));
    c.h.forEach((n, s) => put(n, d.h[s]));
  }

  /** a temporary holding e (atoms are used as they are) */
  private atom(e: Expr, base = 't'): Expr {
    if (e.k === 'var' || e.k === 'num') return e;
    if (e.k === 'un' && e.op === '-' && e.a.k === 'num') return e;
    const n = this.gen.fresh(base);
    this.out.push({ k: 'decl', name: n, ty: NUM, init: e, konst: true });
    return vr(n);
  }

  private atoms(d: D2, base = 't'): D2 {
    const v = this.atom(d.v, base);
    return { v, g: d.g.map((e) => (e ? this.atom(e, `${base}_d`) : null)), h: d.h.map((e) => (e ? this.atom(e, `${base}_d`) : null)) };
  }

  private passiveD(e: Expr): D2 {
    const S = (this.K * (this.K + 1)) / 2;
    return { v: e, g: new Array(this.K).fill(null), h: new Array(S).fill(null) };
  }

  private isActive(e: Expr): boolean {
    let a = false;
    forEachExpr(e, (c) => {
      if (c.k === 'idx' && c.obj.k === 'var' && c.obj.name === this.x) a = true;
      if (c.k === 'var' && this.comp.has(c.name)) a = true;
    });
    return a;
  }

  /** e's value and derivatives (statements for its temporaries into this.out) */
  private lower(e: Expr, loc?: Loc): D2 {
    if (this.gen.check(e).sum) this.gen.refuseAt(`'${this.sum}' is read`, loc ?? e.loc);
    if (!this.isActive(e)) return this.passiveD(e);
    const K = this.K;
    const S = (K * (K + 1)) / 2;
    switch (e.k) {
      case 'var': {
        const c = this.comp.get(e.name)!;
        return { v: e, g: c.fixedG ?? c.g.map((n) => (n ? vr(n) : null)), h: c.fixedH ?? c.h.map((n) => (n ? vr(n) : null)) };
      }
      case 'idx': {
        if (e.obj.k !== 'var' || e.obj.name !== this.x || this.isActive(e.index)) return this.gen.refuseAt('an index computed from an active value', e.loc);
        const k = this.siteOf(e.index);
        let u = this.readTop.get(k);
        if (!u) {
          const at = index(vr(this.idxName, I32), bin('+', vr(this.idxBase, INT), lit(k), INT), INT);
          // (add: an index other than the recorded run's has no place: -1, the caller records again)
          if (this.gen.mode === 'add') this.out.push({ k: 'if', c: bin('!==', at, e.index, BOOL), then: [{ k: 'return', e: lit(-1) }], else: [] });
          else this.out.push({ k: 'assign', target: at, value: e.index });
          u = this.atom(e, 'u');
          // (x is never written and the index's variables not in the element: one read serves its rest)
          if (this.out === this.top) this.readTop.set(k, u);
        }
        const d = this.passiveD(u);
        d.g[k] = lit(1);
        return d;
      }
      case 'un': {
        const a = this.lower(e.a, loc);
        if (e.op === '+') return a;
        if (e.op !== '-') return this.gen.refuseAt(`the operator ${e.op} on an active value`, e.loc);
        return { v: neg(a.v), g: a.g.map((x) => (x ? neg(x) : null)), h: a.h.map((x) => (x ? neg(x) : null)) };
      }
      case 'bin': {
        if (e.op === '+' || e.op === '-') {
          const a = this.lower(e.a, loc), b = this.lower(e.b, loc);
          const f = (p: Expr | null, q: Expr | null) => (e.op === '+' ? add(p, q) : sub(p, q));
          return { v: bin(e.op, a.v, b.v), g: a.g.map((p, k) => f(p, b.g[k])), h: a.h.map((p, s) => f(p, b.h[s])) };
        }
        if (e.op === '*') {
          const a = this.atoms(this.lower(e.a, loc)), b = this.atoms(this.lower(e.b, loc));
          const h: (Expr | null)[] = [];
          for (let s = 0; s < S; s++) h.push(null);
          for (let k = 0; k < K; k++)
            for (let l = k; l < K; l++) {
              const s = slot(k, l, K);
              let t = add(mul(a.h[s], b.v), mul(a.v, b.h[s]));
              const cross = k === l ? mul(lit(2), mul(a.g[k], b.g[k])) : add(mul(a.g[k], b.g[l]), mul(a.g[l], b.g[k]));
              t = add(t, cross);
              h[s] = t;
            }
          return { v: bin('*', a.v, b.v), g: a.g.map((p, k) => add(mul(p, b.v), mul(a.v, b.g[k]))), h };
        }
        if (e.op === '/') {
          const a = this.atoms(this.lower(e.a, loc)), b = this.atoms(this.lower(e.b, loc));
          const w = this.atom(bin('/', a.v, b.v), 'q');
          // w·b = a: w′ = (a′ − w b′)/b, w″ = (a″ − w b″ − w′b′ᵀ − b′w′ᵀ)/b
          const g = a.g.map((p, k) => div(sub(p, mul(w, b.g[k])), b.v)).map((x) => (x ? this.atom(x, 'q_d') : null));
          const h: (Expr | null)[] = [];
          for (let k = 0; k < K; k++)
            for (let l = k; l < K; l++) {
              const s = slot(k, l, K);
              const cross = k === l ? mul(lit(2), mul(g[k], b.g[k])) : add(mul(g[k], b.g[l]), mul(b.g[k], g[l]));
              h[s] = div(sub(sub(a.h[s], mul(w, b.h[s])), cross), b.v);
            }
          return { v: w, g, h };
        }
        if (e.op === '**') {
          if (this.isActive(e.b)) return this.gen.refuseAt('a power with an active exponent', e.loc);
          return this.power(e.a, e.b, loc);
        }
        return this.gen.refuseAt(`the operator ${e.op} on active values`, e.loc);
      }
      case 'intr': {
        if (e.fn === 'Math.pow' && e.args.length === 2) {
          if (this.isActive(e.args[1])) return this.gen.refuseAt('a power with an active exponent', e.loc);
          return this.power(e.args[0], e.args[1], loc);
        }
        if ((e.fn === 'Math.min' || e.fn === 'Math.max') && e.args.length === 2) {
          // (ties to the first argument, as src/rules/table.ts)
          const a = this.atoms(this.lower(e.args[0], loc)), b = this.atoms(this.lower(e.args[1], loc));
          const c = bin(e.fn === 'Math.min' ? '<=' : '>=', a.v, b.v, BOOL);
          return this.select(c, a, b);
        }
        const rule = SECOND[e.fn];
        if (!rule || e.args.length !== 1) return this.gen.refuseAt(`${e.fn} has no second-order rule here`, e.loc);
        const a = this.atoms(this.lower(e.args[0], loc));
        const r = this.atom({ ...e, args: [a.v] }, 'f');
        const [d1e, d2e] = rule(a.v, r);
        return this.chain(r, this.atom(d1e, 'f_d'), d2e, a);
      }
      case 'cond': {
        // (the test reads values only: it carries no derivative)
        const c = this.atom2(e.c);
        const a = this.atoms(this.lower(e.a, loc)), b = this.atoms(this.lower(e.b, loc));
        return this.select(c, a, b);
      }
      default:
        return this.gen.refuseAt(`a ${e.k} expression on active values`, e.loc);
    }
  }

  /** a boolean test held in a temporary */
  private atom2(c: Expr): Expr {
    if (c.k === 'var' || c.k === 'bool') return c;
    const n = this.gen.fresh('c');
    this.out.push({ k: 'decl', name: n, ty: BOOL, init: c, konst: true });
    return vr(n, BOOL);
  }

  private select(c: Expr, a: D2, b: D2): D2 {
    const pick = (p: Expr | null, q: Expr | null): Expr | null => (p || q ? { k: 'cond', c, a: p ?? lit(0), b: q ?? lit(0), ty: NUM } : null);
    return { v: { k: 'cond', c, a: a.v, b: b.v, ty: NUM }, g: a.g.map((p, k) => pick(p, b.g[k])), h: a.h.map((p, s) => pick(p, b.h[s])) };
  }

  /** a ** c for a passive c: the rules of src/rules/table.ts (0 where c is 0, and the second derivative 0 where c is 1) */
  private power(base: Expr, c: Expr, loc?: Loc): D2 {
    const a = this.atoms(this.lower(base, loc));
    const p = this.atom(c, 'p');
    const r = this.atom(bin('**', a.v, p), 'f');
    if (p.k === 'num') {
      const n = p.v;
      const d1 = n === 0 ? lit(0) : n === 1 ? lit(1) : n === 2 ? mul(lit(2), a.v)! : bin('*', lit(n), bin('**', a.v, lit(n - 1)));
      const d2 = n === 0 || n === 1 ? lit(0) : n === 2 ? lit(2) : bin('*', lit(n * (n - 1)), bin('**', a.v, lit(n - 2)));
      return this.chain(r, this.atom(d1, 'f_d'), d2, a);
    }
    const zero = bin('===', p, lit(0), BOOL);
    const d1: Expr = { k: 'cond', c: zero, a: lit(0), b: bin('*', p, bin('**', a.v, bin('-', p, lit(1)))), ty: NUM };
    const d2: Expr = { k: 'cond', c: bin('||', zero, bin('===', p, lit(1), BOOL), BOOL), a: lit(0), b: bin('*', bin('*', p, bin('-', p, lit(1))), bin('**', a.v, bin('-', p, lit(2)))), ty: NUM };
    return this.chain(r, this.atom(d1, 'f_d'), d2, a);
  }

  /** r = φ(a) with φ′ = d1, φ″ = d2: r′ = d1 a′, r″ = d1 a″ + d2 a′a′ᵀ */
  private chain(r: Expr, d1: Expr, d2e: Expr, a: D2): D2 {
    const K = this.K;
    const d2 = a.g.some((x) => x) && !isLit(d2e, 0) ? this.atom(d2e, 'f_d') : lit(0);
    const h: (Expr | null)[] = [];
    for (let k = 0; k < K; k++)
      for (let l = k; l < K; l++) {
        const s = slot(k, l, K);
        h[s] = add(mul(d1, a.h[s]), mul(d2, mul(a.g[k], a.g[l])));
      }
    return { v: r, g: a.g.map((p) => mul(d1, p)), h };
  }
}

// ---- expressions with structural zeros (null) and ones folded ----
function add(a: Expr | null, b: Expr | null): Expr | null {
  if (!a) return b;
  if (!b) return a;
  return bin('+', a, b);
}
function sub(a: Expr | null, b: Expr | null): Expr | null {
  if (!b) return a;
  if (!a) return neg(b);
  return bin('-', a, b);
}
function mul(a: Expr | null, b: Expr | null): Expr | null {
  if (!a || !b || isLit(a, 0) || isLit(b, 0)) return null;
  if (isLit(a, 1)) return b;
  if (isLit(b, 1)) return a;
  if (a.k === 'num' && b.k === 'num') return lit(a.v * b.v);
  return bin('*', a, b);
}
function div(a: Expr | null, b: Expr): Expr | null {
  if (!a) return null;
  return bin('/', a, b);
}
function neg(a: Expr): Expr {
  if (a.k === 'num') return lit(-a.v);
  if (a.k === 'un' && a.op === '-') return a.a;
  return { k: 'un', op: '-', a, ty: NUM };
}
