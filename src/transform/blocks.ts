// Block Jacobians (issue 18): a function whose top-level counted loops run over independent items
// (observations, points, residual blocks) has a Jacobian made of small dense blocks, one per
// iteration: the outputs the iteration writes by the inputs it reads. This module recognises that form
// and writes `<head>_blocks(…params, colAt, rowAt, counts, rows, cols, vals)`, which runs the loops and,
// for each iteration, records the rows it wrote (rows, -1 for one it did not write), the columns it
// read (cols, -1 for one it did not read) and its block, row-major (vals). The block is computed by
// vector reverse mode when the iteration writes fewer outputs than it reads inputs (one forward sweep,
// then one backward sweep carrying an adjoint per output, each in scalar locals), else by vector
// tangent mode (a tangent per input read). src/api/blocks.ts assembles the sparse matrix.
//
// An iteration is independent when it writes output elements at indices computed from the counter and
// passive values, reads the independents at such indices (`x[i]`, a row `cams[obs[2 * i]]`), and keeps
// nothing for the next iteration. Its helper calls are written out (their locals renamed) and every
// local of the iteration gets one name per assignment (a value per name, branches joined by a name
// assigned in both), so the backward sweep reads every value the forward sweep computed: no tape.
// Anything else is refused with a TransformError naming the construct; the caller then falls back to
// the colouring method (src/api/sparse.ts): never a wrong answer.
import type { Expr, Func, Loc, Module, Param, Stmt, Ty } from '../ir/types.js';
import { BOOL, INT, NUM, bin, forEachChild, forEachExpr, idx as index, stmtExprs } from '../ir/util.js';
import { adjointOf, linearize, LinError, Names, tangentOf, type LinContext, type LinNode } from './linearize.js';
import { TransformError } from './tangent.js';

/** the most inputs or outputs a block may have (every pair is a scalar local) */
export const MAX_BLOCK_SIDE = 64;

/** one loop's blocks: outputs × inputs, and how they are computed */
export interface BlockLoop {
  outputs: number;
  inputs: number;
  mode: 'reverse' | 'tangent';
  loc?: Loc;
}

export interface BlockCode {
  func: Func;
  /** the loops in the order they run (each writes `counts[k]` blocks) */
  loops: BlockLoop[];
  /** the module constants it reads */
  globals: string[];
}

const I32: Ty = { k: 'arr', elem: INT, typed: true, ro: false, ctor: 'Int32Array' };
const I32S: Ty = { k: 'arr', elem: I32, typed: false, ro: false };
const F64: Ty = { k: 'arr', elem: NUM, typed: true, ro: false };
/** a row of an independent (number[]) */
const ROW: Ty = { k: 'arr', elem: NUM, typed: false, ro: false };

const refuse = (what: string, loc?: Loc): never => {
  throw new TransformError(`not a loop over independent items: ${what}`, loc ? { loc } : undefined);
};

const vr = (name: string, ty: Ty = NUM): Expr & { k: 'var' } => ({ k: 'var', name, ty });
const lit = (n: number): Expr => ({ k: 'num', v: n });
const plus = (a: Expr, b: Expr): Expr => (b.k === 'num' && b.v === 0 ? a : bin('+', a, b, INT));

/** what a name of the iteration stands for: a number (or flag), an array (a row of an independent, or passive data), or the elements of an array literal */
type Val = { k: 'scalar'; e: Expr } | { k: 'ref'; e: Expr; wrt: number | null; row: Expr | null; ty: Ty } | { k: 'tuple'; elems: Val[] };

/** an element of an independent an iteration reads: `x[col]`, or `x[row][col]` */
interface Site {
  wrt: number;
  row: Expr | null;
  col: Expr;
  local: string;
  /** read first inside a branch: its local is declared before the iteration's code and its column starts at -1 */
  hoisted: boolean;
}

/** an output element an iteration writes: `out[at]` */
interface OutSite {
  out: number;
  at: Expr;
  /** written inside a branch: its row starts at -1 */
  inBranch: boolean;
}

/** the iteration with helpers written out and one name per value */
type Node =
  | { k: 'def'; name: string; ty: Ty; e: Expr; hoisted: boolean }
  // a row of an independent, bound once where the iteration first takes it outside a branch (`const cam = cams[obs[2 * i]]`)
  | RowNode
  | { k: 'site'; site: number }
  | { k: 'out'; out: number; e: Expr }
  | { k: 'if'; c: Expr; then: Node[]; else: Node[] };

interface RowNode {
  k: 'row';
  wrt: number;
  row: Expr;
  /** the user's name for it (a constant, a helper's parameter), given on first use; `used`: some element is read after it */
  name: string | null;
  used: boolean;
}

interface Outputs {
  /** the output arrays, in row order: parameters named by `of`, or the array the function returns */
  names: string[];
  /** which of them are `number[]`s, which a write past the end grows (a Float64Array drops it) */
  grows: boolean[];
}

/**
 * `<head>_blocks` for `head` (of `mod`, whose other functions are the helpers), the Jacobian of the
 * `of` arrays (parameters; ['return']: the array the head returns) with respect to the number arrays
 * `wrt`. Throws TransformError where the form does not hold.
 */
export function blockJacobianFunc(mod: Module, head: Func, wrt: readonly string[], of: readonly string[], name: string): BlockCode {
  const wrtParams = wrt.map((w) => {
    const p = head.params.find((q) => q.name === w);
    if (!p || !isNumberArray(p.ty, 2)) return refuse(`the independent '${w}' is not an array of numbers or of rows of numbers`, head.loc);
    return p;
  });
  const outputs = outputsOf(head, of);
  // (an output also independent: the elements no iteration writes keep their values, rows of the identity no block holds)
  for (const o of outputs.names) if (wrt.includes(o)) refuse(`the output '${o}' is also an independent`, head.loc);
  // (reserved: the names the block code keeps as written, parameters, top-level locals and counters; the iterations' own
  // locals are given names again, the user's where free)
  const taken = new Set(head.params.map((p) => p.name));
  for (const s of head.body) {
    if (s.k === 'decl') taken.add(s.name);
    if (s.k === 'for') for (const t of s.init) if (t.k === 'decl') taken.add(t.name);
  }
  for (const f of mod.funcs.keys()) taken.add(f);
  for (const g of mod.globals.keys()) taken.add(g);
  taken.add(name);
  const names = new Names(taken);
  const buf = { colAt: names.fresh('colAt'), rowAt: names.fresh('rowAt'), counts: names.fresh('counts'), rows: names.fresh('rows'), cols: names.fresh('cols'), vals: names.fresh('vals') };
  const cur = { r: names.fresh('rc'), c: names.fresh('cc'), v: names.fresh('vc') };
  const loops: BlockLoop[] = [];
  const body: Stmt[] = [];
  for (const c of [cur.r, cur.c, cur.v]) body.push({ k: 'decl', name: c, ty: INT, init: lit(0), konst: false });
  // (each independent's column offsets: one per row of a nested array, or its start)
  const atNames = wrtParams.map((p, k) => {
    const n = names.fresh(`at_${p.name}`);
    body.push({ k: 'decl', name: n, ty: I32, init: index(vr(buf.colAt, I32S), lit(k), I32), konst: true });
    return n;
  });
  const topLocals = new Set<string>();
  const env: Env = { head, mod, wrt: wrtParams.map((p) => p.name), outputs: outputs.names, grows: outputs.grows, topLocals, globals: new Set(), names };
  const last = head.body.length - 1;
  head.body.forEach((s, k) => {
    if (s.k === 'for') {
      const counter = countedLoop(s);
      for (const t of [...s.init, ...s.update]) for (const x of stmtExprs(t)) passiveExpr(x, env, s.loc);
      if (s.cond) passiveExpr(s.cond, env, s.loc);
      const it = new Iteration(env, counter);
      it.run(s.body, s.loc);
      const code = new BlockWriter(it, env, buf, cur, atNames, loops.length).write();
      loops.push({ ...code.loop, loc: s.loc });
      body.push({ ...s, body: code.body });
      return;
    }
    if (s.k === 'return' && k === last && (s.e === null || (of.includes('return') && s.e.k === 'var' && outputs.names.includes(s.e.name)))) return;
    body.push(passiveTop(s, env));
  });
  if (loops.length === 0) refuse('no counted loop at the top of the function', head.loc);
  body.push({ k: 'return', e: vr(cur.r, INT) });
  const params: Param[] = [
    ...head.params.map((p) => ({ name: p.name, ty: p.ty })),
    { name: buf.colAt, ty: I32S },
    { name: buf.rowAt, ty: I32 },
    { name: buf.counts, ty: I32 },
    { name: buf.rows, ty: I32 },
    { name: buf.cols, ty: I32 },
    { name: buf.vals, ty: F64 },
  ];
  const comments = [
    `// The Jacobian of '${head.name}' by blocks (src/transform/blocks.ts): per iteration of each loop over independent items, the rows it wrote`,
    `// (in ${buf.rows}), the columns it read (in ${buf.cols}, -1 where not read) and its block, row-major (in ${buf.vals}); ${buf.counts}[k] counts loop k's blocks. Returns`,
    `// the rows recorded, or -1 when the buffers have no room for the next block.`,
  ];
  return { func: { name, params, ret: INT, exported: true, loc: head.loc, comments, body }, loops, globals: [...env.globals] };
}

function isNumberArray(t: Ty, depth: number): boolean {
  if (t.k !== 'arr' || t.ctor) return false;
  if (t.elem.k === 'num') return true;
  return depth > 1 && !t.typed && isNumberArray(t.elem, depth - 1);
}

/** the output arrays: number-array parameters named by `of`, or (`of` = ['return']) a fresh array the head returns */
function outputsOf(head: Func, of: readonly string[]): Outputs {
  if (of.length === 1 && of[0] === 'return') {
    const last = head.body[head.body.length - 1];
    if (!last || last.k !== 'return' || last.e?.k !== 'var') return refuse('the function does not end by returning an array it made', last?.loc ?? head.loc);
    const r = last.e.name;
    const made = head.body.find((s) => s.k === 'decl' && s.name === r);
    if (!made || made.k !== 'decl' || made.init?.k !== 'alloc' || !isNumberArray(made.ty, 1)) return refuse(`'${r}' is not a new array of numbers made at the top of the function`, last.loc);
    return { names: [r], grows: [made.ty.k === 'arr' && !made.ty.typed] };
  }
  if (head.ret.k !== 'void') return refuse('the rows are arguments the function writes, but it returns a value', head.loc);
  for (const o of of) {
    const p = head.params.find((q) => q.name === o);
    if (!p || !isNumberArray(p.ty, 1)) return refuse(`the output '${o}' is not an array of numbers`, head.loc);
  }
  return { names: [...of], grows: of.map((o) => { const t = head.params.find((q) => q.name === o)!.ty; return t.k === 'arr' && !t.typed; }) };
}

interface Env {
  head: Func;
  mod: Module;
  wrt: string[];
  outputs: string[];
  /** per output, whether a write past its end grows it (Outputs.grows) */
  grows: boolean[];
  /** passive locals declared at the top of the head */
  topLocals: Set<string>;
  /** the module constants the iterations read */
  globals: Set<string>;
  names: Names;
}

/** the counter of `for (let i = a; i < b; i += c)` (a loop over items: bounds and step from passive values, the counter not assigned in the body) */
function countedLoop(s: Extract<Stmt, { k: 'for' }>): string {
  const init = s.init[0];
  if (s.init.length !== 1 || init.k !== 'decl' || init.ty.k !== 'int') return refuse('a loop that is not counted (`for (let i = a; i < b; i++)`)', s.loc);
  const i = init.name;
  const upd = s.update[0];
  const cond = s.cond;
  if (!cond || cond.k !== 'bin' || !['<', '<=', '>', '>='].includes(cond.op) || cond.a.k !== 'var' || cond.a.name !== i) return refuse('a loop that is not counted (its test is not `i < n`)', s.loc);
  if (s.update.length !== 1 || upd.k !== 'assign' || upd.target.k !== 'var' || upd.target.name !== i) return refuse('a loop that is not counted (its update is not `i++` or `i += c`)', s.loc);
  forEachStmtDeep(s.body, (t) => {
    if (t.k === 'assign' && t.target.k === 'var' && t.target.name === i) refuse(`the loop's body assigns its counter '${i}'`, t.loc);
  });
  return i;
}

function forEachStmtDeep(list: Stmt[], f: (s: Stmt) => void): void {
  for (const s of list) {
    f(s);
    if (s.k === 'if') {
      forEachStmtDeep(s.then, f);
      forEachStmtDeep(s.else, f);
    } else if (s.k === 'for' || s.k === 'while' || s.k === 'do' || s.k === 'block') forEachStmtDeep(s.body, f);
  }
}

/** a statement at the top of the head outside the loops: it must compute passive values only (sizes, offsets) */
function passiveTop(s: Stmt, env: Env): Stmt {
  const check = (e: Expr) => passiveExpr(e, env, s.loc);
  if (s.k === 'decl' && (s.ty.k === 'int' || s.ty.k === 'num' || s.ty.k === 'bool')) {
    if (s.init) check(s.init);
    env.topLocals.add(s.name);
    return s;
  }
  if (s.k === 'decl' && s.init?.k === 'alloc' && env.outputs.includes(s.name)) {
    check(s.init.len);
    if (s.init.fill) check(s.init.fill);
    return s;
  }
  if (s.k === 'assign' && s.target.k === 'var' && env.topLocals.has(s.target.name) && !s.op) {
    check(s.value);
    return s;
  }
  return refuse(`a ${s.k === 'decl' ? 'declaration' : s.k === 'assign' ? 'assignment' : `${s.k} statement`} outside the loops that is not a passive number`, s.loc);
}

/** refuses an expression outside the iterations that calls a function or reads an independent or an output other than its length */
function passiveExpr(e: Expr, env: Env, loc?: Loc): void {
  if (e.k === 'call') refuse(`a call of '${e.fn}' outside the loops`, e.loc ?? loc);
  if (e.k === 'len' && e.obj.k === 'var') return;
  if (e.k === 'var' && (env.wrt.includes(e.name) || env.outputs.includes(e.name))) refuse(`'${e.name}' read outside the loops other than for its length`, e.loc ?? loc);
  if (e.k === 'global') {
    if (!env.mod.globals.get(e.name)?.init) refuse(`'${e.name}', data bound at run time`, e.loc ?? loc);
    env.globals.add(e.name);
  }
  forEachChild(e, (c) => passiveExpr(c, env, loc));
}

/** the key of an index expression: equal keys, equal values (every name in it holds one value) */
function keyOf(e: Expr | null): string {
  return JSON.stringify(e, (k, v) => (k === 'loc' || k === 'origin' || k === 'ty' || k === 'raw' ? undefined : v));
}

/** one iteration of a loop over items, flattened: helpers written out, one name per value */
class Iteration {
  sites: Site[] = [];
  private siteKeys = new Map<string, number>();
  outs: OutSite[] = [];
  private outKeys = new Map<string, number>();
  nodes: Node[] = [];
  /** the rows bound, by independent and row index */
  private rows = new Map<string, RowNode>();
  private target: Node[] = this.nodes;
  private depth = 0;
  private scope = new Map<string, Val>();
  /** the declared types of the scope's numbers and flags */
  private types = new Map<string, Ty>();
  /** names the current scope may assign (declared in the iteration or the helper being written out) */
  private assignable = new Set<string>();
  /** sites read and outputs written on every path to here */
  private read = new Set<number>();
  private written = new Set<number>();
  private calls = 0;

  constructor(
    private env: Env,
    private counter: string,
  ) {}

  /** each input's place in the block's columns: by independent, row and index (a literal index in its order), so that blocks read in order come out in the matrix's order */
  slots: number[] = [];

  run(body: Stmt[], loc?: Loc): void {
    this.block(body);
    // (a row is bound only where an element is read after it: reads before it, in a branch, index in place)
    const seen = new Set<RowNode>();
    const walk = (nodes: Node[]) => {
      for (const n of nodes) {
        if (n.k === 'row') seen.add(n);
        else if (n.k === 'site') {
          const s = this.sites[n.site];
          const node = s.row ? this.rowNode(s.wrt, s.row) : undefined;
          if (node && seen.has(node)) node.used = true;
        } else if (n.k === 'if') {
          walk(n.then);
          walk(n.else);
        }
      }
    };
    walk(this.nodes);
    const order = this.sites.map((_, k) => k);
    const col = (s: Site) => (s.col.k === 'num' ? s.col.v : Infinity);
    order.sort((a, b) => {
      const x = this.sites[a], y = this.sites[b];
      return x.wrt - y.wrt || keyOf(x.row).localeCompare(keyOf(y.row)) || col(x) - col(y) || a - b;
    });
    order.forEach((k, at) => (this.slots[k] = at));
    if (this.outs.length === 0) refuse('an iteration that writes no output', loc);
    if (this.sites.length > MAX_BLOCK_SIDE || this.outs.length > MAX_BLOCK_SIDE) refuse(`an iteration with ${this.outs.length} outputs and ${this.sites.length} inputs (at most ${MAX_BLOCK_SIDE} each)`, loc);
  }

  private block(list: Stmt[]): void {
    for (const s of list) this.stmt(s);
  }

  private define(base: string, ty: Ty, e: Expr): Expr {
    if (e.k === 'var' || e.k === 'num' || e.k === 'bool') return e;
    const name = this.env.names.fresh(base);
    this.target.push({ k: 'def', name, ty, e, hoisted: this.depth > 0 });
    return vr(name, ty);
  }

  private declare(name: string, v: Val, loc?: Loc, ty?: Ty): void {
    if (this.scope.has(name)) refuse(`'${name}' declared twice in one iteration`, loc);
    this.scope.set(name, v);
    if (ty) this.types.set(name, ty);
    this.assignable.add(name);
  }

  private stmt(s: Stmt): void {
    switch (s.k) {
      case 'decl': {
        if (s.ty.k === 'num' || s.ty.k === 'int' || s.ty.k === 'bool') {
          const init = s.init ? this.scalar(s.init) : s.ty.k === 'bool' ? ({ k: 'bool', v: false } as Expr) : lit(0);
          this.declare(s.name, { k: 'scalar', e: this.define(s.name, s.ty, init) }, s.loc, s.ty);
          return;
        }
        if ((s.ty.k === 'arr' || s.ty.k === 'tuple') && s.init && s.konst) {
          const v = this.value(s.init);
          if (v.k === 'scalar') refuse(`'${s.name}' is not an array`, s.loc);
          this.nameRow(v, s.name);
          this.declare(s.name, v, s.loc);
          this.assignable.delete(s.name);
          return;
        }
        return refuse(`the local '${s.name}' (only numbers, flags and constant arrays read in place)`, s.loc);
      }
      case 'assign': {
        const t = s.target;
        if (t.k === 'var') {
          if (!this.assignable.has(t.name)) return refuse(`'${t.name}' is assigned in an iteration but declared outside it (a value carried to the next iteration)`, s.loc);
          const old = this.scope.get(t.name)!;
          if (old.k !== 'scalar') return refuse(`the array '${t.name}' is assigned`, s.loc);
          const value = s.op ? bin(s.op, old.e, this.scalar(s.value), t.ty) : this.scalar(s.value);
          this.scope.set(t.name, { k: 'scalar', e: this.define(t.name, t.ty, value) });
          return;
        }
        if (t.k === 'idx' && t.obj.k === 'var' && this.env.outputs.includes(t.obj.name) && !this.scope.has(t.obj.name)) {
          if (s.op) return refuse(`'${t.obj.name}' is read (an output updated with ${s.op}=)`, s.loc);
          const at = this.scalar(t.index);
          if (this.isActiveIndex(at)) refuse('an output index computed from an independent', s.loc);
          const out = this.env.outputs.indexOf(t.obj.name);
          const key = `${out}:${keyOf(at)}`;
          let k = this.outKeys.get(key);
          if (k === undefined) {
            k = this.outs.length;
            this.outKeys.set(key, k);
            this.outs.push({ out, at, inBranch: this.depth > 0 });
          }
          if (this.written.has(k)) refuse(`an output element written twice in one iteration`, s.loc);
          if (this.depth > 0) this.outs[k].inBranch = true;
          this.written.add(k);
          this.target.push({ k: 'out', out: k, e: this.scalar(s.value) });
          return;
        }
        return refuse('a write into an array other than an output, or a field', s.loc);
      }
      case 'if': {
        const c = this.define('c', BOOL, this.scalar(s.c));
        const before = new Map(this.scope);
        const readBefore = this.read, writtenBefore = this.written;
        const branch = (list: Stmt[]) => {
          const saved = this.target;
          const out: Node[] = [];
          this.target = out;
          this.scope = new Map(before);
          this.read = new Set(readBefore);
          this.written = new Set(writtenBefore);
          this.depth++;
          this.block(list);
          this.depth--;
          this.target = saved;
          return { out, scope: this.scope, read: this.read, written: this.written };
        };
        const a = branch(s.then), b = branch(s.else);
        this.scope = new Map(before);
        for (const [n, v] of before) {
          const va = a.scope.get(n)!, vb = b.scope.get(n)!;
          if (va === v && vb === v) continue;
          if (va.k !== 'scalar' || vb.k !== 'scalar' || v.k !== 'scalar') return refuse(`'${n}' is given another array in a branch`, s.loc);
          // (one name for the value after the branches, assigned at the end of each)
          const ty = this.types.get(n) ?? NUM;
          const m = this.env.names.fresh(n);
          a.out.push({ k: 'def', name: m, ty, e: va.e, hoisted: true });
          b.out.push({ k: 'def', name: m, ty, e: vb.e, hoisted: true });
          this.scope.set(n, { k: 'scalar', e: vr(m, ty) });
        }
        this.read = new Set([...a.read].filter((x) => b.read.has(x)));
        this.written = new Set([...a.written, ...b.written]);
        this.target.push({ k: 'if', c, then: a.out, else: b.out });
        return;
      }
      case 'block':
        for (const t of s.body) if (t.k === 'decl' && this.scope.has(t.name)) refuse(`'${t.name}' declared twice in one iteration`, t.loc);
        this.block(s.body);
        return;
      default:
        return refuse(`a ${s.k} statement inside an iteration`, s.loc);
    }
  }

  /** does this (passive-typed) index read an active value? */
  private isActiveIndex(e: Expr): boolean {
    let found = false;
    forEachExpr(e, (c) => {
      if (c.k === 'var' && this.siteLocals.has(c.name)) found = true;
    });
    return found;
  }

  private siteLocals = new Set<string>();

  private scalar(e: Expr): Expr {
    const v = this.value(e);
    if (v.k !== 'scalar') return refuse('an array where a number is needed', e.loc);
    return v.e;
  }

  private value(e: Expr): Val {
    switch (e.k) {
      case 'num':
      case 'bool':
      case 'str':
        return { k: 'scalar', e };
      case 'global': {
        // (module constants are printed with the block code, src/api/blocks.ts; the runtime API's scope data is bound at run time only)
        const g = this.env.mod.globals.get(e.name);
        if (!g?.init) return refuse(`'${e.name}', data bound at run time`, e.loc);
        this.env.globals.add(e.name);
        return e.ty.k === 'arr' ? { k: 'ref', e, wrt: null, row: null, ty: e.ty } : { k: 'scalar', e };
      }
      case 'var':
        return this.variable(e);
      case 'idx': {
        const obj = this.value(e.obj);
        if (obj.k === 'scalar') return refuse('an index into a number', e.loc);
        if (obj.k === 'tuple') {
          if (e.index.k !== 'num' || !(e.index.v in obj.elems)) return refuse('an array literal indexed by a computed index', e.loc);
          return obj.elems[e.index.v];
        }
        const at = this.scalar(e.index);
        if (obj.wrt === null) return e.ty.k === 'arr' ? { k: 'ref', e: index(obj.e, at, e.ty), wrt: null, row: null, ty: e.ty } : { k: 'scalar', e: index(obj.e, at, e.ty) };
        if (this.isActiveIndex(at)) return refuse('an index computed from an independent', e.loc);
        if (e.ty.k === 'arr') {
          const key = `${obj.wrt}:${keyOf(at)}`;
          if (this.depth === 0 && !this.rows.has(key)) {
            const node: RowNode = { k: 'row', wrt: obj.wrt, row: at, name: null, used: false };
            this.rows.set(key, node);
            this.target.push(node);
          }
          return { k: 'ref', e: index(obj.e, at, e.ty), wrt: obj.wrt, row: at, ty: e.ty };
        }
        return { k: 'scalar', e: this.site(obj.wrt, obj.row, at) };
      }
      case 'len': {
        const obj = this.value(e.obj);
        if (obj.k === 'tuple') return { k: 'scalar', e: lit(obj.elems.length) };
        if (obj.k === 'scalar') return refuse('the length of a number', e.loc);
        return { k: 'scalar', e: { k: 'len', obj: obj.e } };
      }
      case 'arrlit':
        return {
          k: 'tuple',
          elems: e.elems.map((x) => {
            const v = this.value(x);
            return v.k === 'scalar' ? { k: 'scalar', e: this.define('e', e.ty.k === 'arr' ? e.ty.elem : NUM, v.e) } : v;
          }),
        };
      case 'call':
        return this.inline(e);
      case 'bin':
        return { k: 'scalar', e: { ...e, a: this.scalar(e.a), b: this.scalar(e.b) } };
      case 'un':
        return { k: 'scalar', e: { ...e, a: this.scalar(e.a) } };
      case 'intr':
        return { k: 'scalar', e: { ...e, args: e.args.map((a) => this.scalar(a)) } };
      case 'cond': {
        // (both sides are written out before the test: a side must be safe to evaluate where it is not taken)
        for (const side of [e.a, e.b])
          forEachExpr(side, (c) => {
            if (c.k === 'call') refuse(`a call of '${c.fn}' inside a conditional expression`, c.loc ?? e.loc);
            if (c.k === 'idx' && c.obj.k === 'idx') refuse('a read of a row inside a conditional expression', c.loc ?? e.loc);
          });
        return { k: 'scalar', e: { ...e, c: this.scalar(e.c), a: this.scalar(e.a), b: this.scalar(e.b) } };
      }
      default:
        return refuse(`a ${e.k} expression inside an iteration`, e.loc);
    }
  }

  private variable(e: Extract<Expr, { k: 'var' }>): Val {
    const bound = this.scope.get(e.name);
    if (bound) return bound;
    if (this.calls > 0) return refuse(`'${e.name}' is not a parameter or local of the helper`, e.loc);
    if (e.name === this.counter || this.env.topLocals.has(e.name)) return { k: 'scalar', e };
    const p = this.env.head.params.find((q) => q.name === e.name);
    if (!p) return refuse(`'${e.name}' read inside an iteration`, e.loc);
    if (this.env.outputs.includes(p.name)) return refuse(`the output '${p.name}' is read`, e.loc);
    const w = this.env.wrt.indexOf(p.name);
    if (w >= 0) return { k: 'ref', e, wrt: w, row: null, ty: p.ty };
    if (p.ty.k === 'arr') return { k: 'ref', e, wrt: null, row: null, ty: p.ty };
    if (p.ty.k === 'num' || p.ty.k === 'int' || p.ty.k === 'bool') return { k: 'scalar', e };
    return refuse(`the parameter '${p.name}' (an object) read inside an iteration`, e.loc);
  }

  /** the row node of a row of an independent, if bound */
  rowNode(wrt: number, row: Expr): RowNode | undefined {
    return this.rows.get(`${wrt}:${keyOf(row)}`);
  }

  /** a row of an independent bound to a name (a constant, a helper's parameter): the row node takes it if it has none */
  private nameRow(v: Val, name: string): void {
    if (v.k !== 'ref' || v.wrt === null || !v.row) return;
    const node = this.rowNode(v.wrt, v.row);
    if (node && node.name === null) node.name = this.env.names.fresh(name);
  }

  /** the local holding the independent's element read here */
  private site(wrt: number, row: Expr | null, col: Expr): Expr {
    const key = `${wrt}:${keyOf(row)}:${keyOf(col)}`;
    let k = this.siteKeys.get(key);
    if (k === undefined) {
      k = this.sites.length;
      this.siteKeys.set(key, k);
      // (named after the array or row and the index: `cam_3`, `w_i`)
      const node = row ? this.rowNode(wrt, row) : undefined;
      if (node && node.name === null) node.name = this.env.names.fresh(`${this.env.wrt[wrt]}Row`);
      const base = node?.name ?? this.env.wrt[wrt];
      const local = this.env.names.fresh(`${base}_${col.k === 'num' && Number.isInteger(col.v) && col.v >= 0 ? col.v : col.k === 'var' && /^[A-Za-z]\w*$/.test(col.name) ? col.name : k}`);
      this.siteLocals.add(local);
      this.sites.push({ wrt, row, col, local, hoisted: this.depth > 0 });
    }
    if (!this.read.has(k)) {
      this.read.add(k);
      if (this.depth > 0) this.sites[k].hoisted = true;
      this.target.push({ k: 'site', site: k });
    }
    return vr(this.sites[k].local);
  }

  /** a helper's body written out: its parameters bound to the arguments' values, its locals renamed, its result the value of its last statement `return e` */
  private inline(e: Extract<Expr, { k: 'call' }>): Val {
    const g = this.env.mod.funcs.get(e.fn);
    if (!g || g.custom || g.external || this.env.mod.failed.has(e.fn) || e.origin) return refuse(`a call of '${e.fn}' (only helpers of the module are written out)`, e.loc);
    if (this.calls > 16) return refuse(`calls nested too deep (recursion through '${e.fn}')`, e.loc);
    if (g.params.some((p) => p.def || p.rest || p.optional) || e.args.length !== g.params.length) return refuse(`a call of '${e.fn}' with defaulted, optional or rest parameters`, e.loc);
    const last = g.body[g.body.length - 1];
    if (!last || last.k !== 'return' || !last.e) return refuse(`'${e.fn}' does not end by returning its value`, g.loc);
    const args = e.args.map((a, i) => {
      const v = this.value(a);
      this.nameRow(v, g.params[i].name);
      return v.k === 'scalar' ? { k: 'scalar' as const, e: this.define(g.params[i].name, g.params[i].ty, v.e) } : v;
    });
    const saved = { scope: this.scope, assignable: this.assignable, types: this.types };
    this.scope = new Map(g.params.map((p, i) => [p.name, args[i]]));
    this.types = new Map(g.params.map((p) => [p.name, p.ty]));
    this.assignable = new Set(g.params.filter((p, i) => args[i].k === 'scalar').map((p) => p.name));
    this.calls++;
    try {
      for (const s of g.body.slice(0, -1)) {
        if (s.k === 'return') refuse(`'${e.fn}' returns before its end`, s.loc);
        this.stmt(s);
      }
      return this.value(last.e);
    } finally {
      this.calls--;
      this.scope = saved.scope;
      this.assignable = saved.assignable;
      this.types = saved.types;
    }
  }
}

/** the code of one loop's body: the iteration's forward code, its block by reverse or tangent mode, and the records */
class BlockWriter {
  private K: number;
  private J: number;
  private mode: 'reverse' | 'tangent';
  /** the inputs' locals */
  private inputs: Set<string>;
  /** active names: numbers depending on an input read */
  private active = new Set<string>();
  /** declarations before the iteration's code (values first assigned in a branch) */
  private hoisted: Stmt[] = [];
  private hoistedNames = new Set<string>();
  /** tangent mode: each active name's tangents, one per input (null: structurally zero) */
  private tangents = new Map<string, (Expr | null)[]>();
  /** reverse mode: each active name's adjoints, one per output (made on first use) */
  private adjoints = new Map<string, (string | null)[]>();
  private adjointDecls: Stmt[] = [];
  /** the rows bound so far (RowNode): their names and first columns */
  private bound = new Map<RowNode, { name: string; col: string }>();

  constructor(
    private it: Iteration,
    private env: Env,
    private buf: Record<'colAt' | 'rowAt' | 'counts' | 'rows' | 'cols' | 'vals', string>,
    private cur: Record<'r' | 'c' | 'v', string>,
    private atNames: string[],
    private loopIndex: number,
  ) {
    this.J = it.outs.length;
    this.K = it.sites.length;
    this.mode = this.J < this.K ? 'reverse' : 'tangent';
    for (const s of it.sites) this.active.add(s.local);
    this.inputs = new Set(it.sites.map((s) => s.local));
    markActive(it.nodes, this.active);
  }

  write(): { body: Stmt[]; loop: BlockLoop } {
    const { J, K, buf, cur } = this;
    const room = (c: string, b: string, size: number): Expr => bin('>', bin('+', vr(c, INT), lit(size), INT), { k: 'len', obj: vr(b, I32) }, BOOL);
    const body: Stmt[] = [];
    body.push({ k: 'if', c: bin('||', bin('||', room(cur.r, buf.rows, J), room(cur.c, buf.cols, K), BOOL), room(cur.v, buf.vals, J * K), BOOL), then: [{ k: 'return', e: lit(-1) }], else: [] });
    const code: Stmt[] = [];
    const reverse: Rev[] = [];
    this.forward(this.it.nodes, code, reverse, false);
    const starts: Stmt[] = [];
    this.it.sites.forEach((s, k) => {
      if (s.hoisted) starts.push({ k: 'assign', target: this.cell(buf.cols, cur.c, this.it.slots[k], I32), value: lit(-1) });
    });
    this.it.outs.forEach((o, j) => {
      if (!o.inBranch) return;
      starts.push({ k: 'assign', target: this.cell(buf.rows, cur.r, j, I32), value: lit(-1) });
      if (this.mode === 'tangent') for (let k = 0; k < K; k++) starts.push({ k: 'assign', target: this.cell(buf.vals, cur.v, j * K + k), value: lit(0) });
    });
    body.push(...this.hoisted, ...starts, ...code);
    if (this.mode === 'reverse') {
      const back: Stmt[] = [];
      this.backward(reverse, back);
      body.push(...this.adjointDecls, ...back);
      const bySlot = this.it.sites.map((_, k) => k).sort((a, b) => this.it.slots[a] - this.it.slots[b]);
      for (let j = 0; j < J; j++)
        for (const k of bySlot) {
          const a = this.adjoints.get(this.it.sites[k].local)?.[j];
          body.push({ k: 'assign', target: this.cell(buf.vals, cur.v, j * K + this.it.slots[k]), value: a ? vr(a) : lit(0) });
        }
    }
    const step = (c: string, n: number): Stmt => ({ k: 'assign', target: vr(c, INT), value: bin('+', vr(c, INT), lit(n), INT), op: '+', inc: true });
    body.push(step(cur.r, J), step(cur.c, K), step(cur.v, J * K));
    body.push({ k: 'assign', target: index(vr(buf.counts, I32), lit(this.loopIndex), INT) as Extract<Expr, { k: 'idx' }>, value: bin('+', index(vr(buf.counts, I32), lit(this.loopIndex), INT), lit(1), INT), op: '+', inc: true });
    const comment = `// block ${J} × ${K} by ${this.mode === 'reverse' ? `vector reverse mode (${J} adjoint${J > 1 ? 's' : ''} a value)` : `vector tangent mode (${K} tangent${K > 1 ? 's' : ''} a value)`}`;
    body[0] = { ...body[0], comments: [comment] };
    return { body, loop: { outputs: J, inputs: K, mode: this.mode } };
  }

  private cell(b: string, c: string, k: number, ty: Ty = F64): Extract<Expr, { k: 'idx' }> {
    return index(vr(b, ty), plus(vr(c, INT), lit(k)), ty.k === 'arr' ? ty.elem : NUM) as Extract<Expr, { k: 'idx' }>;
  }

  private hoist(name: string, ty: Ty): void {
    if (this.hoistedNames.has(name)) return;
    this.hoistedNames.add(name);
    this.hoisted.push({ k: 'decl', name, ty, init: ty.k === 'bool' ? { k: 'bool', v: false } : lit(0), konst: false });
  }

  /** `name = e`, declared here, or before the iteration's code when hoisted */
  private bind(list: Stmt[], name: string, ty: Ty, e: Expr, hoisted: boolean): void {
    if (hoisted) {
      this.hoist(name, ty);
      list.push({ k: 'assign', target: vr(name, ty), value: e });
    } else list.push({ k: 'decl', name, ty, init: e, konst: true });
  }

  private ctx(pre: Stmt[]): LinContext {
    return { varied: (e) => mentions(e, this.active), pre, names: this.env.names };
  }

  /** the linearization of e, its temporaries into list (hoisted inside branches: the backward sweep reads them) */
  private lin(e: Expr, list: Stmt[], inBranch: boolean): LinNode {
    const pre: Stmt[] = [];
    let node: LinNode;
    try {
      node = linearize(e, this.ctx(pre));
    } catch (err) {
      if (err instanceof LinError) return refuse(err.message, err.node.loc ?? e.loc);
      throw err;
    }
    for (const s of pre) {
      if (s.k === 'decl' && inBranch && s.init) this.bind(list, s.name, s.ty, s.init, true);
      else list.push(s);
    }
    return node;
  }

  private forward(nodes: Node[], list: Stmt[], rev: Rev[], inBranch: boolean): void {
    for (const n of nodes) {
      switch (n.k) {
        case 'row': {
          if (!n.used) break;
          // (the row and its first column, once)
          const name = n.name ?? (n.name = this.env.names.fresh(`${this.env.wrt[n.wrt]}Row`));
          const col = this.env.names.fresh(`${name}_at`);
          const ty = this.rowTy(n.wrt);
          list.push({ k: 'decl', name, ty, init: index(vr(this.env.wrt[n.wrt], { k: 'arr', elem: ty, typed: false, ro: false }), n.row, ty), konst: true });
          list.push({ k: 'decl', name: col, ty: INT, init: index(vr(this.atNames[n.wrt], I32), n.row, INT), konst: true });
          this.bound.set(n, { name, col });
          break;
        }
        case 'site': {
          const s = this.it.sites[n.site];
          this.readSite(s, n.site, list);
          break;
        }
        case 'def': {
          if (!this.active.has(n.name) || n.ty.k !== 'num') {
            this.bind(list, n.name, n.ty, n.e, n.hoisted);
            break;
          }
          const node = this.lin(n.e, list, inBranch);
          this.bind(list, n.name, NUM, node.prim, n.hoisted);
          if (this.mode === 'reverse') rev.push({ k: 'def', name: n.name, node });
          else this.tangentDef(n.name, node, list, n.hoisted);
          break;
        }
        case 'out': {
          const o = this.it.outs[n.out];
          const at = this.env.names.fresh('at');
          list.push({ k: 'decl', name: at, ty: NUM, init: o.at, konst: true });
          const arr = this.env.outputs[o.out];
          const inRange = bin('&&', bin('&&', bin('>=', vr(at), lit(0), BOOL), bin('<', vr(at), { k: 'len', obj: vr(arr, F64) }, BOOL), BOOL), bin('===', bin('|', vr(at), lit(0), INT), vr(at), BOOL), BOOL);
          // (outside the array: -1, no row, as a Float64Array drops the write; past the end of a number[], which the
          // write grows, -2: the caller falls back (src/api/blocks.ts), the rows being counted after the call)
          const outside: Expr = this.env.grows[o.out] ? { k: 'cond', c: bin('>=', vr(at), { k: 'len', obj: vr(arr, F64) }, BOOL), a: lit(-2), b: lit(-1), ty: INT } : lit(-1);
          const row: Expr = { k: 'cond', c: inRange, a: plus(index(vr(this.buf.rowAt, I32), lit(o.out), INT), vr(at, INT)), b: outside, ty: INT };
          list.push({ k: 'assign', target: this.cell(this.buf.rows, this.cur.r, n.out, I32), value: row });
          if (!mentions(n.e, this.active)) {
            if (this.mode === 'tangent') for (let k = 0; k < this.K; k++) list.push({ k: 'assign', target: this.cell(this.buf.vals, this.cur.v, n.out * this.K + k), value: lit(0) });
            break;
          }
          const node = this.lin(n.e, list, inBranch);
          if (this.mode === 'reverse') rev.push({ k: 'out', out: n.out, node });
          else {
            const ts = this.tangentsOf(node, list);
            for (let k = 0; k < this.K; k++) list.push({ k: 'assign', target: this.cell(this.buf.vals, this.cur.v, n.out * this.K + this.it.slots[k]), value: ts[k] ?? lit(0) });
          }
          break;
        }
        case 'if': {
          const a: Stmt[] = [], b: Stmt[] = [];
          const ra: Rev[] = [], rb: Rev[] = [];
          this.forward(n.then, a, ra, true);
          this.forward(n.else, b, rb, true);
          list.push({ k: 'if', c: n.c, then: a, else: b });
          rev.push({ k: 'if', c: n.c, then: ra, else: rb });
          break;
        }
      }
    }
  }

  /** the input's value into its local, its column recorded (-1 outside its array) */
  /** the type of a row of independent w (number[] or Float64Array) */
  private rowTy(w: number): Ty {
    const t = this.env.head.params.find((p) => p.name === this.env.wrt[w])!.ty;
    return t.k === 'arr' && t.elem.k === 'arr' ? t.elem : ROW;
  }

  private readSite(s: Site, k: number, list: Stmt[]): void {
    const node = s.row ? this.it.rowNode(s.wrt, s.row) : undefined;
    const b = node && this.bound.get(node);
    const ty = this.rowTy(s.wrt);
    const x = vr(this.env.wrt[s.wrt], { k: 'arr', elem: ty, typed: false, ro: false });
    const arr = b ? vr(b.name, ty) : s.row ? index(x, s.row, ty) : x;
    const base = b ? vr(b.col, INT) : index(vr(this.atNames[s.wrt], I32), s.row ?? lit(0), INT);
    const cols = this.cell(this.buf.cols, this.cur.c, this.it.slots[k], I32);
    if (s.col.k === 'num' && Number.isInteger(s.col.v) && s.col.v >= 0) {
      // (a literal index: `cam[3]`, its column recorded where the row has it)
      this.bind(list, s.local, NUM, index(arr, s.col), s.hoisted);
      list.push({ k: 'assign', target: cols, value: { k: 'cond', c: bin('<', s.col, { k: 'len', obj: arr }, BOOL), a: plus(base, s.col), b: lit(-1), ty: INT } });
      return;
    }
    // (a computed index once, in a local; a name as it is)
    const at = s.col.k === 'var' ? s.col.name : this.env.names.fresh('at');
    if (s.col.k !== 'var') list.push({ k: 'decl', name: at, ty: NUM, init: s.col, konst: true });
    this.bind(list, s.local, NUM, index(arr, vr(at)), s.hoisted);
    const inRange = bin('&&', bin('&&', bin('>=', vr(at), lit(0), BOOL), bin('<', vr(at), { k: 'len', obj: arr }, BOOL), BOOL), bin('===', bin('|', vr(at), lit(0), INT), vr(at), BOOL), BOOL);
    list.push({ k: 'assign', target: cols, value: { k: 'cond', c: inRange, a: plus(base, vr(at, INT)), b: lit(-1), ty: INT } });
  }

  /** tangent mode: the tangents of node along each input, simple ones inline, others bound */
  private tangentsOf(node: LinNode, list: Stmt[]): (Expr | null)[] {
    const ts: (Expr | null)[] = [];
    for (let k = 0; k < this.K; k++) {
      const dref = (leaf: Expr): Expr | null => {
        if (leaf.k !== 'var') return refuse('internal: a leaf that is not a local', leaf.loc);
        const site = this.it.sites[k];
        if (leaf.name === site.local) return lit(1);
        if (this.inputs.has(leaf.name)) return null;
        return this.tangents.get(leaf.name)?.[k] ?? null;
      };
      ts.push(tangentOf(node, dref, { ctx: this.ctx(list), bindTangents: true }));
    }
    return ts;
  }


  private tangentDef(name: string, node: LinNode, list: Stmt[], hoisted: boolean): void {
    const ts = this.tangentsOf(node, list);
    const prev = this.tangents.get(name);
    const names = ts.map((t, k) => {
      if (hoisted) {
        // (a value assigned in branches: its tangents are locals of the iteration, zero where a branch leaves them)
        const n = prev?.[k] ?? (t ? vr(this.env.names.fresh(`${name}_d${k}`)) : null);
        if (n && n.k === 'var') {
          this.hoist(n.name, NUM);
          list.push({ k: 'assign', target: n, value: t ?? lit(0) });
        }
        return n;
      }
      if (!t) return null;
      if (t.k === 'num' || t.k === 'var') return t;
      const n = this.env.names.fresh(`${name}_d${k}`);
      list.push({ k: 'decl', name: n, ty: NUM, init: t, konst: true });
      return vr(n);
    });
    if (hoisted && prev) {
      // (a later assignment may add tangents: the earlier one left them zero)
      this.tangents.set(name, prev.map((p, k) => p ?? names[k]));
    } else this.tangents.set(name, names);
  }

  /** the adjoint of `name` for output j, made on first use */
  private adjoint(name: string, j: number): string {
    let a = this.adjoints.get(name);
    if (!a) this.adjoints.set(name, (a = new Array<string | null>(this.J).fill(null)));
    if (!a[j]) {
      a[j] = this.env.names.fresh(`${name}_b${j}`);
      this.adjointDecls.push({ k: 'decl', name: a[j]!, ty: NUM, init: lit(0), konst: false });
    }
    return a[j]!;
  }

  private backward(rev: Rev[], list: Stmt[]): void {
    for (let i = rev.length - 1; i >= 0; i--) {
      const r = rev[i];
      if (r.k === 'if') {
        const a: Stmt[] = [], b: Stmt[] = [];
        this.backward(r.then, a);
        this.backward(r.else, b);
        if (a.length || b.length) list.push({ k: 'if', c: r.c, then: a, else: b });
        continue;
      }
      for (let j = 0; j < this.J; j++) {
        let seed: Expr;
        if (r.k === 'out') {
          if (r.out !== j) continue;
          seed = lit(1);
        } else {
          const a = this.adjoints.get(r.name)?.[j];
          if (!a) continue;
          seed = vr(a);
        }
        this.propagate(r.node, seed, j, list);
      }
    }
  }

  private propagate(node: LinNode, seed: Expr, j: number, list: Stmt[]): void {
    const ctx = this.ctx(list);
    const emit = (leaf: Expr, inc: Expr) => {
      if (leaf.k !== 'var') return refuse('internal: a leaf that is not a local', leaf.loc);
      const a = this.adjoint(leaf.name, j);
      ctx.pre.push({ k: 'assign', target: vr(a), value: bin('+', vr(a), inc), op: '+' });
    };
    const branch = (c: Expr, a: () => void, b: () => void) => {
      const saved = ctx.pre;
      const ta: Stmt[] = [], tb: Stmt[] = [];
      ctx.pre = ta;
      a();
      ctx.pre = tb;
      b();
      ctx.pre = saved;
      saved.push({ k: 'if', c, then: ta, else: tb });
    };
    adjointOf(node, seed, ctx, emit, branch);
  }
}

type Rev = { k: 'def'; name: string; node: LinNode } | { k: 'out'; out: number; node: LinNode } | { k: 'if'; c: Expr; then: Rev[]; else: Rev[] };

/** the numbers depending on an input read (a name assigned in both branches is active if either value is) */
function markActive(nodes: Node[], active: Set<string>): void {
  for (const n of nodes) {
    if (n.k === 'def' && n.ty.k === 'num' && mentions(n.e, active)) active.add(n.name);
    if (n.k === 'if') {
      markActive(n.then, active);
      markActive(n.else, active);
    }
  }
}

function mentions(e: Expr, names: Set<string>): boolean {
  let found = false;
  forEachExpr(e, (c) => {
    if (c.k === 'var' && names.has(c.name)) found = true;
  });
  return found;
}

