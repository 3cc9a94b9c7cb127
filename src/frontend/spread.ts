// Spread arguments in calls (issue 16, item 4): `Math.max(...xs)`, `Math.hypot(...v)`,
// `Math.max(0, ...xs)`, `helper(...args)` with a tuple.
//
// A spread tuple passes its elements: it is evaluated once (into a temporary unless it is a variable)
// and its elements become arguments, read in order as the iterator reads them. A spread array of
// unknown length reaches only the n-ary Math functions: alone it is `Math.maxOf(xs)` (the IR's n-ary
// form over an array); among other arguments of `min`/`max` it is that form as one argument, exact
// since max(a, max(b, c)) = max(a, b, c) in value and in the rule table's choice on ties (the first).
// `hypot` of a spread array among other arguments is refused: hypot(a, hypot(b, c)) rounds differently.
import ts from 'typescript';
import type { Expr, Loc, Stmt, Ty } from '../ir/types.js';
import { BOOL, INT, NUM, elemTy, tyOf } from '../ir/util.js';
import { isPlainRead } from './nullable.js';

export interface SpreadHost {
  expr(e: ts.Expression): Expr | null;
  /** an array a loop will read by index, named first unless it is a variable or one of its elements or fields */
  named(e: ts.Expression, x: Expr): Expr | null;
  err(node: ts.Node, msg: string, hint?: string): null;
  fresh(base: string): string;
  emit(s: Stmt): void;
  locOf(n: ts.Node): Loc;
  inCondition(): boolean;
}

/** an argument list with spread tuples expanded; a spread array is kept whole (`array`) for the caller to place */
type Arg = { k: 'value'; e: Expr } | { k: 'array'; e: Expr; node: ts.SpreadElement };

function expand(args: readonly ts.Expression[], host: SpreadHost): Arg[] | null {
  const out: Arg[] = [];
  for (const a of args) {
    if (!ts.isSpreadElement(a)) {
      const x = host.expr(a);
      if (!x) return null;
      out.push({ k: 'value', e: x });
      continue;
    }
    let x = host.expr(a.expression);
    if (!x) return null;
    const t = tyOf(x);
    if (t.k === 'arr') {
      out.push({ k: 'array', e: x, node: a });
      continue;
    }
    if (t.k !== 'tuple') return host.err(a, 'only arrays and tuples can be spread', 'pass the values one by one');
    if (x.k === 'arrlit') {
      // `...[a, b]`: the literal's values themselves (an element read in place would lose its derivative)
      for (const v of x.elems) out.push({ k: 'value', e: v });
      continue;
    }
    if (x.k !== 'var' && x.k !== 'global' && t.elems.length === 1) {
      const named = host.named(a.expression, x);
      if (!named) return null;
      x = named;
    }
    if (x.k !== 'var' && x.k !== 'global' && t.elems.length > 1) {
      const name = host.fresh('args');
      host.emit({ k: 'decl', name, ty: t, init: x, konst: true, loc: host.locOf(a.expression) });
      x = { k: 'var', name, ty: t };
    }
    for (let i = 0; i < t.elems.length; i++) {
      const index: Expr = { k: 'num', v: i };
      out.push({ k: 'value', e: { k: 'idx', obj: x, index, ty: elemTy(t, index) } });
    }
  }
  return out;
}

/** the arguments of a call of a function of the compilation: spread tuples expanded, spread arrays refused */
export function helperArgs(e: ts.CallExpression | ts.NewExpression, fn: string, host: SpreadHost, list: readonly ts.Expression[] = e.arguments ?? []): Expr[] | null {
  const args = expand(list, host);
  if (!args) return null;
  const arr = args.find((a) => a.k === 'array');
  if (arr) return host.err((arr as { node: ts.Node }).node, `spreading an array into '${fn}' is not supported: its length is not known before the call`, 'pass the array itself, or a tuple (`[number, number]`)');
  return args.map((a) => a.e);
}

const NARY = new Set(['min', 'max', 'hypot']);
const ARITY: Record<string, number> = { atan2: 2, pow: 2 };

/** `Math.max.apply(null, xs)` (older JavaScript's spread): `Math.max(...xs)` */
export function mathApplyCall(e: ts.CallExpression, m: string, host: SpreadHost): Expr | null {
  const [self, list] = e.arguments;
  const ignored = self && (self.kind === ts.SyntaxKind.NullKeyword || self.kind === ts.SyntaxKind.UndefinedKeyword || (ts.isIdentifier(self) && (self.text === 'undefined' || self.text === 'Math')));
  if (e.arguments.length !== 2 || !ignored || ts.isSpreadElement(list)) return host.err(e, `Math.${m}.apply is supported as \`Math.${m}.apply(null, xs)\` only`, `write \`Math.${m}(...xs)\``);
  if (!NARY.has(m)) return host.err(e, `Math.${m}.apply: Math.${m} takes ${ARITY[m] ?? 1} argument(s), not an array of them`, `pass them: \`Math.${m}(a, b)\``);
  return naryOver(m, list, host);
}

/** `Math.m` (min, max, hypot) over the elements of one array: the n-ary form, the array named first
 * unless it is a variable (the loop it becomes reads its elements by index, derivatives included) */
function naryOver(m: string, list: ts.Expression, host: SpreadHost): Expr | null {
  const x = host.expr(list);
  const arr = x && host.named(list, x);
  return arr && { k: 'intr', fn: `Math.${m}Of`, args: [arr], ty: NUM };
}

/** `Math.m(…)` with spread arguments */
export function mathSpreadCall(e: ts.CallExpression, m: string, host: SpreadHost): Expr | null {
  const only = e.arguments.length === 1 ? e.arguments[0] : null;
  // one spread array or tuple: the n-ary form over it
  if (only && ts.isSpreadElement(only) && NARY.has(m)) return naryOver(m, only.expression, host);
  const args = expand(e.arguments ?? [], host);
  if (!args) return null;
  const arrays = args.filter((a) => a.k === 'array');
  if (arrays.length && !NARY.has(m)) return host.err(arrays[0].node, `spreading an array into Math.${m} is not supported`, `Math.${m} takes ${ARITY[m] ?? 1} argument(s): pass them, or spread a tuple`);
  if (arrays.length && m === 'hypot') return host.err(arrays[0].node, 'Math.hypot with a spread array among other arguments is not supported (nesting hypot rounds differently)', 'put every value in one array and write Math.hypot(...xs)');
  const list: Expr[] = [];
  for (const a of args) {
    if (a.k !== 'array') list.push(a.e);
    else {
      const arr = host.named(a.node.expression, a.e);
      if (!arr) return null;
      list.push({ k: 'intr', fn: `Math.${m}Of`, args: [arr], ty: NUM });
    }
  }
  if (!NARY.has(m) && list.length !== (ARITY[m] ?? 1)) return host.err(e, `Math.${m} expects ${ARITY[m] ?? 1} argument(s), the spread gives ${list.length}`);
  const integral = m === 'floor' || m === 'ceil' || m === 'round' || m === 'trunc' || m === 'sign';
  return { k: 'intr', fn: `Math.${m}`, args: list, ty: integral ? INT : NUM };
}

/**
 * The parts with each object literal spread or given as a source (`{ ...{ a: 1 }, b }`,
 * `Object.assign({}, o, { b: 2 })`) replaced by its own parts: JavaScript copies its fields, in their
 * order, as if written there. A literal with getters, setters or methods stays (refused where it stands).
 */
function inlineLiteralSources(parts: readonly (ts.ObjectLiteralElementLike | ts.Expression)[]): (ts.ObjectLiteralElementLike | ts.Expression)[] {
  const out: (ts.ObjectLiteralElementLike | ts.Expression)[] = [];
  for (const p of parts) {
    let inner: ts.Expression | null = ts.isSpreadAssignment(p) ? p.expression : ts.isObjectLiteralElementLike(p) ? null : p;
    while (inner && ts.isParenthesizedExpression(inner)) inner = inner.expression;
    // (`__proto__: p` sets the literal's prototype, no field: left to the refusal)
    const plain = inner && ts.isObjectLiteralExpression(inner) && inner.properties.every((q) => (ts.isPropertyAssignment(q) || ts.isShorthandPropertyAssignment(q) || ts.isSpreadAssignment(q)) && q.name?.getText() !== '__proto__');
    if (plain) out.push(...inlineLiteralSources((inner as ts.ObjectLiteralExpression).properties));
    else out.push(p);
  }
  return out;
}

/** a field of an object literal, lowered */
export interface LiteralField {
  name: string;
  value: Expr;
}

/**
 * The fields of an object literal with spreads (`{ ...o, u: 2 }`, `{ ...base, ...extra }`). A spread
 * source of a known object type gives each of its fields, read where the spread stands (the source is
 * named first unless it is a variable or one of its elements or fields). A field given again replaces
 * the value and keeps its first position, as JavaScript's keys do. Before a part that calls a function
 * or assigns, the values gathered so far are named (`const`), so that they are read before it, as
 * JavaScript reads them, wherever the lowered literal puts them.
 */
export function objectSpreadFields(
  host: SpreadHost,
  parts: readonly (ts.ObjectLiteralElementLike | ts.Expression)[],
  field: (p: ts.ObjectLiteralElementLike) => LiteralField | null,
  hasEffect: (n: ts.Node) => boolean,
  isInstance: (n: ts.Expression) => boolean,
  propertyNames: (n: ts.Expression) => string[],
  /** fields a source surely has whatever its type says (a module-level constant's literal), or null */
  surelyGiven: (n: ts.Expression) => ReadonlySet<string> | null = () => null,
): LiteralField[] | null {
  const out: LiteralField[] = [];
  const set = (f: LiteralField) => {
    const k = out.findIndex((g) => g.name === f.name);
    if (k < 0) out.push(f);
    else out[k] = f;
  };
  for (const p of inlineLiteralSources(parts)) {
    if (hasEffect(p) && out.some((f) => !isConstantValue(f.value))) {
      if (host.inCondition()) return host.err(p, 'an object literal with a spread and a call after it, inside a condition, is not supported', 'build the object in a statement of its own');
      for (const f of out) {
        if (isConstantValue(f.value)) continue;
        const name = host.fresh(f.name);
        host.emit({ k: 'decl', name, ty: tyOf(f.value), init: f.value, konst: true, loc: host.locOf(p) });
        f.value = { k: 'var', name, ty: tyOf(f.value) };
      }
    }
    // (`Object.assign({}, a, b)` gives its sources as they are: each is spread)
    const source = ts.isSpreadAssignment(p) ? p.expression : ts.isObjectLiteralElementLike(p) ? null : p;
    if (!source) {
      const f = field(p as ts.ObjectLiteralElementLike);
      if (!f) return null;
      set(f);
      continue;
    }
    let inner: ts.Expression = source;
    while (ts.isParenthesizedExpression(inner)) inner = inner.expression;
    if (ts.isObjectLiteralExpression(inner)) return host.err(p, 'spreading an object literal into another is not supported', 'write its fields in the outer literal');
    if (isInstance(source)) return host.err(p, 'spreading a class instance is not supported (it copies the fields but not the methods or getters)', 'spell out the fields: `{ x: p.x, y: p.y }`');
    const x = host.expr(source);
    const src = x && host.named(source, x);
    if (!src) return null;
    // (an optional object, `options?: Partial<Opts>`, spreads nothing where it is absent: each of its fields is optional)
    const t0 = tyOf(src);
    const maybe = t0.k === 'opt' && t0.base.k === 'obj' && !t0.none.includes('false') ? t0 : null;
    const t = maybe ? maybe.base : t0;
    // (the fields the value has by its own type, not by the literal's context)
    const own = propertyNames(source).sort().join();
    if (t.k !== 'obj' || own !== t.fields.map((g) => g.name).sort().join()) return host.err(p, 'only objects of a known type can be spread into an object literal', 'spell out the fields');
    const present: Expr | null = maybe ? maybe.none.map((n): Expr => ({ k: 'bin', op: '!==', a: src, b: n === 'null' ? { k: 'raw', text: 'null', ty: { k: 'void' } } : { k: 'undef' }, ty: BOOL })).reduce((a, b) => ({ k: 'bin', op: '&&', a, b, ty: BOOL })) : null;
    const obj: Expr = maybe && (src.k === 'var' || src.k === 'field') ? { ...src, ty: t, nn: true } : src;
    if (maybe && obj === src) return host.err(p, 'an object that may be absent can be spread only from a variable or a field', 'name it first: `const o = …;`');
    const surely = maybe ? null : surelyGiven(source);
    for (const g of t.fields) {
      if (g.ty.k !== 'opt' && !g.optional && !maybe) {
        set({ name: g.name, value: { k: 'field', obj: src, name: g.name, ty: g.ty } });
        continue;
      }
      // (`DEFAULTS: Opts = { loss: 'l2', … }` at module level: its optional fields are there)
      if (surely?.has(g.name)) {
        const base = g.ty.k === 'opt' ? g.ty.base : g.ty;
        set({ name: g.name, value: { k: 'field', obj: src, name: g.name, ty: base, nn: true } });
        continue;
      }
      // an optional field over a value given before (`{ ...DEFAULTS, ...options }`): the source's where
      // it has the field, else the earlier value
      const before = out.find((f) => f.name === g.name);
      const given0 = g.ty.k === 'opt' ? g.ty.base : g.ty;
      // (string flags: `{ loss: 'l2' }` typed string by TypeScript, over `loss?: 'l2' | 'l1'`: either)
      const tb = before ? tyOf(before.value) : null;
      const base: Ty = given0.k === 'str' && tb?.k === 'str' ? { k: 'str', lits: given0.lits.length && tb.lits.length ? [...new Set([...tb.lits, ...given0.lits])] : [] } : given0;
      if (!before) return host.err(p, `the spread would copy the optional field '${g.name}', which nothing before it gives: the object would have it or not by the value`, `give a default first, \`{ ${g.name}: 0, ...o }\` (or \`{ ...DEFAULTS, ...o }\`), or spell out the fields`);
      // (an integer literal, `{ k: 2, ...opts }`, is a number like the field's)
      const numeric = (x: Ty) => JSON.stringify(x.k === 'int' ? { k: 'num' } : x);
      if (numeric(tb!) !== numeric(base) && !(base.k === 'str' && tb!.k === 'str')) return host.err(p, `the optional field '${g.name}' of the spread has another type than the value given before it`, 'give both the same type');
      // (the earlier value is read only where the source lacks the field: named first if it is not a plain read)
      if (!isConstantValue(before.value) && !isPlainRead(before.value)) {
        const name = host.fresh(g.name);
        host.emit({ k: 'decl', name, ty: base, init: before.value, konst: true, loc: host.locOf(p) });
        before.value = { k: 'var', name, ty: base };
      }
      // (a field set to undefined counts as absent, as the literal's type says: JavaScript would copy the
      // undefined into a field typed a number)
      const field: Expr = { k: 'field', obj, name: g.name, ty: g.ty.k === 'opt' ? g.ty : { k: 'opt', base, none: ['undefined'] } };
      const given: Expr = { k: 'bin', op: '!==', a: field, b: { k: 'undef' }, ty: BOOL };
      const has: Expr = present ? { k: 'bin', op: '&&', a: present, b: given, ty: BOOL } : given;
      set({ name: g.name, value: { k: 'cond', c: has, a: { k: 'field', obj, name: g.name, ty: base, nn: g.ty.k === 'opt' || g.optional ? true : undefined }, b: before.value, ty: base } });
    }
  }
  return out;
}

function isConstantValue(e: Expr): boolean {
  return e.k === 'num' || e.k === 'bool' || e.k === 'str' || e.k === 'undef';
}
