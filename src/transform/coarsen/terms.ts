// Symbolic terms for coarsening (issue 19): a hash-consed expression DAG. Equal terms are the same
// object (structural hashing), so identity comparison is term equality and a Map keyed by term is a
// CSE table.
//
// Kinds: numbers; symbols (inputs, trip counts of loops, Σ/Π indices); n-ary sums and products, their
// arguments in a canonical order (numbers first, then by creation id); powers; division; the Math
// intrinsics of the rule table (src/rules/table.ts, by the table's names, e.g. `Math.sin`) and `%`;
// comparisons and data-dependent selects (`c ? a : b`, needed by the table's partials at their
// non-differentiable points); n-ary φ terms with their kind (branch / loop-entry / loop-exit) and
// site (the branch condition or loop they belong to, usable at run time to pick an argument); Σ and Π
// with symbolic inclusive bounds; indexed array terms `a[i]`.
//
// The constructors here only build: they flatten nested sums/products and order arguments, nothing
// else (no folding, no cancellation) — simplification is src/transform/coarsen/simplify.ts. Also here:
// the size measure (DAG node count), a numeric evaluator (the oracle every rewrite is tested against),
// substitution, free symbols and a printer.
//
// The hash-consing table is process-wide and never shrinks (terms are small; a compilation makes a
// few thousand). Not yet here: vectors/matrices as terms (the report's P3 matrix example), array SSA (arrays are
// whole named values read by `at`), records of φ decisions beyond a site name.

export type PhiKind = 'branch' | 'entry' | 'exit';
export type SymRole = 'var' | 'trip' | 'index';
export type CmpOp = '<' | '<=' | '>' | '>=' | '===' | '!==';

interface Base {
  /** creation order: canonical ordering of commutative arguments */
  readonly id: number;
}

export type Term =
  | (Base & { readonly k: 'num'; readonly v: number })
  | (Base & { readonly k: 'sym'; readonly name: string; readonly role: SymRole })
  | (Base & { readonly k: 'add'; readonly args: readonly Term[] })
  | (Base & { readonly k: 'mul'; readonly args: readonly Term[] })
  | (Base & { readonly k: 'pow'; readonly base: Term; readonly exp: Term })
  | (Base & { readonly k: 'div'; readonly a: Term; readonly b: Term })
  /** an intrinsic by its rule-table name (`Math.exp`, `Math.atan2`, `%`) */
  | (Base & { readonly k: 'fn'; readonly fn: string; readonly args: readonly Term[] })
  | (Base & { readonly k: 'cmp'; readonly op: CmpOp; readonly a: Term; readonly b: Term })
  /** `c ? a : b` on data (not a φ: it is decided by the values, not by recorded control flow) */
  | (Base & { readonly k: 'sel'; readonly c: Term; readonly a: Term; readonly b: Term })
  /** φ: picks its argument by the control decision recorded at `site` */
  | (Base & { readonly k: 'phi'; readonly kind: PhiKind; readonly site: string; readonly args: readonly Term[] })
  /** Σ / Π over index symbol `i` from `lo` to `hi` inclusive (empty when hi < lo) */
  | (Base & { readonly k: 'sum' | 'prod'; readonly i: Term & { k: 'sym' }; readonly lo: Term; readonly hi: Term; readonly body: Term })
  /** element `index` of the array named `arr` */
  | (Base & { readonly k: 'at'; readonly arr: string; readonly index: Term });

type Sym = Extract<Term, { k: 'sym' }>;

const table = new Map<string, Term>();
let nextId = 0;

function intern<T extends Term>(key: string, make: (id: number) => T): T {
  const hit = table.get(key);
  if (hit) return hit as T;
  const t = make(nextId++);
  table.set(key, t);
  return t;
}

const numKey = (v: number) => (Object.is(v, -0) ? '-0' : String(v));

export function num(v: number): Term {
  return intern(`n${numKey(v)}`, (id) => ({ k: 'num', v, id }));
}
export function sym(name: string, role: SymRole = 'var'): Sym {
  return intern(`s${role}:${name}`, (id) => ({ k: 'sym', name, role, id }));
}

/** canonical order of commutative arguments: numbers first, then creation order */
function order(a: Term, b: Term): number {
  const na = a.k === 'num' ? 0 : 1, nb = b.k === 'num' ? 0 : 1;
  return na - nb || a.id - b.id;
}

function nary(k: 'add' | 'mul', args: readonly Term[]): Term {
  const flat: Term[] = [];
  for (const a of args) if (a.k === k) flat.push(...a.args);
  else flat.push(a);
  if (flat.length === 0) return num(k === 'add' ? 0 : 1);
  if (flat.length === 1) return flat[0];
  flat.sort(order);
  return intern(`${k}(${flat.map((a) => a.id).join(',')})`, (id) => ({ k, args: flat, id }) as Term);
}

export const add = (...args: Term[]): Term => nary('add', args);
export const mul = (...args: Term[]): Term => nary('mul', args);
export const neg = (a: Term): Term => mul(num(-1), a);
export const sub = (a: Term, b: Term): Term => add(a, neg(b));
export function pow(base: Term, exp: Term): Term {
  return intern(`pow(${base.id},${exp.id})`, (id) => ({ k: 'pow', base, exp, id }));
}
export function div(a: Term, b: Term): Term {
  return intern(`div(${a.id},${b.id})`, (id) => ({ k: 'div', a, b, id }));
}
export function fn(name: string, ...args: Term[]): Term {
  return intern(`fn:${name}(${args.map((a) => a.id).join(',')})`, (id) => ({ k: 'fn', fn: name, args, id }));
}
export function cmp(op: CmpOp, a: Term, b: Term): Term {
  return intern(`cmp${op}(${a.id},${b.id})`, (id) => ({ k: 'cmp', op, a, b, id }));
}
export function sel(c: Term, a: Term, b: Term): Term {
  return intern(`sel(${c.id},${a.id},${b.id})`, (id) => ({ k: 'sel', c, a, b, id }));
}
export function phi(kind: PhiKind, site: string, args: readonly Term[]): Term {
  if (args.length < 1) throw new Error('φ needs arguments');
  return intern(`phi:${kind}:${site}(${args.map((a) => a.id).join(',')})`, (id) => ({ k: 'phi', kind, site, args: [...args], id }));
}
function bigop(k: 'sum' | 'prod', i: Sym, lo: Term, hi: Term, body: Term): Term {
  if (i.role !== 'index') throw new Error(`Σ/Π bind an index symbol, not ${i.name}`);
  return intern(`${k}(${i.id},${lo.id},${hi.id},${body.id})`, (id) => ({ k, i, lo, hi, body, id }) as Term);
}
export const sum = (i: Sym, lo: Term, hi: Term, body: Term): Term => bigop('sum', i, lo, hi, body);
export const prod = (i: Sym, lo: Term, hi: Term, body: Term): Term => bigop('prod', i, lo, hi, body);
export function at(arr: string, index: Term): Term {
  return intern(`at:${arr}(${index.id})`, (id) => ({ k: 'at', arr, index, id }));
}

/** the trip-count symbol of a loop site (its value is recorded by the primal at run time) */
export const tripCount = (site: string): Sym => sym(`#${site}`, 'trip');

/** Rebuild a node with new children (the same node when they are the same). */
export function rebuild(t: Term, kids: Term[]): Term {
  switch (t.k) {
    case 'num':
    case 'sym':
      return t;
    case 'add':
      return add(...kids);
    case 'mul':
      return mul(...kids);
    case 'pow':
      return pow(kids[0], kids[1]);
    case 'div':
      return div(kids[0], kids[1]);
    case 'fn':
      return fn(t.fn, ...kids);
    case 'cmp':
      return cmp(t.op, kids[0], kids[1]);
    case 'sel':
      return sel(kids[0], kids[1], kids[2]);
    case 'phi':
      return phi(t.kind, t.site, kids);
    case 'sum':
    case 'prod':
      return bigop(t.k, kids[0] as Sym, kids[1], kids[2], kids[3]);
    case 'at':
      return at(t.arr, kids[0]);
  }
}

export function children(t: Term): readonly Term[] {
  switch (t.k) {
    case 'num':
    case 'sym':
      return [];
    case 'add':
    case 'mul':
    case 'fn':
    case 'phi':
      return t.args;
    case 'pow':
      return [t.base, t.exp];
    case 'div':
    case 'cmp':
      return [t.a, t.b];
    case 'sel':
      return [t.c, t.a, t.b];
    case 'sum':
    case 'prod':
      return [t.i, t.lo, t.hi, t.body];
    case 'at':
      return [t.index];
  }
}

/** Bottom-up map, memoized over the DAG (each shared node is visited once). */
export function mapTerm(t: Term, f: (t: Term) => Term, memo = new Map<Term, Term>()): Term {
  const hit = memo.get(t);
  if (hit) return hit;
  const kids = children(t);
  const rebuilt = kids.length ? rebuild(t, kids.map((c) => mapTerm(c, f, memo))) : t;
  const out = f(rebuilt);
  memo.set(t, out);
  return out;
}

/** Size: the number of distinct nodes of the DAG (after CSE, as the report recommends for the SOI limit). */
export function size(t: Term): number {
  const seen = new Set<Term>();
  const walk = (x: Term): void => {
    if (seen.has(x)) return;
    seen.add(x);
    for (const c of children(x)) walk(c);
  };
  walk(t);
  return seen.size;
}

/** Free symbols (Σ/Π indices are bound by their operator). */
export function freeSyms(t: Term, out: Set<Sym> = new Set()): Set<Sym> {
  const memo = new Map<Term, Set<Sym>>();
  const go = (x: Term): Set<Sym> => {
    const hit = memo.get(x);
    if (hit) return hit;
    let s: Set<Sym>;
    if (x.k === 'sym') s = new Set([x]);
    else if (x.k === 'sum' || x.k === 'prod') {
      s = new Set([...go(x.lo), ...go(x.hi), ...[...go(x.body)].filter((y) => y !== x.i)]);
    } else {
      s = new Set();
      for (const c of children(x)) for (const y of go(c)) s.add(y);
    }
    memo.set(x, s);
    return s;
  };
  for (const y of go(t)) out.add(y);
  return out;
}

export function dependsOn(t: Term, s: Term): boolean {
  return s.k === 'sym' ? freeSyms(t).has(s) : contains(t, s);
}

export function contains(t: Term, part: Term): boolean {
  const seen = new Set<Term>();
  const go = (x: Term): boolean => {
    if (x === part) return true;
    if (seen.has(x)) return false;
    seen.add(x);
    return children(x).some(go);
  };
  return go(t);
}

/** Replace every occurrence of `from` (any term; a symbol is not replaced where a Σ/Π binds it). */
export function subst(t: Term, from: Term, to: Term): Term {
  const memo = new Map<Term, Term>();
  const go = (x: Term): Term => {
    if (x === from) return to;
    const hit = memo.get(x);
    if (hit) return hit;
    let out: Term;
    if ((x.k === 'sum' || x.k === 'prod') && x.i === from) out = rebuild(x, [x.i, go(x.lo), go(x.hi), x.body]);
    else {
      const kids = children(x);
      out = kids.length ? rebuild(x, kids.map(go)) : x;
    }
    memo.set(x, out);
    return out;
  };
  return go(t);
}

// ---------- evaluation ----------

export interface Env {
  /** values of symbols by name (inputs, trip counts, indices) */
  syms: Record<string, number>;
  arrays?: Record<string, ArrayLike<number>>;
  /** the argument index each φ site took (the recorded control decision); site `!s` reads 1 − (that of s) */
  phis?: Record<string, number>;
}

const INTRINSICS: Record<string, (...a: number[]) => number> = {
  '%': (a, b) => a % b,
};
for (const name of Object.getOwnPropertyNames(Math)) {
  const f = (Math as unknown as Record<string, unknown>)[name];
  if (typeof f === 'function') INTRINSICS[`Math.${name}`] = f as (...a: number[]) => number;
}

export function hasIntrinsic(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(INTRINSICS, name);
}

/** Numeric value, with JavaScript's semantics (the evaluator is the oracle for every rewrite). */
export function evaluate(t: Term, env: Env): number {
  const memo = new Map<Term, number>();
  const syms: Record<string, number> = { ...env.syms };
  const go = (x: Term): number => {
    const cacheable = !dependsOnIndex(x);
    if (cacheable && memo.has(x)) return memo.get(x)!;
    let v: number;
    switch (x.k) {
      case 'num':
        v = x.v;
        break;
      case 'sym':
        if (!(x.name in syms)) throw new Error(`evaluate: no value for ${x.name}`);
        v = syms[x.name];
        break;
      case 'add':
        v = 0;
        for (const a of x.args) v += go(a);
        break;
      case 'mul':
        v = 1;
        for (const a of x.args) v *= go(a);
        break;
      case 'pow':
        v = go(x.base) ** go(x.exp);
        break;
      case 'div':
        v = go(x.a) / go(x.b);
        break;
      case 'fn': {
        const f = INTRINSICS[x.fn];
        if (!f) throw new Error(`evaluate: unknown intrinsic ${x.fn}`);
        v = f(...x.args.map(go));
        break;
      }
      case 'cmp': {
        const a = go(x.a), b = go(x.b);
        v = +(x.op === '<' ? a < b : x.op === '<=' ? a <= b : x.op === '>' ? a > b : x.op === '>=' ? a >= b : x.op === '===' ? a === b : a !== b);
        break;
      }
      case 'sel':
        v = go(x.c) ? go(x.a) : go(x.b);
        break;
      case 'phi': {
        // a site `!s` is the complement of the two-way site `s` (report F3)
        const j = x.site.startsWith('!') ? (env.phis?.[x.site.slice(1)] === undefined ? undefined : 1 - env.phis[x.site.slice(1)]) : env.phis?.[x.site];
        if (j === undefined) throw new Error(`evaluate: no decision recorded for φ site ${x.site}`);
        if (j < 0 || j >= x.args.length) throw new Error(`evaluate: φ site ${x.site} took argument ${j} of ${x.args.length}`);
        v = go(x.args[j]);
        break;
      }
      case 'sum':
      case 'prod': {
        const lo = go(x.lo), hi = go(x.hi);
        const saved = syms[x.i.name];
        v = x.k === 'sum' ? 0 : 1;
        for (let i = lo; i <= hi; i++) {
          syms[x.i.name] = i;
          v = x.k === 'sum' ? v + go(x.body) : v * go(x.body);
        }
        if (saved === undefined) delete syms[x.i.name];
        else syms[x.i.name] = saved;
        break;
      }
      case 'at': {
        const arr = env.arrays?.[x.arr];
        if (!arr) throw new Error(`evaluate: no array ${x.arr}`);
        v = arr[go(x.index)];
        if (v === undefined) v = NaN;
        break;
      }
    }
    if (cacheable) memo.set(x, v);
    return v;
  };
  // terms that mention a Σ/Π index are not cached: their value changes with each iteration
  const indexDep = new Map<Term, boolean>();
  const dependsOnIndex = (x: Term): boolean => {
    let d = indexDep.get(x);
    if (d === undefined) {
      d = [...freeSyms(x)].some((s) => s.role === 'index');
      indexDep.set(x, d);
    }
    return d;
  };
  return go(t);
}

// ---------- printing ----------

export function show(t: Term): string {
  switch (t.k) {
    case 'num':
      return Object.is(t.v, -0) ? '-0' : String(t.v);
    case 'sym':
      return t.name;
    case 'add':
      return `(${t.args.map(show).join(' + ')})`;
    case 'mul':
      return `(${t.args.map(show).join('*')})`;
    case 'pow':
      return `${show(t.base)}^${show(t.exp)}`;
    case 'div':
      return `(${show(t.a)} / ${show(t.b)})`;
    case 'fn':
      return `${t.fn.replace(/^Math\./, '')}(${t.args.map(show).join(', ')})`;
    case 'cmp':
      return `(${show(t.a)} ${t.op} ${show(t.b)})`;
    case 'sel':
      return `(${show(t.c)} ? ${show(t.a)} : ${show(t.b)})`;
    case 'phi':
      return `φ${t.kind === 'entry' ? '_' : t.kind === 'exit' ? "'" : ''}[${t.site}](${t.args.map(show).join(', ')})`;
    case 'sum':
    case 'prod':
      return `${t.k === 'sum' ? 'Σ' : 'Π'}_{${t.i.name}=${show(t.lo)}}^{${show(t.hi)}} ${show(t.body)}`;
    case 'at':
      return `${t.arr}[${show(t.index)}]`;
  }
}
