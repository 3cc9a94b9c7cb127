// The Efficient Recomputation Algorithm (ERA, Giering & Kaminski; recompute.md §4): an adjoint that
// provides the values its derivative statements need by recomputing them — local slices `B` in front,
// global slices `E` from the routine entry just before an adjoint statement whose inputs were destroyed,
// leading recomputation loops `L` in reversed loops — with `// $ad store y` directives storing a value
// instead (TAF's STORE; keyed by the enclosing loop's index). The extended ERA (§4.8) tracks which
// definition each variable holds, so a value an earlier `E` slice re-established is not recomputed again.
// Baselines of §3 for straight-line code: SA (store all), SM (minimal store), RA (recompute all).
//
// This is a second adjoint generator beside the store-all one in adjoint/, written to the paper's
// algorithm so that its acceptance tests (AT-1 … AT-15) can be checked statement by statement. It takes
// a function's IR as the front end gives it — scalar and array-element assignments, if/else, counted
// loops `for (let k = lo; k < hi; k++)`, calls of other functions of the module — and emits JavaScript
// whose statements carry provenance tags ({kind, forStmt, origStmt}). Arrays are whole locations, or
// element regions `a@k` for literal indices with `regions: true` (improvement 3, AT-15).
import type { Expr, Func, Module, Stmt } from '../ir/types.js';
import { directiveArgs, forEachExpr, forEachStmt } from '../ir/util.js';

export type Strategy = 'SA' | 'SM' | 'RA' | 'ERA' | 'ERA+';

export interface EraOptions {
  strategy?: Strategy;
  /** parameters that are independents (default: every float parameter) */
  wrt?: string[];
  /** variables that are passive (no adjoint): their statements are only sliced */
  passive?: string[];
  /** literal indices make element regions (`a[1]` and `a[2]` are different locations) */
  regions?: boolean;
  /** drop the `repeat` loop that re-slices for lost values (a negative control for AT-6) */
  noLostLoop?: boolean;
  /** count executed recomputed statements, loop bodies, stores and restores in `counts` */
  instrument?: boolean;
}

export type TagKind = 'P' | 'B' | 'E' | 'L' | 'A' | 'store' | 'restore' | 'S' | 'R';

export interface Tag {
  kind: TagKind;
  /** 1-based index of the statement of the block whose adjoint this belongs to */
  forStmt: number;
  /** 1-based index of the original statement this is a copy of (B, E, L, S, R) */
  origStmt?: number;
}

export interface Item {
  tag: Tag;
  text: string;
}

export interface EraResult {
  items: Item[];
  required: string[];
  killed: string[];
  /** `(…primal params, …adjoints of array params, seed) → { scalar adjoints, counts }` */
  js: string;
}

// ---------------------------------------------------------------- locations and sets

type Loc = string; // variable name, `a@3` element region, `tape:y` store slot

const root = (l: Loc) => (l.includes('@') ? l.slice(0, l.indexOf('@')) : l);
function overlaps(a: Loc, b: Loc): boolean {
  return a === b || ((!a.includes('@') || !b.includes('@')) && root(a) === root(b) && !a.startsWith('tape:') && !b.startsWith('tape:'));
}
const union = (...sets: Set<Loc>[]) => {
  const r = new Set<Loc>();
  for (const s of sets) for (const x of s) r.add(x);
  return r;
};
/** locations of `a` that `b` may touch */
const meet = (a: Set<Loc>, b: Set<Loc>) => new Set([...a].filter((x) => [...b].some((y) => overlaps(x, y))));
/** `a` without what `gen` must define (a whole array covers its regions) */
const minus = (a: Set<Loc>, gen: Set<Loc>) => new Set([...a].filter((x) => !gen.has(x) && !gen.has(root(x))));
const sorted = (s: Set<Loc>) => [...s].sort();

// ---------------------------------------------------------------- the statements ERA works on

/** a store directive before statement P: `// $ad store y` (keyed by the enclosing loop's index) */
interface StoreStmt {
  k: 'store';
  name: string;
  key: string | null;
}
type S = (Stmt | StoreStmt) & { id?: number };

interface Ctx {
  mod: Module;
  opts: EraOptions;
  passive: Set<string>;
  ints: Set<string>;
  /** the adjoint of each called function (its own ERA), generated on demand */
  callees: Map<string, { required: Set<Loc>; killed: Set<Loc>; params: string[]; arrays: boolean[] }>;
  ids: Map<Stmt | StoreStmt, number>;
  fresh: number;
}

function isStore(s: S): s is StoreStmt & { id?: number } {
  return s.k === 'store';
}

/** the statements of a body with store directives turned into pseudo-statements in front */
function withStores(body: Stmt[], key: string | null): S[] {
  const out: S[] = [];
  for (const s of body) {
    for (const c of s.comments ?? []) {
      const m = /^\s+([A-Za-z_$][\w$]*)/.exec(directiveArgs(c, 'store') ?? '');
      if (m) out.push({ k: 'store', name: m[1], key });
    }
    if (s.k === 'for') out.push({ ...s, body: withStores(s.body, loopIndex(s)) as Stmt[] });
    else if (s.k === 'if') out.push({ ...s, then: withStores(s.then, key) as Stmt[], else: withStores(s.else, key) as Stmt[] });
    else out.push(s);
  }
  return out;
}

function loopIndex(s: Extract<Stmt, { k: 'for' }>): string {
  const i = s.init[0];
  if (s.init.length === 1 && i.k === 'decl') return i.name;
  if (s.init.length === 1 && i.k === 'assign' && i.target.k === 'var') return i.target.name;
  throw new Error('ERA: a loop must be written for (let k = lo; k < hi; k++)');
}
function loopBounds(s: Extract<Stmt, { k: 'for' }>): { k: string; lo: Expr; hi: Expr } {
  const i = s.init[0];
  const lo = i.k === 'decl' ? i.init : i.k === 'assign' ? i.value : null;
  const c = s.cond;
  if (!lo || !c || c.k !== 'bin' || c.op !== '<' || c.a.k !== 'var' || c.a.name !== loopIndex(s)) throw new Error('ERA: a loop must be written for (let k = lo; k < hi; k++)');
  return { k: loopIndex(s), lo, hi: c.b };
}

// ---------------------------------------------------------------- USE, KILL, GEN per statement

function loc(e: Expr, ctx: Ctx): Loc | null {
  if (e.k === 'var') return e.name;
  if (e.k === 'idx' && e.obj.k === 'var') return ctx.opts.regions && e.index.k === 'num' ? `${e.obj.name}@${e.index.v}` : e.obj.name;
  return null;
}

/** locations an expression reads */
function reads(e: Expr, ctx: Ctx): Set<Loc> {
  const out = new Set<Loc>();
  const visit = (x: Expr): void => {
    if (x.k === 'idx' && x.obj.k === 'var') {
      out.add(loc(x, ctx)!);
      visit(x.index);
      return;
    }
    if (x.k === 'var') out.add(x.name);
    else if (x.k === 'bin') {
      visit(x.a);
      visit(x.b);
    } else if (x.k === 'un') visit(x.a);
    else if (x.k === 'cond') {
      visit(x.c);
      visit(x.a);
      visit(x.b);
    } else if (x.k === 'intr' || x.k === 'call') x.args.forEach(visit);
    else if (x.k === 'idx') {
      visit(x.obj);
      visit(x.index);
    } else if (x.k === 'len') visit(x.obj);
  };
  visit(e);
  return out;
}

interface Effect {
  use: Set<Loc>;
  kill: Set<Loc>;
  gen: Set<Loc>;
}

/** the effect of a simple statement; `rec`: a store directive in its recomputation view */
function effect(s: S, ctx: Ctx, rec: boolean): Effect {
  if (isStore(s)) {
    const key = s.key ? new Set([s.key]) : new Set<Loc>();
    if (rec) return { use: union(new Set([`tape:${s.name}`]), key), kill: new Set([s.name]), gen: new Set([s.name]) };
    return { use: union(new Set([s.name]), key), kill: new Set([`tape:${s.name}`]), gen: new Set() };
  }
  if (s.k === 'decl' || (s.k === 'assign' && s.target.k === 'var')) {
    const name = s.k === 'decl' ? s.name : (s.target as { name: string }).name;
    const value = s.k === 'decl' ? s.init : s.value;
    if (value && value.k === 'call') return callEffect(value, ctx, new Set([name]));
    return { use: value ? reads(value, ctx) : new Set(), kill: new Set([name]), gen: new Set([name]) };
  }
  if (s.k === 'assign' && s.target.k === 'idx') {
    const l = loc(s.target, ctx)!;
    const use = union(reads(s.value, ctx), reads(s.target.index, ctx));
    return { use, kill: new Set([l]), gen: l.includes('@') ? new Set([l]) : new Set() };
  }
  if (s.k === 'expr' && s.e.k === 'call') return callEffect(s.e, ctx, new Set());
  throw new Error(`ERA: statement '${s.k}' is outside the subset it handles`);
}

function callEffect(c: Extract<Expr, { k: 'call' }>, ctx: Ctx, result: Set<Loc>): Effect {
  const g = calleeSummary(c.fn, ctx);
  const use = new Set<Loc>();
  const kill = new Set<Loc>(result);
  c.args.forEach((a, j) => {
    for (const r of reads(a, ctx)) use.add(r);
    if (g.arrays[j] && a.k === 'var' && g.writes[j]) kill.add(a.name);
  });
  return { use, kill, gen: new Set(kill) };
}

function calleeSummary(fn: string, ctx: Ctx): { arrays: boolean[]; writes: boolean[] } {
  const f = ctx.mod.funcs.get(fn);
  if (!f) throw new Error(`ERA: unknown function '${fn}'`);
  const written = new Set<string>();
  forEachStmt(f.body, (s) => {
    if (s.k === 'assign' && s.target.k === 'idx' && s.target.obj.k === 'var') written.add(s.target.obj.name);
  });
  return { arrays: f.params.map((p) => p.ty.k === 'arr'), writes: f.params.map((p) => written.has(p.name)) };
}

// ---------------------------------------------------------------- USE, KILL, GEN, SLICE of sequences

function useOf(seq: S[], ctx: Ctx, rec: boolean): Set<Loc> {
  const out = new Set<Loc>();
  let must = new Set<Loc>();
  for (const s of seq) {
    const u = compoundUse(s, ctx, rec);
    for (const x of minus(u, must)) out.add(x);
    must = union(must, genOf([s], ctx, rec));
  }
  return out;
}

function compoundUse(s: S, ctx: Ctx, rec: boolean): Set<Loc> {
  if (!isStore(s) && s.k === 'if') return union(reads(s.c, ctx), useOf(s.then as S[], ctx, rec), useOf(s.else as S[], ctx, rec));
  if (!isStore(s) && s.k === 'for') {
    const { k, lo, hi } = loopBounds(s);
    const u = useOf(s.body as S[], ctx, rec);
    u.delete(k);
    return union(u, reads(lo, ctx), reads(hi, ctx));
  }
  return effect(s, ctx, rec).use;
}

function killOf(seq: S[], ctx: Ctx, rec: boolean): Set<Loc> {
  const out = new Set<Loc>();
  for (const s of seq) {
    if (!isStore(s) && s.k === 'if') for (const x of union(killOf(s.then as S[], ctx, rec), killOf(s.else as S[], ctx, rec))) out.add(x);
    else if (!isStore(s) && s.k === 'for') {
      out.add(loopIndex(s));
      for (const x of killOf(s.body as S[], ctx, rec)) out.add(x);
    } else for (const x of effect(s, ctx, rec).kill) out.add(x);
  }
  return out;
}

function genOf(seq: S[], ctx: Ctx, rec: boolean): Set<Loc> {
  let out = new Set<Loc>();
  for (const s of seq) {
    if (!isStore(s) && s.k === 'if') {
      const t = genOf(s.then as S[], ctx, rec), e = genOf(s.else as S[], ctx, rec);
      out = union(out, new Set([...t].filter((x) => e.has(x))));
    } else if (!isStore(s) && s.k === 'for') out.add(loopIndex(s));
    else out = union(out, effect(s, ctx, rec).gen);
  }
  return out;
}

/** the statements of `seq` that compute `need` (a backward slice, original order kept) */
function slice(seq: S[], need0: Set<Loc>, ctx: Ctx, rec: boolean): S[] {
  let need = new Set(need0);
  const kept: S[] = [];
  for (let i = seq.length - 1; i >= 0; i--) {
    const s = seq[i];
    if (!isStore(s) && s.k === 'if') {
      const t = slice(s.then as S[], need, ctx, rec), e = slice(s.else as S[], need, ctx, rec);
      if (t.length || e.length) {
        kept.unshift({ ...s, then: t as Stmt[], else: e as Stmt[] });
        const g = new Set([...genOf(t, ctx, rec)].filter((x) => genOf(e, ctx, rec).has(x)));
        need = union(minus(need, g), reads(s.c, ctx), useOf(t, ctx, rec), useOf(e, ctx, rec));
      }
      continue;
    }
    if (!isStore(s) && s.k === 'for') {
      const { k, lo, hi } = loopBounds(s);
      let n = new Set(need);
      let body: S[] = [];
      for (let it = 0; it < 100; it++) {
        body = slice(s.body as S[], n, ctx, rec);
        const u = useOf(body, ctx, rec);
        u.delete(k);
        const next = union(n, u);
        if (next.size === n.size) break;
        n = next;
      }
      if (body.length) {
        kept.unshift({ ...s, body: body as Stmt[] });
        const u = useOf(body, ctx, rec);
        u.delete(k);
        need = union(need, u, reads(lo, ctx), reads(hi, ctx));
        need.delete(k);
      }
      continue;
    }
    const ef = effect(s, ctx, rec);
    if (meet(ef.kill, need).size === 0) continue;
    kept.unshift(s);
    need = union(minus(need, ef.gen), ef.use);
  }
  return kept;
}

// ---------------------------------------------------------------- adjoint statements

const num = (v: number): Expr => ({ k: 'num', v });
const NUMT = { k: 'num' } as const;
const bin = (op: '+' | '-' | '*' | '/', a: Expr, b: Expr): Expr => {
  if (op === '*' && a.k === 'num' && a.v === 1) return b;
  if (op === '*' && b.k === 'num' && b.v === 1) return a;
  return { k: 'bin', op, a, b, ty: NUMT };
};
const call1 = (fn: string, a: Expr): Expr => ({ k: 'intr', fn, args: [a], ty: NUMT });

function isActiveLeaf(e: Expr, ctx: Ctx): boolean {
  const name = e.k === 'var' ? e.name : e.k === 'idx' && e.obj.k === 'var' ? e.obj.name : null;
  return !!name && !ctx.passive.has(name) && !ctx.ints.has(name);
}

/** (leaf, ∂e/∂leaf) for every active leaf occurrence */
function partials(e: Expr, ctx: Ctx): { leaf: Expr; d: Expr }[] {
  const out: { leaf: Expr; d: Expr }[] = [];
  const go = (x: Expr, seed: Expr): void => {
    switch (x.k) {
      case 'num':
        return;
      case 'var':
      case 'idx':
        if (isActiveLeaf(x, ctx)) out.push({ leaf: x, d: seed });
        return;
      case 'un':
        if (x.op === '-') go(x.a, bin('*', num(-1), seed));
        return;
      case 'bin':
        if (x.op === '+') {
          go(x.a, seed);
          go(x.b, seed);
        } else if (x.op === '-') {
          go(x.a, seed);
          go(x.b, bin('*', num(-1), seed));
        } else if (x.op === '*') {
          go(x.a, bin('*', seed, x.b));
          go(x.b, bin('*', seed, x.a));
        } else if (x.op === '/') {
          go(x.a, bin('/', seed, x.b));
          go(x.b, bin('*', seed, bin('/', { k: 'un', op: '-', a: x.a, ty: NUMT }, bin('*', x.b, x.b))));
        } else throw new Error(`ERA: operator '${x.op}' is outside the subset it handles`);
        return;
      case 'intr': {
        const a = x.args[0];
        const d: Record<string, Expr> = {
          'Math.sin': call1('Math.cos', a),
          'Math.cos': bin('*', num(-1), call1('Math.sin', a)),
          'Math.exp': call1('Math.exp', a),
          'Math.log': bin('/', num(1), a),
          'Math.sqrt': bin('/', num(0.5), call1('Math.sqrt', a)),
          'Math.tanh': bin('-', num(1), bin('*', call1('Math.tanh', a), call1('Math.tanh', a))),
        };
        if (!d[x.fn]) throw new Error(`ERA: '${x.fn}' is outside the subset it handles`);
        go(a, bin('*', seed, d[x.fn]));
        return;
      }
      default:
        throw new Error(`ERA: expression '${x.k}' is outside the subset it handles`);
    }
  };
  go(e, num(1));
  return out;
}

const adjName = (n: string) => `${n}b`;
function adjOf(leaf: Expr): string {
  if (leaf.k === 'var') return adjName(leaf.name);
  if (leaf.k === 'idx' && leaf.obj.k === 'var') return `${adjName(leaf.obj.name)}[${printExpr(leaf.index)}]`;
  throw new Error('ERA: unexpected location');
}

interface Adj {
  code: Item[];
  required: Set<Loc>;
  killed: Set<Loc>;
}

/** the adjoint of an elementary assignment (its uses: the values its partials read) */
function elementaryAdjoint(s: S, i: number, ctx: Ctx): Adj | null {
  if (isStore(s)) return null;
  if (s.k === 'expr' || ((s.k === 'decl' || s.k === 'assign') && (s.k === 'decl' ? s.init : s.value)?.k === 'call')) return callAdjoint(s, i, ctx);
  const target: Expr = s.k === 'decl' ? { k: 'var', name: s.name, ty: s.ty } : (s as Extract<Stmt, { k: 'assign' }>).target;
  const value = s.k === 'decl' ? s.init! : (s as Extract<Stmt, { k: 'assign' }>).value;
  if (!isActiveLeaf(target, ctx)) return null;
  const tb = adjOf(target);
  const ps = partials(value, ctx);
  const lines: string[] = [];
  const used = new Set<Loc>();
  let self: string[] = [];
  const same = (a: Expr) => printExpr(a) === printExpr(target);
  for (const p of ps) {
    for (const r of reads(p.d, ctx)) used.add(r);
    if (p.leaf.k === 'idx') for (const r of reads(p.leaf.index, ctx)) used.add(r);
    if (same(p.leaf)) self.push(printExpr(p.d));
    else lines.push(`${adjOf(p.leaf)} += ${printExpr(p.d)} * ${tb};`);
  }
  if (target.k === 'idx') for (const r of reads(target.index, ctx)) used.add(r);
  lines.push(self.length ? `${tb} = (${self.join(' + ')}) * ${tb};` : `${tb} = 0;`);
  self = [];
  return { code: [{ tag: { kind: 'A', forStmt: i }, text: lines.join(' ') }], required: used, killed: new Set() };
}

/** `g(args)`: the callee's own ERA adjoint, called with the adjoints of the arguments */
function callAdjoint(s: S, i: number, ctx: Ctx): Adj {
  const c = (s.k === 'expr' ? s.e : s.k === 'decl' ? s.init : (s as Extract<Stmt, { k: 'assign' }>).value) as Extract<Expr, { k: 'call' }>;
  const g = ctx.callees.get(c.fn) ?? eraCallee(c.fn, ctx);
  const args: string[] = [];
  const required = new Set<Loc>();
  const killed = new Set<Loc>();
  const scalarAdj: string[] = [];
  let scalarIndex = 0;
  c.args.forEach((a, j) => {
    args.push(printExpr(a));
    const p = g.params[j];
    if (g.arrays[j]) {
      if (a.k !== 'var') throw new Error('ERA: array arguments must be variables');
      args.push(adjName(a.name));
    } else {
      if (a.k === 'var' && isActiveLeaf(a, ctx)) scalarAdj.push(`${adjOf(a)} += __R[${scalarIndex}];`);
      scalarIndex++;
    }
    if (g.required.has(p) || [...g.required].some((r) => root(r) === p)) for (const r of reads(a, ctx)) required.add(r);
    if (g.killed.has(p) && a.k === 'var') killed.add(a.name);
  });
  const res = `__r${ctx.fresh++}`;
  const lines = [`const ${res} = ${c.fn}_era(${args.join(', ')});`, ...scalarAdj.map((t) => t.replace('__R', res))];
  return { code: [{ tag: { kind: 'A', forStmt: i }, text: lines.join(' ') }], required, killed };
}

/** ERA of a called function, F₀ empty: its inputs are never stored (the subset's callees do not overwrite them) */
function eraCallee(fn: string, ctx: Ctx): { required: Set<Loc>; killed: Set<Loc>; params: string[]; arrays: boolean[] } {
  const f = ctx.mod.funcs.get(fn)!;
  const body = withStores(f.body, null);
  const a = adEffrec(body, [], ctx, false, numberIds(body, ctx));
  const out = { required: a.required, killed: a.killed, params: f.params.map((p) => p.name), arrays: f.params.map((p) => p.ty.k === 'arr') };
  ctx.callees.set(fn, out);
  return out;
}

function numberIds(body: S[], ctx: Ctx): S[] {
  body.forEach((s, k) => ctx.ids.set(s, k + 1));
  return body;
}

// ---------------------------------------------------------------- AD_EFFREC (§4.2, §4.8, §4.9, §4.10)

type Version = number | 'unknown';

function adEffrec(block: S[], F: S[], ctx: Ctx, nested: boolean, _ids: S[]): Adj {
  const extended = ctx.opts.strategy === 'ERA+';
  let required = new Set<Loc>();
  let killed = new Set<Loc>();
  let A: Item[] = [];
  const ver = new Map<Loc, Version>(); // extended ERA: the definition each location holds now
  const N = block.length;
  for (let i = N - 1; i >= 0; i--) {
    const Si = block[i];
    const Fi = [...F, ...block.slice(0, i)];
    const n = i + 1;
    const Ai = adjointOf(Si, n, Fi, ctx, nested);
    const tapes = Ai ? new Set([...Ai.required].filter((x) => x.startsWith('tape:'))) : new Set<Loc>();
    const want = union(required, tapes);
    if (want.size) {
      // the initial forward sweep stores (forward view); slices inside adjoint code restore
      const Bi = slice([Si], want, ctx, nested);
      if (Bi.length) {
        const kB = killOf(Bi, ctx, nested);
        for (const v of kB) if (!ver.has(v)) ver.set(v, simpleDef(Si, v, ctx) ? ctx.ids.get(Si) ?? 'unknown' : 'unknown');
        required = union(minus(required, genOf(Bi, ctx, nested)), useOf(Bi, ctx, nested));
        killed = union(killed, kB);
        A = [...Bi.map((s) => item(s, isStore(s) ? (nested ? 'restore' : 'store') : 'B', n, ctx, nested)), ...A];
      }
    }
    if (!Ai) continue;
    const need = new Set([...Ai.required].filter((x) => !x.startsWith('tape:')));
    let invalid = meet(need, killed);
    if (extended) invalid = new Set([...invalid].filter((v) => !(ver.has(v) && ver.get(v) !== 'unknown' && ver.get(v) === reachingDef(Fi, v, ctx))));
    let valid = new Set([...need].filter((v) => !invalid.has(v)));
    if (invalid.size) {
      let lost = new Set<Loc>();
      let Ei: S[] = [];
      do {
        invalid = union(invalid, lost);
        valid = new Set([...valid].filter((v) => !lost.has(v)));
        Ei = slice(Fi, invalid, ctx, true);
        lost = ctx.opts.noLostLoop ? new Set() : meet(valid, killOf(Ei, ctx, true));
      } while (lost.size);
      const kE = killOf(Ei, ctx, true);
      killed = union(killed, kE);
      for (const v of kE) ver.set(v, lastDef(Ei, Fi, v, ctx));
      required = union(required, useOf(Ei, ctx, true));
      A = [...A, ...Ei.map((s) => item(s, isStore(s) ? 'restore' : 'E', n, ctx, true))];
    }
    const validEntry = new Set([...valid].filter((v) => !ver.has(v)));
    required = union(required, extended ? validEntry : valid);
    killed = union(killed, Ai.killed);
    for (const v of Ai.killed) ver.set(v, 'unknown');
    A = [...A, ...Ai.code];
  }
  return { code: A, required, killed };
}

/** is `s` a plain definition of v at this level (not inside control flow)? */
function simpleDef(s: S, v: Loc, ctx: Ctx): boolean {
  if (isStore(s)) return false;
  if (s.k === 'if' || s.k === 'for') return false;
  return effect(s, ctx, false).gen.has(v);
}

/** the definition of v that reaches the end of F, when it is a plain top-level one */
function reachingDef(F: S[], v: Loc, ctx: Ctx): Version {
  for (let k = F.length - 1; k >= 0; k--) {
    const s = F[k];
    if (killOf([s], ctx, true).has(v) || [...killOf([s], ctx, true)].some((x) => overlaps(x, v))) return simpleDef(s, v, ctx) ? ctx.ids.get(s) ?? 'unknown' : 'unknown';
  }
  return 'unknown';
}

/** the definition v holds after an E slice of F; a restore gives back the one that reached its store */
function lastDef(E: S[], F: S[], v: Loc, ctx: Ctx): Version {
  for (let k = E.length - 1; k >= 0; k--) {
    const s = E[k];
    if (isStore(s) && s.name === v) return reachingDef(F.slice(0, F.indexOf(s)), v, ctx);
    if ([...killOf([s], ctx, true)].some((x) => overlaps(x, v))) break;
  }
  return reachingDef(E, v, ctx);
}

/** A_i for any statement: elementary, if, loop (§4.9) */
function adjointOf(s: S, n: number, F: S[], ctx: Ctx, nested: boolean): Adj | null {
  if (isStore(s)) return null;
  if (s.k === 'if') {
    const t = adEffrec(s.then as S[], F, ctx, nested, []);
    const e = adEffrec(s.else as S[], F, ctx, nested, []);
    if (!t.code.length && !e.code.length) return null;
    const text = `if (${printExpr(s.c)}) {\n${indent(t.code.map(show).join('\n'))}\n} else {\n${indent(e.code.map(show).join('\n'))}\n}`;
    return { code: [{ tag: { kind: 'A', forStmt: n }, text }], required: union(reads(s.c, ctx), t.required, e.required), killed: union(t.killed, e.killed) };
  }
  if (s.k === 'for') {
    const { k, lo, hi } = loopBounds(s);
    const k2 = `${k}_`;
    const rec: S = { ...s, init: [{ k: 'decl', name: k2, ty: { k: 'int' }, init: lo, konst: false }], cond: { k: 'bin', op: '<', a: { k: 'var', name: k2, ty: { k: 'int' } }, b: { k: 'var', name: k, ty: { k: 'int' } }, ty: { k: 'bool' } }, update: [], body: renameStmts(s.body as S[], k, k2) as Stmt[] };
    ctx.ints.add(k).add(k2);
    const body = adEffrec(s.body as S[], [...F, rec], ctx, true, []);
    if (!body.code.length) return null;
    const Rb = new Set([...body.required].filter((x) => x !== k));
    const carried = new Set([...meet(Rb, union(killOf(s.body as S[], ctx, true), body.killed))].filter((x) => !x.startsWith('tape:')));
    let L: S[] = [];
    let usesL = new Set<Loc>();
    if (carried.size) {
      let invalid = carried;
      let valid = new Set([...Rb].filter((x) => !carried.has(x) && !x.startsWith('tape:')));
      let lost = new Set<Loc>();
      do {
        invalid = union(invalid, lost);
        valid = new Set([...valid].filter((v) => !lost.has(v)));
        L = slice([...F, rec], invalid, ctx, true);
        lost = meet(valid, killOf(L, ctx, true));
      } while (lost.size);
      usesL = useOf(L, ctx, true);
    }
    const lines = [...L.map((x) => item(x, 'L', n, ctx, true)), ...body.code].map(show).join('\n');
    const text = `for (let ${k} = ${printExpr(hi)} - 1; ${k} >= ${printExpr(lo)}; ${k}--) {\n${indent(lines)}\n}`;
    const required = union(new Set([...Rb].filter((x) => !carried.has(x))), usesL, reads(lo, ctx), reads(hi, ctx));
    required.delete(k);
    return { code: [{ tag: { kind: 'A', forStmt: n }, text }], required, killed: union(killOf(L, ctx, true), body.killed, new Set([k, k2])) };
  }
  return elementaryAdjoint(s, n, ctx);
}

function renameStmts(ss: S[], from: string, to: string): S[] {
  const re = (e: Expr): Expr => renameExpr(e, from, to);
  return ss.map((s) => {
    if (isStore(s)) return { ...s, key: s.key === from ? to : s.key };
    switch (s.k) {
      case 'decl':
        return { ...s, init: s.init ? re(s.init) : null };
      case 'assign':
        return { ...s, target: re(s.target) as typeof s.target, value: re(s.value) };
      case 'expr':
        return { ...s, e: re(s.e) };
      case 'if':
        return { ...s, c: re(s.c), then: renameStmts(s.then as S[], from, to) as Stmt[], else: renameStmts(s.else as S[], from, to) as Stmt[] };
      case 'for':
        return { ...s, cond: s.cond ? re(s.cond) : null, init: renameStmts(s.init as S[], from, to) as Stmt[], body: renameStmts(s.body as S[], from, to) as Stmt[] };
      default:
        return s;
    }
  });
}

function renameExpr(e: Expr, from: string, to: string): Expr {
  switch (e.k) {
    case 'var':
      return e.name === from ? { ...e, name: to } : e;
    case 'bin':
      return { ...e, a: renameExpr(e.a, from, to), b: renameExpr(e.b, from, to) };
    case 'un':
      return { ...e, a: renameExpr(e.a, from, to) };
    case 'cond':
      return { ...e, c: renameExpr(e.c, from, to), a: renameExpr(e.a, from, to), b: renameExpr(e.b, from, to) };
    case 'idx':
      return { ...e, obj: renameExpr(e.obj, from, to), index: renameExpr(e.index, from, to) };
    case 'intr':
    case 'call':
      return { ...e, args: e.args.map((a) => renameExpr(a, from, to)) };
    default:
      return e;
  }
}

// ---------------------------------------------------------------- printing

function printExpr(e: Expr): string {
  switch (e.k) {
    case 'num':
      return e.v < 0 ? `(${e.v})` : String(e.v);
    case 'var':
      return e.name;
    case 'idx':
      return `${printExpr(e.obj)}[${printExpr(e.index)}]`;
    case 'bin':
      return `(${printExpr(e.a)} ${e.op} ${printExpr(e.b)})`;
    case 'un':
      return `(${e.op}${printExpr(e.a)})`;
    case 'intr':
    case 'call':
      return `${e.fn}(${e.args.map(printExpr).join(', ')})`;
    case 'len':
      return `${printExpr(e.obj)}.length`;
    case 'bool':
      return String(e.v);
    case 'cond':
      return `(${printExpr(e.c)} ? ${printExpr(e.a)} : ${printExpr(e.b)})`;
    default:
      throw new Error(`ERA: cannot print '${e.k}'`);
  }
}

function printStmt(s: S, rec: boolean, ctx: Ctx): string {
  const count = ctx.opts.instrument ? ' __c.stmts++;' : '';
  if (isStore(s)) {
    const slot = `__T_${s.name}[${s.key ?? 0}]`;
    return rec ? `${s.name} = ${slot};${ctx.opts.instrument ? ' __c.restores++;' : ''}` : `${slot} = ${s.name};${ctx.opts.instrument ? ' __c.stores++;' : ''}`;
  }
  switch (s.k) {
    case 'decl':
      return `${s.name} = ${printExpr(s.init!)};${count}`;
    case 'assign':
      return `${printExpr(s.target)} = ${printExpr(s.value)};${count}`;
    case 'expr':
      return `${printExpr(s.e)};${count}`;
    case 'if':
      return `if (${printExpr(s.c)}) {\n${indent((s.then as S[]).map((x) => printStmt(x, rec, ctx)).join('\n'))}\n} else {\n${indent((s.else as S[]).map((x) => printStmt(x, rec, ctx)).join('\n'))}\n}`;
    case 'for': {
      const { k, lo, hi } = loopBounds(s);
      const body = (s.body as S[]).map((x) => printStmt(x, rec, ctx)).join('\n');
      return `for (${k} = ${printExpr(lo)}; ${k} < ${printExpr(hi)}; ${k}++) {\n${indent((ctx.opts.instrument ? '__c.bodies++;\n' : '') + body)}\n}`;
    }
    default:
      throw new Error(`ERA: cannot print '${s.k}'`);
  }
}

function item(s: S, kind: TagKind, forStmt: number, ctx: Ctx, rec: boolean): Item {
  return { tag: { kind, forStmt, origStmt: ctx.ids.get(s) ?? ctx.ids.get(original(s, ctx)) }, text: printStmt(s, rec, ctx) };
}

/** a sliced compound statement keeps the number of the statement it came from */
function original(s: S, ctx: Ctx): S {
  for (const [o] of ctx.ids) if ((o as { loc?: unknown }).loc !== undefined && (o as { loc?: unknown }).loc === (s as { loc?: unknown }).loc && o.k === s.k) return o as S;
  return s;
}

const indent = (t: string) =>
  t
    .split('\n')
    .map((l) => (l ? `  ${l}` : l))
    .join('\n');
const show = (it: Item) => it.text;

// ---------------------------------------------------------------- baselines (§3) for straight-line code

function baseline(body: S[], strategy: 'SA' | 'SM' | 'RA', ctx: Ctx, F0: S[]): Item[] {
  if (body.some((s) => isStore(s) || s.k === 'if' || s.k === 'for')) throw new Error(`ERA: the ${strategy} baseline handles straight-line code only`);
  const N = body.length;
  const target = (s: S) => [...effect(s, ctx, false).kill][0];
  const adj = body.map((s, i) => elementaryAdjoint(s, i + 1, ctx));
  const out: Item[] = [];
  if (strategy === 'RA') {
    for (let i = N - 1; i >= 0; i--) {
      if (!adj[i]) continue;
      for (const r of F0) out.push(item(r, 'E', i + 1, ctx, true));
      for (let k = 0; k < i; k++) out.push(item(body[k], 'E', i + 1, ctx, true));
      out.push(...adj[i]!.code);
    }
    return out;
  }
  // SA: every overwritten variable saved before its statement; SM: only values adjoint statements read
  const saves = new Set<number>();
  if (strategy === 'SA') for (let i = 0; i < N; i++) saves.add(i);
  else {
    const lastDefBefore = (v: Loc, i: number) => {
      for (let k = i - 1; k >= 0; k--) if (target(body[k]) === v) return k;
      return -1;
    };
    const cur = new Map<Loc, number>();
    for (let i = N - 1; i >= 0; i--) {
      for (const v of adj[i]?.required ?? []) {
        const held = cur.has(v) ? cur.get(v)! : lastDefBefore(v, N);
        const needed = lastDefBefore(v, i);
        if (held !== needed) {
          // restore the value saved before the first redefinition after the needed one
          let j = needed + 1;
          while (target(body[j]) !== v) j++;
          saves.add(j);
          cur.set(v, needed);
        }
      }
    }
  }
  body.forEach((s, i) => {
    if (saves.has(i)) out.push({ tag: { kind: 'S', forStmt: i + 1, origStmt: i + 1 }, text: `__s${i + 1} = ${target(s)};` });
    out.push(item(s, 'P', i + 1, ctx, false));
  });
  for (let i = N - 1; i >= 0; i--) {
    if (saves.has(i)) out.push({ tag: { kind: 'R', forStmt: i + 1, origStmt: i + 1 }, text: `${target(body[i])} = __s${i + 1};` });
    if (adj[i]) out.push(...adj[i]!.code);
  }
  return out;
}

// ---------------------------------------------------------------- entry point

/**
 * The ERA adjoint of `name` in `mod`, as tagged items and as JavaScript source of a function
 * `(…params, …adjoints of array params, seed) → { adjoints: number[] (scalar params in order), counts }`
 * whose dependent is the return value.
 */
export function eraAdjoint(mod: Module, name: string, opts: EraOptions = {}): EraResult {
  const f = mod.funcs.get(name);
  if (!f) throw new Error(`ERA: no function '${name}'`);
  const ctx: Ctx = { mod, opts: { strategy: 'ERA', ...opts }, passive: new Set(opts.passive ?? []), ints: new Set(), callees: new Map(), ids: new Map(), fresh: 0 };
  forEachStmt(f.body, (s) => {
    if (s.k === 'decl' && s.ty.k === 'int') ctx.ints.add(s.name);
  });
  f.params.forEach((p) => {
    if (p.ty.k === 'int' || (opts.wrt && !opts.wrt.includes(p.name) && p.ty.k !== 'arr')) ctx.passive.add(p.name);
  });
  // the dependent: `return e` becomes an assignment to the result, seeded
  const ret = f.body[f.body.length - 1];
  if (!ret || ret.k !== 'return' || !ret.e) throw new Error('ERA: the function must end with `return e`');
  const body: S[] = withStores([...f.body.slice(0, -1), { k: 'assign', target: { k: 'var', name: '__result', ty: NUMT }, value: ret.e, loc: ret.loc }], null);
  numberIds(body, ctx);
  // callees first (their adjoints are functions of their own)
  const calleeFns: string[] = [];
  forEachStmt(f.body, (s) => {
    const visit = (e: Expr) =>
      forEachExpr(e, (x) => {
        if (x.k === 'call' && !calleeFns.includes(x.fn)) calleeFns.push(x.fn);
      });
    if (s.k === 'decl' && s.init) visit(s.init);
    if (s.k === 'assign') visit(s.value);
    if (s.k === 'expr') visit(s.e);
  });
  const strategy = ctx.opts.strategy!;
  let items: Item[];
  let required = new Set<Loc>(), killed = new Set<Loc>();
  // F₀ (footnote 4): inputs the routine overwrites are saved in a prologue and restored by E slices
  const written = killOf(body, ctx, false);
  const F0: S[] = [];
  const prologue: Item[] = [];
  for (const p of f.params)
    if (p.ty.k !== 'arr' && written.has(p.name)) {
      const restore: S = { k: 'assign', target: { k: 'var', name: p.name, ty: NUMT }, value: { k: 'var', name: `__in_${p.name}`, ty: NUMT } };
      F0.push(restore);
      ctx.ids.set(restore as Stmt, -F0.length);
      prologue.push({ tag: { kind: 'P', forStmt: 0 }, text: `__in_${p.name} = ${p.name};` });
    }
  if (strategy === 'SA' || strategy === 'SM' || strategy === 'RA') items = [...(strategy === 'RA' ? prologue : []), ...baseline(body, strategy, ctx, F0)];
  else {
    const a = adEffrec(body, F0, ctx, false, body);
    items = [...prologue, ...a.code];
    required = a.required;
    killed = a.killed;
  }
  const js = emitJs(f, items, ctx, calleeFns);
  return { items, required: sorted(required), killed: sorted(killed), js };
}

function emitJs(f: Func, items: Item[], ctx: Ctx, calleeFns: string[]): string {
  const names = new Set<string>();
  const collect = (t: string) => {
    for (const m of t.matchAll(/\b([A-Za-z_$][\w$]*)\b/g)) names.add(m[1]);
  };
  items.forEach((it) => collect(it.text));
  const params = f.params.map((p) => p.name);
  const arrays = f.params.filter((p) => p.ty.k === 'arr').map((p) => adjName(p.name));
  const keywords = new Set(['if', 'else', 'for', 'let', 'const', 'Math', 'true', 'false', '__c', 'cos', 'sin', 'exp', 'log', 'sqrt', 'tanh', 'length', 'undefined']);
  const locals = [...names].filter((n) => !params.includes(n) && !arrays.includes(n) && !keywords.has(n) && !/^__r\d+$/.test(n) && !n.endsWith('_era') && !/^\d/.test(n) && !ctx.mod.funcs.has(n)).sort();
  const tapes = locals.filter((n) => n.startsWith('__T_'));
  const scalars = f.params.filter((p) => p.ty.k !== 'arr' && !ctx.passive.has(p.name)).map((p) => adjName(p.name));
  const decl = [
    ...locals.filter((n) => !tapes.includes(n)).map((n) => `let ${n} = 0;`),
    ...tapes.map((n) => `const ${n} = [];`),
  ];
  // the adjoint of every local array is created like it (arrays are parameters in this subset)
  const out = [
    `(${[...params, ...arrays, '__seed'].join(', ')}) => {`,
    indent([`const __c = { stmts: 0, bodies: 0, stores: 0, restores: 0 };`, ...decl, ...(locals.includes('__resultb') ? [] : ['let __resultb = 0;']), `__resultb = __seed;`, ...items.map(show), `return { adjoints: [${scalars.join(', ')}], counts: __c };`].join('\n')),
    `}`,
  ].join('\n');
  // callees: their own ERA adjoints, returning the adjoints of their scalar parameters
  const helpers = calleeFns.map((fn) => {
    const sub = eraCalleeJs(ctx.mod, fn, ctx.opts);
    return `const ${fn}_era = ${sub};`;
  });
  const prims = [...ctx.mod.funcs.values()].map((g) => `const ${g.name} = ${primalJs(g)};`);
  return `(() => {\n${indent([...prims, ...helpers, `return ${out};`].join('\n'))}\n})()`;
}

/** a callee's ERA adjoint: `(…params, …adjoints of array params) → scalar adjoints`, seeded by its array adjoints */
function eraCalleeJs(mod: Module, fn: string, opts: EraOptions): string {
  const g = mod.funcs.get(fn)!;
  const ctx: Ctx = { mod, opts: { strategy: opts.strategy ?? 'ERA', regions: opts.regions }, passive: new Set(), ints: new Set(), callees: new Map(), ids: new Map(), fresh: 100 };
  const body = withStores(g.body, null);
  numberIds(body, ctx);
  const a = adEffrec(body, [], ctx, false, body);
  const names = new Set<string>();
  for (const it of a.code) for (const m of it.text.matchAll(/\b([A-Za-z_$][\w$]*)\b/g)) names.add(m[1]);
  const params = g.params.map((p) => p.name);
  const arrays = g.params.filter((p) => p.ty.k === 'arr').map((p) => adjName(p.name));
  const skip = new Set(['if', 'else', 'for', 'let', 'const', 'Math', 'cos', 'sin', 'exp', 'log', 'sqrt', 'tanh', 'length', '__c']);
  const locals = [...names].filter((n) => !params.includes(n) && !arrays.includes(n) && !skip.has(n) && !/^\d/.test(n) && !/^__r\d+$/.test(n)).sort();
  const scalars = g.params.filter((p) => p.ty.k !== 'arr').map((p) => adjName(p.name));
  return `(${[...params, ...arrays].join(', ')}) => {\n${indent([`const __c = { stmts: 0, bodies: 0, stores: 0, restores: 0 };`, ...locals.map((n) => `let ${n} = 0;`), ...a.code.map(show), `return [${scalars.join(', ')}];`].join('\n'))}\n}`;
}

/** the primal of a function of the subset as JavaScript (for callees run by B and E slices) */
function primalJs(g: Func): string {
  const ctx: Ctx = { mod: { funcs: new Map() } as unknown as Module, opts: {}, passive: new Set(), ints: new Set(), callees: new Map(), ids: new Map(), fresh: 0 };
  const locals = new Set<string>();
  forEachStmt(g.body, (s) => {
    if (s.k === 'decl') locals.add(s.name);
  });
  const lines = g.body.map((s) => (s.k === 'return' ? `return ${s.e ? printExpr(s.e) : ''};` : printStmt(s as S, false, ctx)));
  return `(${g.params.map((p) => p.name).join(', ')}) => {\n${indent([...[...locals].map((n) => `let ${n} = 0;`), ...lines].join('\n'))}\n}`;
}

/**
 * The data-flow primitives of §4.1 on statements `from … to` (1-based, inclusive) of a function's body,
 * for tests and inspection: USE, KILL, GEN, SLICE (as statement numbers) and USE of an adjoint statement.
 */
export function eraPrimitives(mod: Module, name: string, opts: EraOptions = {}) {
  const f = mod.funcs.get(name);
  if (!f) throw new Error(`ERA: no function '${name}'`);
  const ctx: Ctx = { mod, opts: { strategy: 'ERA', ...opts }, passive: new Set(opts.passive ?? []), ints: new Set(), callees: new Map(), ids: new Map(), fresh: 0 };
  const body = withStores(f.body, null);
  numberIds(body, ctx);
  const part = (from: number, to: number) => body.slice(from - 1, to);
  return {
    use: (from: number, to: number) => sorted(useOf(part(from, to), ctx, false)),
    kill: (from: number, to: number) => sorted(killOf(part(from, to), ctx, false)),
    gen: (from: number, to: number) => sorted(genOf(part(from, to), ctx, false)),
    slice: (from: number, to: number, vars: string[]) => slice(part(from, to), new Set(vars), ctx, false).map((s) => ctx.ids.get(s) ?? ctx.ids.get(original(s, ctx))),
    adjointUse: (i: number) => sorted(adjointOf(body[i - 1], i, body.slice(0, i - 1), ctx, false)?.required ?? new Set()),
  };
}
