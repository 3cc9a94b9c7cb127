// Coverage accounting of the random-program suite (issue 14): which forms the generated programs put
// through tsad, counted over form × type class × reference effect × loop strategy.
//
// A program is classified on the IR the front end lowers it to (frontEnd in src/api/compile.ts), so a
// form is counted as tsad sees it, whatever source spelling the generator used. The forms are the
// front end's own registry (FORMS in src/frontend/lower.ts). A cell that cannot occur (a swap of
// scalars, an element store into a scalar, `continue` outside a loop) is excluded by the rules below;
// every other cell the front end can produce is "accepted", and the fixed-seed run of test/fuzz.test.ts
// must produce each accepted cell at least MIN_PER_CELL times.
import { FORMS, type Form } from '../../src/frontend/lower.js';
import type { Expr, Module, Stmt, Ty } from '../../src/ir/types.js';
import { forEachExpr, isRef, rootVar, stmtExprs, tyOf, varsRead } from '../../src/ir/util.js';
import { SYNTAX_FORM_NAMES, syntaxFormsOf, type SyntaxForm } from './syntax-forms.js';

/** the rows of the table: the front end's forms, then the source spellings counted by syntax (syntax-forms.ts) */
type CovForm = Form | SyntaxForm;
const ALL_FORMS: readonly CovForm[] = [...FORMS, ...SYNTAX_FORM_NAMES];
const isSyntaxForm = (f: CovForm): f is SyntaxForm => f.startsWith('syntax.');

export const MIN_PER_CELL = 3;

export const TYPE_CLASSES = ['scalar', 'array', 'array2', 'arrobj', 'object', 'tuple', '-'] as const;
export type TypeClass = (typeof TYPE_CLASSES)[number];
/** what a statement does with references: a fresh value, a second name for an existing one, a
 * rebinding computed from the variable's own old value, a number stored into an element or field, a
 * reference stored into a slot, two slots exchanging their references (`t = A[i]; A[i] = A[j]; A[j] = t`) */
export const EFFECTS = ['fresh', 'alias', 'self', 'store', 'row', 'swap', '-'] as const;
export type Effect = (typeof EFFECTS)[number];
/** where the form sits: straight-line code, the body of a counted `for` (index, bound, constant step),
 * the body of a `while`/`do` (or a `for` not of that shape), or inside two or more loops */
export const STRATEGIES = ['straight', 'counted', 'while', 'nested'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export interface Cell {
  form: CovForm;
  type: TypeClass;
  effect: Effect;
  strategy: Strategy;
}
export const cellKey = (c: Cell) => `${c.form}|${c.type}|${c.effect}|${c.strategy}`;
export function parseKey(k: string): Cell {
  const [form, type, effect, strategy] = k.split('|');
  return { form: form as CovForm, type: type as TypeClass, effect: effect as Effect, strategy: strategy as Strategy };
}

export function typeClass(t: Ty): TypeClass {
  switch (t.k) {
    case 'num':
    case 'int':
    case 'bool':
      return 'scalar';
    case 'arr':
      return t.elem.k === 'arr' ? 'array2' : t.elem.k === 'obj' || t.elem.k === 'tuple' ? 'arrobj' : 'array';
    case 'tuple':
      return 'tuple';
    case 'obj':
      return 'object';
    case 'opt': // a nullable value (`const r = g(x)` with g returning number | null) counts as its base
      return typeClass(t.base);
    default:
      return '-';
  }
}
const isRefClass = (c: TypeClass) => c !== 'scalar' && c !== '-';

// ------------------------------------------------------------------------------------------------
// Which cells can occur (the rules; no list of exceptions)
// ------------------------------------------------------------------------------------------------

/** the type classes and effects each form can carry */
const SYNTAX_SHAPES = Object.fromEntries(SYNTAX_FORM_NAMES.map((f) => [f, { types: ['-'], effects: ['-'] }])) as unknown as Record<SyntaxForm, { types: readonly TypeClass[]; effects: readonly Effect[] }>;
const SHAPES: Record<CovForm, { types: readonly TypeClass[]; effects: readonly Effect[] }> = {
  ...SYNTAX_SHAPES,
  decl: { types: ['scalar', 'array', 'array2', 'arrobj', 'object', 'tuple'], effects: ['fresh', 'alias'] },
  'decl.var': { types: ['scalar'], effects: ['-'] },
  'nullable.split': { types: ['scalar'], effects: ['-'] },
  // a parameter's default assigned at the top of the body (src/frontend/param-defaults.ts)
  'param.bodydefault': { types: ['scalar', 'object'], effects: ['-'] },
  // a helper's `number[] | null` result taken apart where it is named (src/frontend/nullable-locals.ts)
  'nullable.result': { types: ['array'], effects: ['-'] },
  'assign.var': { types: ['scalar', 'array', 'array2', 'arrobj', 'object', 'tuple'], effects: ['fresh', 'alias', 'self'] },
  // the class is the stored-into variable's: `m[i][j] = e` stores into an array of arrays, `q.a[k] = e` into an object
  'assign.elem': { types: ['array', 'array2', 'object', 'tuple'], effects: ['store'] },
  'assign.field': { types: ['object', 'arrobj'], effects: ['store'] },
  'assign.row': { types: ['array2', 'arrobj', 'object'], effects: ['row', 'swap'] },
  'intr.push': { types: ['array', 'array2', 'arrobj'], effects: ['-'] },
  // pops and length assignments take numbers, rows and objects off
  'intr.pop': { types: ['array', 'array2', 'arrobj'], effects: ['-'] },
  'assign.length': { types: ['array', 'array2', 'arrobj'], effects: ['-'] },
  'call.helper': { types: ['scalar', 'array', 'object', 'tuple', 'array2', '-'], effects: ['-'] },
  'expr.arrlit': { types: ['array', 'array2', 'arrobj', 'tuple'], effects: ['-'] },
  'expr.objlit': { types: ['object'], effects: ['-'] },
  'expr.cond': { types: ['scalar'], effects: ['-'] },
  'expr.condref': { types: ['object', 'array'], effects: ['-'] },
  'expr.alloc': { types: ['array'], effects: ['-'] },
  'expr.copy': { types: ['array'], effects: ['-'] },
  'expr.short': { types: ['scalar'], effects: ['-'] },
  'expr.typetest': { types: ['scalar'], effects: ['-'] },
  'expr.truthtest': { types: ['scalar'], effects: ['-'] },
  'param.optional': { types: ['scalar'], effects: ['-'] },
  'param.optbool': { types: ['scalar', 'object'], effects: ['-'] },
  // classes (src/frontend/classes.ts): `new C(…)` builds an instance; a method, getter, setter or static
  // method gives a number, an array, nothing, or an instance
  'class.new': { types: ['object'], effects: ['-'] },
  'class.method': { types: ['scalar', 'array', 'object', '-'], effects: ['-'] },
  // calls of a function with a hand-written derivative, or of a passive one (src/frontend/custom-derivatives.ts): a number
  'call.custom': { types: ['scalar'], effects: ['-'] },
  'call.passive': { types: ['scalar'], effects: ['-'] },
  'stmt.if': { types: ['-'], effects: ['-'] },
  'stmt.for': { types: ['-'], effects: ['-'] },
  'stmt.while': { types: ['-'], effects: ['-'] },
  'stmt.do': { types: ['-'], effects: ['-'] },
  'stmt.switch': { types: ['-'], effects: ['-'] },
  'stmt.block': { types: ['-'], effects: ['-'] },
  'stmt.break': { types: ['-'], effects: ['-'] },
  'stmt.continue': { types: ['-'], effects: ['-'] },
  'stmt.return': { types: ['-'], effects: ['-'] },
  // arrays as JavaScript writes them (src/frontend/arrays.ts), counted by the statements tagged with them
  'array.evolving': { types: ['array'], effects: ['-'] },
  'array.unfilled': { types: ['array'], effects: ['-'] },
  // (`[...objs]` shares the objects, as a sorted or reversed copy does)
  'array.spread': { types: ['array', 'arrobj'], effects: ['-'] },
  // `M.slice()` of rows or objects is a new array sharing them (a loop of pushes, counted by its declaration)
  'array.slice': { types: ['array', 'array2', 'arrobj'], effects: ['-'] },
  'array.concat': { types: ['array'], effects: ['-'] },
  'array.fill': { types: ['array'], effects: ['-'] },
  'array.reverse': { types: ['array', 'arrobj'], effects: ['-'] },
  'array.search': { types: ['array'], effects: ['-'] },
  'array.set': { types: ['array'], effects: ['-'] },
  // a rest parameter's array, built at a call from its trailing arguments (numbers, or rows)
  'array.rest': { types: ['array', 'array2'], effects: ['-'] },
  'array.pushmany': { types: ['array'], effects: ['-'] },
  'array.pushspread': { types: ['array'], effects: ['-'] },
  'array.flat': { types: ['array'], effects: ['-'] },
  'array.sort': { types: ['array', 'array2', 'arrobj'], effects: ['-'] },
  // indices as an array (`Array.from(xs.keys())`), and indices sorted by the values they index
  'array.keys': { types: ['array'], effects: ['-'] },
  'array.argsort': { types: ['array'], effects: ['-'] },
  // in place: numbers, rows or objects set aside, cut off and pushed back (counted by the loop of pops), and a copy with one element replaced
  'array.splice': { types: ['array', 'array2', 'arrobj'], effects: ['-'] },
  'array.with': { types: ['array', 'array2'], effects: ['-'] },
  // array methods with callbacks (src/frontend/callbacks.ts), counted by the loop each lowers to
  'callback.map': { types: ['-'], effects: ['-'] },
  'callback.forEach': { types: ['-'], effects: ['-'] },
  'callback.reduce': { types: ['-'], effects: ['-'] },
  'callback.filter': { types: ['-'], effects: ['-'] },
  'callback.search': { types: ['-'], effects: ['-'] },
  // local functions inlined at their calls and helpers specialised per function passed (src/frontend/closures.ts),
  // counted by the first statement an inlined call leaves (or its value) and by the specialised call
  'closure.read': { types: ['-'], effects: ['-'] },
  'closure.write': { types: ['-'], effects: ['-'] },
  'fn.arg': { types: ['scalar', 'array'], effects: ['-'] },
  'fn.choice': { types: ['-'], effects: ['-'] },
  'fn.factory': { types: ['-'], effects: ['-'] },
  // typed arrays (src/frontend/typed-arrays.ts): a Float32Array or an integer typed array made (allocated or copied)
  'typed.f32': { types: ['array'], effects: ['-'] },
  'typed.int': { types: ['array'], effects: ['-'] },
  // a rest element of an array pattern (src/frontend/rest-elements.ts): a fresh array, counted by its declaration's origin
  'destructure.rest': { types: ['array', 'array2', 'tuple'], effects: ['-'] },
  'destructure.objrest': { types: ['object'], effects: ['-'] },
};

/** whether a cell can occur at all */
export function possible(c: Cell): boolean {
  const s = SHAPES[c.form];
  if (!s.types.includes(c.type) || !s.effects.includes(c.effect)) return false;
  // a second name for a number is just a copy of it
  if (c.effect === 'alias' && !isRefClass(c.type)) return false;
  // swaps exchange rows of arrays (an object's two fields of one type are not a swap the generator or LU writes)
  if (c.effect === 'swap' && c.type === 'object') return false;
  // a source spelling is counted once per program
  if (isSyntaxForm(c.form) && c.strategy !== 'straight') return false;
  // a hoisted `var` is declared at the top of its function
  if (c.form === 'decl.var' && c.strategy !== 'straight') return false;
  // `continue` needs a loop
  if (c.form === 'stmt.continue' && c.strategy === 'straight') return false;
  // parameters are declared outside every loop
  if ((c.form === 'param.optional' || c.form === 'param.optbool' || c.form === 'param.bodydefault') && c.strategy !== 'straight') return false;
  return true;
}

/** every cell that can occur, in table order */
export function allCells(): Cell[] {
  const out: Cell[] = [];
  for (const form of ALL_FORMS)
    for (const type of TYPE_CLASSES)
      for (const effect of EFFECTS)
        for (const strategy of STRATEGIES) {
          const c = { form, type, effect, strategy };
          if (possible(c)) out.push(c);
        }
  return out;
}

// ------------------------------------------------------------------------------------------------
// The classifier
// ------------------------------------------------------------------------------------------------

export type Counts = Map<string, number>;

/** a `for` the adjoint can run backwards by its index: `let i = …; i <cmp> …; i += c` (or `i++`) */
function isCounted(s: Extract<Stmt, { k: 'for' }>): boolean {
  if (s.init.length !== 1 || s.init[0].k !== 'decl' || s.update.length !== 1 || !s.cond) return false;
  const i = s.init[0].name;
  const u = s.update[0];
  if (u.k !== 'assign' || u.target.k !== 'var' || u.target.name !== i) return false;
  if (u.value.k !== 'bin' || (u.value.op !== '+' && u.value.op !== '-') || u.value.b.k !== 'num') return false;
  const c = s.cond;
  return c.k === 'bin' && ['<', '<=', '>', '>='].includes(c.op) && c.a.k === 'var' && c.a.name === i;
}

/** a reference-typed read of an existing value: a variable, an element, a field */
const isRefRead = (e: Expr) => (e.k === 'var' || e.k === 'idx' || e.k === 'field') && isRefClass(typeClass(tyOf(e)));

/** statements of a list that are the two stores of a row swap `t = X[i]; X[i] = X[j]; X[j] = t` */
function swapStores(list: Stmt[]): Set<Stmt> {
  const out = new Set<Stmt>();
  for (let k = 0; k + 2 < list.length; k++) {
    const [a, b, c] = [list[k], list[k + 1], list[k + 2]];
    if (a.k !== 'decl' || !a.init || a.init.k !== 'idx' || b.k !== 'assign' || c.k !== 'assign') continue;
    const root = rootVar(a.init);
    if (b.target.k !== 'idx' || c.target.k !== 'idx' || rootVar(b.target) !== root || rootVar(c.target) !== root) continue;
    if (c.value.k !== 'var' || c.value.name !== a.name || b.value.k !== 'idx') continue;
    out.add(b).add(c);
  }
  return out;
}

export function classifyModule(mod: Module): Counts {
  const counts: Counts = new Map();
  const add = (form: Form, type: TypeClass, effect: Effect, strategy: Strategy) => {
    const k = cellKey({ form, type, effect, strategy });
    counts.set(k, (counts.get(k) ?? 0) + 1);
  };
  const vars = new Map<string, Ty>();
  const classOfRoot = (e: Expr): TypeClass => {
    const r = rootVar(e);
    const t = r ? vars.get(r) : undefined;
    return t ? typeClass(t) : '-';
  };
  const exprs = (e: Expr, st: Strategy) =>
    forEachExpr(e, (x) => {
      // (a choice between string flags, `{ ...d, ...o }` with `mode?: 'soft' | 'hard'`, carries no number: passive, not counted)
      if (x.k === 'cond' && !(typeClass(x.ty) === '-' && !x.sc)) add(x.sc ? 'expr.short' : isRef(x.ty) ? 'expr.condref' : 'expr.cond', typeClass(x.ty), '-', st);
      else if (x.k === 'intr' && (x.fn === 'typeof' || x.fn === 'in' || x.fn === 'Array.isArray')) add('expr.typetest', 'scalar', '-', st);
      else if ((x.k === 'un' || x.k === 'bool') && x.tt) add('expr.truthtest', 'scalar', '-', st);
      else if (x.k === 'call') add(x.origin ?? (x.custom === 'rule' ? 'call.custom' : x.custom === 'passive' ? 'call.passive' : 'call.helper'), typeClass(x.ty), '-', st);
      else if (x.origin?.startsWith('closure.') || x.origin === 'fn.factory') add(x.origin as Form, '-', '-', st);
      else if (x.k === 'arrlit') add('expr.arrlit', typeClass(x.ty), '-', st);
      else if (x.k === 'objlit') add('expr.objlit', 'object', '-', st);
      else if (x.k === 'alloc') add('expr.alloc', 'array', '-', st);
      else if (x.k === 'intr' && x.fn === 'copy' && x.origin !== 'array.sort') add(x.args[0].k === 'sub' ? 'array.slice' : 'expr.copy', typeClass(x.ty), '-', st);
      // a typed array other than Float64Array made here (counted besides its allocation or copy)
      if ((x.k === 'alloc' || (x.k === 'intr' && x.fn === 'copy')) && x.ty.k === 'arr' && x.ty.ctor) add(x.ty.ctor === 'Float32Array' ? 'typed.f32' : 'typed.int', 'array', '-', st);
      else if (x.k === 'intr' && (x.fn === 'indexOf' || x.fn === 'includes')) add('array.search', typeClass(tyOf(x.args[0])), '-', st);
    });
  /** a statement lowered from an array form of src/frontend/arrays.ts: once per occurrence (the array it
   * declares, or the loop of an in-place `fill`/`reverse`) */
  const origin = (s: Stmt, st: Strategy) => {
    const o = s.origin as Form | undefined;
    if (!o) return;
    if (o === 'param.bodydefault') {
      if (s.k === 'decl') add(o, typeClass(s.ty), '-', st);
      return;
    }
    if (o === 'nullable.split' || o === 'nullable.result') {
      add(o, o === 'nullable.split' ? 'scalar' : 'array', '-', st);
      return;
    }
    if (o.startsWith('closure.') || o === 'fn.choice' || o === 'fn.factory') {
      add(o, '-', '-', st);
      return;
    }
    if (o === 'array.pushspread') {
      if (s.k === 'for') add(o, 'array', '-', st);
      return;
    }
    if (o === 'array.pushmany') {
      if (s.k === 'expr') add(o, typeClass(tyOf((s.e as Extract<Expr, { k: 'intr' }>).args[0])), '-', st);
      return;
    }
    if (o === 'array.with') {
      // (the store into the copy: the class of the copied array)
      if (s.k === 'assign') add(o, classOfRoot(s.target), '-', st);
      return;
    }
    if (o === 'array.splice') return; // (counted by its loop of pops, below)
    if (o.startsWith('callback.')) {
      if (s.k === 'for') add(o, '-', '-', st);
      return;
    }
    const inPlace = o === 'array.fill' || o === 'array.reverse' || o === 'array.set' || o === 'array.sort';
    if (inPlace && s.k === 'for') {
      const store = s.body.find((b) => b.k === 'assign');
      add(o, store ? classOfRoot(store.target) : '-', '-', st);
    } else if (!inPlace && s.k === 'decl' && s.init && (s.init.k === 'arrlit' || s.init.k === 'alloc' || s.init.k === 'objlit')) add(o, typeClass(s.ty), '-', st);
  };
  const walk = (list: Stmt[], loops: ('counted' | 'while')[]) => {
    const st: Strategy = loops.length === 0 ? 'straight' : loops.length > 1 ? 'nested' : loops[0];
    const swaps = swapStores(list);
    for (const s of list) {
      origin(s, st);
      if (s.k !== 'for') for (const e of stmtExprs(s)) exprs(e, st);
      switch (s.k) {
        case 'decl': {
          vars.set(s.name, s.ty);
          if (s.hoisted) add('decl.var', typeClass(s.ty), '-', st);
          // (a string named by sequencing, `typeof v` inside an expression with assignments, is no type class)
          if (s.init && typeClass(s.ty) !== '-') add('decl', typeClass(s.ty), isRefRead(s.init) ? 'alias' : 'fresh', st);
          break;
        }
        case 'assign': {
          const t = s.target;
          const tc = typeClass(tyOf(t));
          if (t.k === 'var') {
            const effect: Effect = varsRead(s.value).has(t.name) ? 'self' : isRefRead(s.value) ? 'alias' : 'fresh';
            add('assign.var', tc, effect, st);
          } else if (isRefClass(tc)) add('assign.row', classOfRoot(t), swaps.has(s) ? 'swap' : 'row', st);
          else add(t.k === 'field' ? 'assign.field' : 'assign.elem', classOfRoot(t), 'store', st);
          break;
        }
        case 'expr':
          if (s.e.k === 'intr' && (s.e.fn === 'push' || s.e.fn === 'pop')) add(s.e.fn === 'push' ? 'intr.push' : 'intr.pop', typeClass(tyOf(s.e.args[0])), '-', st);
          break;
        case 'if':
          add('stmt.if', '-', '-', st);
          walk(s.then, loops);
          walk(s.else, loops);
          break;
        case 'for': {
          add('stmt.for', '-', '-', st);
          // the header belongs to the loop's surroundings, the body to the loop
          for (const x of s.init) if (x.k === 'decl') vars.set(x.name, x.ty);
          for (const x of [...s.init, ...s.update]) for (const e of stmtExprs(x)) exprs(e, st);
          if (s.cond) exprs(s.cond, st);
          walk(s.body, [...loops, isCounted(s) ? 'counted' : 'while']);
          break;
        }
        case 'while':
        case 'do':
          if (s.origin === 'assign.length' || s.origin === 'array.splice') {
            // (the class of the array truncated: the one its loop pops)
            const pop = s.body.find((x) => x.k === 'expr' && x.e.k === 'intr' && x.e.fn === 'pop');
            add(s.origin, pop && pop.k === 'expr' && pop.e.k === 'intr' ? typeClass(tyOf(pop.e.args[0])) : 'array', '-', st);
          }
          else add(s.k === 'while' ? 'stmt.while' : 'stmt.do', '-', '-', st);
          walk(s.body, [...loops, 'while']);
          break;
        case 'switch':
          add('stmt.switch', '-', '-', st);
          for (const c of s.cases) walk(c.body, loops);
          break;
        case 'block':
          if (s.label) add('stmt.block', '-', '-', st);
          walk(s.body, loops);
          break;
        case 'break':
          add('stmt.break', '-', '-', st);
          break;
        case 'continue':
          add('stmt.continue', '-', '-', st);
          break;
        case 'return':
          add('stmt.return', '-', '-', st);
          break;
      }
    }
  };
  for (const name of mod.order) {
    const f = mod.funcs.get(name)!;
    vars.clear();
    for (const p of f.params) {
      vars.set(p.name, p.ty);
      if (p.optional || p.def) add('param.optional', 'scalar', '-', 'straight');
      const optBool = (t: Ty) => t.k === 'opt' && t.base.k === 'bool';
      if (optBool(p.ty)) add('param.optbool', 'scalar', '-', 'straight');
      else if (p.ty.k === 'obj' && p.ty.fields.some((fl) => optBool(fl.ty))) add('param.optbool', 'object', '-', 'straight');
    }
    walk(f.body, []);
  }
  return counts;
}

/** the cells of the source spellings a program holds (syntax-forms.ts), one each */
export function classifySyntax(source: string): Counts {
  return new Map([...syntaxFormsOf(source)].map((f) => [cellKey({ form: f, type: '-', effect: '-', strategy: 'straight' }), 1]));
}

export function mergeCounts(into: Counts, from: Iterable<[string, number]>): void {
  for (const [k, n] of from) into.set(k, (into.get(k) ?? 0) + n);
}

/** accepted cells produced fewer than `min` times */
export function underCovered(counts: Counts, min = MIN_PER_CELL): { cell: Cell; n: number }[] {
  return allCells()
    .map((cell) => ({ cell, n: counts.get(cellKey(cell)) ?? 0 }))
    .filter((x) => x.n < min);
}

/** cells counted that the rules say cannot occur (a classifier or rule bug) */
export function impossibleSeen(counts: Counts): string[] {
  return [...counts.keys()].filter((k) => !possible(parseKey(k)));
}

// ------------------------------------------------------------------------------------------------
// The table
// ------------------------------------------------------------------------------------------------

/** rows form × type class × effect (the possible ones), columns loop strategies; `!` marks an accepted cell under the minimum, `·` one that cannot occur */
export function coverageTable(counts: Counts, min = MIN_PER_CELL, markdown = false): string {
  const rows: string[][] = [];
  for (const form of ALL_FORMS)
    for (const type of TYPE_CLASSES)
      for (const effect of EFFECTS) {
        const cells = STRATEGIES.map((strategy) => ({ form, type, effect, strategy }));
        if (!cells.some(possible)) continue;
        rows.push([
          form,
          type,
          effect,
          ...cells.map((c) => {
            if (!possible(c)) return '·';
            const n = counts.get(cellKey(c)) ?? 0;
            return n < min ? `${n}!` : `${n}`;
          }),
        ]);
      }
  const head = ['form', 'type', 'effect', ...STRATEGIES];
  if (markdown) {
    const line = (r: string[]) => `| ${r.join(' | ')} |`;
    return [line(head), line(head.map((_, i) => (i < 3 ? '---' : '---:'))), ...rows.map(line)].join('\n') + '\n';
  }
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r: string[]) => r.map((x, i) => (i < 3 ? x.padEnd(w[i]) : x.padStart(w[i]))).join('  ').trimEnd();
  return [fmt(head), w.map((n) => '-'.repeat(n)).join('  '), ...rows.map(fmt)].join('\n');
}
