// Array methods with callbacks (issue 17, items 4 and the part of 2 they need): `map`, `forEach`,
// `reduce`, `reduceRight`, `filter`, `some`, `every`, `find`, `findIndex`, `flatMap` and
// `Array.from(xs, fn)`, whose callback is an arrow or function expression written inline, a local
// `const f = (v) => …` that is only ever passed to these methods, or a top-level function by name.
//
// Each call lowers to one counted loop the rest of tsad already differentiates (dF̃'s `build` and
// `ifold`: the loop's adjoint is the array-level adjoint — the adjoint of a `map` is a loop of the
// callback's adjoints, a sum-`reduce` broadcasts its seed). The callback's body is written out in the
// loop body: its parameters are bound to the element, the index and the array, a variable it reads
// from the enclosing function is that variable, and each `return e` becomes what the method does with
// the value (store it into the new array, make it the accumulator, test it) followed by a jump to the
// end of the body. JavaScript's semantics are kept: the length is read once before the loop when the
// callback may change it, `reduce` without an initial value on an empty array throws its TypeError,
// predicates test truthiness, `some`/`every`/`find`/`findIndex` stop at the first decisive element.
//
// A chain `xs.map(f).filter(p).reduce(g, 0)` whose callbacks only compute values becomes one loop (the
// intermediate arrays nobody else can read are never built), as JavaScript's results do not depend on
// whether the callbacks run stage by stage or element by element when they write nothing.
import ts from 'typescript';
import type { Expr, LValue, Loc, Stmt, Ty } from '../ir/types.js';
import { BOOL, INT, NUM, VOID, countReturns, forEachExpr, mapBodies, tyOf } from '../ir/util.js';
import { isLocalFunctionDecl, writesOutside } from './closures.js';
import { MATH_BINARY, MATH_FUNCS, MATH_INTEGRAL, MATH_NARY } from './math.js';
import { isTypedCtor } from './typed-arrays.js';

/** The source forms this module lowers, for coverage accounting (test/fuzz/coverage.ts reads `origin`). */
export const CALLBACK_FORMS = [
  'callback.map', // `xs.map(f)`, `xs.flatMap(f)`, `Array.from(xs, f)`: a fresh array, one element per call
  'callback.forEach', // `xs.forEach(f)`: the callback's body as a loop body (it may write enclosing variables)
  'callback.reduce', // `xs.reduce(f, init)`, `reduceRight`: an accumulator loop
  'callback.filter', // `xs.filter(p)`: a fresh array built by pushes under a passive predicate
  'callback.search', // `some`, `every`, `find`, `findIndex`: a loop with an early exit
] as const;
export type CallbackForm = (typeof CALLBACK_FORMS)[number];

const METHODS = new Set(['map', 'forEach', 'reduce', 'reduceRight', 'filter', 'some', 'every', 'find', 'findIndex', 'findLast', 'findLastIndex', 'flatMap']);
type Method = 'map' | 'forEach' | 'reduce' | 'reduceRight' | 'filter' | 'some' | 'every' | 'find' | 'findIndex' | 'findLast' | 'findLastIndex' | 'flatMap' | 'from';

const FORM_OF: Record<Method, CallbackForm> = {
  map: 'callback.map', flatMap: 'callback.map', from: 'callback.map', forEach: 'callback.forEach', reduce: 'callback.reduce',
  reduceRight: 'callback.reduce', filter: 'callback.filter', some: 'callback.search', every: 'callback.search', find: 'callback.search', findIndex: 'callback.search', findLast: 'callback.search', findLastIndex: 'callback.search',
};

/** What the lowering of a function lends this module. */
export interface CallbackHost {
  checker: ts.TypeChecker;
  typeAt(n: ts.Node): Ty | null;
  locOf(n: ts.Node): Loc;
  expr(e: ts.Expression): Expr | null;
  exprStmt(e: ts.Expression): Stmt | null;
  err(n: ts.Node, msg: string, hint?: string): null;
  /** whether a name's declaration was refused (reported): its uses add no error */
  refused(id: ts.Identifier): boolean;
  fresh(base: string): string;
  emit(s: Stmt): void;
  /** the statements of a block, each preceded by what its expressions emitted */
  block(b: ts.Block): Stmt[];
  /** runs `f` with an empty list of emitted statements; returns its result and what it emitted */
  capture<T>(f: () => T): [T, Stmt[]];
  /** makes a declaration (a parameter, a variable) name an IR variable that already exists */
  bind(node: ts.Node, name: string, ty: Ty): void;
  /** a conditional the lowering writes as an `if` (its branches run as statements of their own) */
  isUnfolded(n: ts.Node): boolean;
  /** the statements declaring the names of a pattern (`([x, y], i) => …`) from a value */
  destructure(pattern: ts.BindingName, value: Expr, node: ts.Node): Stmt[];
  /** whether an error was reported in the function being lowered */
  failed(): boolean;
  /** a top-level function of the compilation an identifier names: its IR name, parameters and result */
  helper(id: ts.Identifier): { name: string; params: readonly ts.ParameterDeclaration[]; ret: Ty | null } | null;
}

type Fn = ts.ArrowFunction | ts.FunctionExpression | (ts.FunctionDeclaration & { body: ts.Block });
type Callback = { k: 'inline'; fn: Fn; at: ts.Node } | { k: 'helper'; name: string; arity: number; ret: Ty; at: ts.Node } | { k: 'math'; fn: string; at: ts.Node };

interface Stage {
  method: Method;
  call: ts.CallExpression;
  cb: Callback;
}

const v = (name: string, ty: Ty): Extract<Expr, { k: 'var' }> => ({ k: 'var', name, ty });
const num = (x: number): Expr => ({ k: 'num', v: x });
const not = (a: Expr): Expr => ({ k: 'un', op: '!', a, ty: BOOL });
const skip = (e: ts.Expression): ts.Expression => {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return e;
};

/** whether a call is one of the array methods with a callback this module lowers (by name) */
export function isCallbackCall(e: ts.Expression): e is ts.CallExpression {
  const c = skip(e);
  if (!ts.isCallExpression(c) || !ts.isPropertyAccessExpression(c.expression)) return false;
  const m = c.expression.name.text;
  if (m === 'from') return ts.isIdentifier(c.expression.expression) && (c.expression.expression.text === 'Array' || isTypedCtor(c.expression.expression.text)) && c.arguments.length === 2;
  return METHODS.has(m);
}

/** a tuple whose elements are all numbers (`[number, number, number]`) */
function isNumberTuple(t: Ty): boolean {
  return t.k === 'tuple' && t.elems.length > 0 && t.elems.every((e) => e.k === 'num' || e.k === 'int');
}

/** how many arguments each method passes its callback (after the accumulator for `reduce`) */
function arityOf(m: Method): number {
  return m === 'reduce' || m === 'reduceRight' ? 4 : m === 'from' ? 2 : 3;
}
const isReduce = (m: Method) => m === 'reduce' || m === 'reduceRight';
const isPredicate = (m: Method) => m === 'filter' || m === 'some' || m === 'every' || isFind(m);
/** `find` and `findIndex`, or ES2023's `findLast` and `findLastIndex` (the same search from the end) */
const isFind = (m: Method) => m === 'find' || m === 'findIndex' || m === 'findLast' || m === 'findLastIndex';
const findsElement = (m: Method) => m === 'find' || m === 'findLast';

export class Callbacks {
  /** local `const f = (…) => …` usable as callbacks, by the symbol of their name */
  private locals = new Map<ts.Symbol, Fn>();

  constructor(private h: CallbackHost) {}

  // ---------- local functions ----------

  /** `const f = (v) => …`: recorded (nothing is emitted); true when the declaration is one */
  declareLocal(d: ts.VariableDeclaration, konst: boolean): boolean {
    const init = d.initializer && skip(d.initializer);
    if (!init || !(ts.isArrowFunction(init) || ts.isFunctionExpression(init)) || !ts.isIdentifier(d.name)) return false;
    if (!konst) {
      this.h.err(d, `the local function '${d.name.text}' is assigned again, or named above its declaration: tsad follows a function given once`, `declare it once, \`const ${d.name.text} = …\`, and give another function a name of its own`);
      return true;
    }
    const sym = this.h.checker.getSymbolAtLocation(d.name);
    if (!sym || !this.checkFn(init)) return true;
    // (one that assigns enclosing variables may still be called directly: src/frontend/closures.ts inlines it)
    this.locals.set(sym, init);
    return true;
  }

  /** an identifier naming a local function outside a callback position: the one error it gets */
  localUse(id: ts.Identifier): boolean {
    const sym = this.h.checker.getSymbolAtLocation(id);
    if (!sym || !this.locals.has(sym)) return false;
    this.h.err(id, `the local function '${id.text}' can only be passed as a callback to an array method (map, forEach, reduce, filter, …)`, 'move it to the top level to call it, or write the computation inline');
    return true;
  }

  // ---------- method calls ----------

  /**
   * Lowers an array method call with a callback. `decl` is the variable declaration it initializes, if
   * any: the new array or the accumulator then takes its name (`bound`). undefined: not an array
   * method call this module lowers (the caller reports it).
   */
  lower(call: ts.CallExpression, decl?: ts.VariableDeclaration): { value: Expr; bound: boolean } | null | undefined {
    const pa = call.expression as ts.PropertyAccessExpression;
    const m = pa.name.text === 'from' ? 'from' : (pa.name.text as Method);
    const recvNode = m === 'from' ? call.arguments[0] : pa.expression;
    const rt = this.h.typeAt(recvNode);
    // (a tuple of numbers is walked like the array it is: `rgb(h).map(f)`)
    if (!rt || (rt.k !== 'arr' && !isNumberTuple(rt))) {
      if (m === 'from') return this.h.err(call, 'only `Array.from(xs, (v, i) => …)` over an array and `Array.from({ length: n }, (_, i) => …)` are supported', 'or allocate with `new Float64Array(n)` and fill it in a loop');
      return undefined;
    }
    if (!this.placeable(call)) return null;
    const stage = this.stage(m, call);
    if (!stage) return null;
    const stages = this.chain(stage, recvNode);
    const srcNode = stages.length > 1 ? (stages[0].call.expression as ts.PropertyAccessExpression).expression : recvNode;
    return this.loop(stages, srcNode, decl);
  }

  /** one method call's callback, checked */
  private stage(m: Method, call: ts.CallExpression): Stage | null {
    const args = call.arguments;
    const cbNode = m === 'from' ? args[1] : args[0];
    const extra = m === 'from' ? args[2] : isReduce(m) ? null : args[1];
    if (args.some(ts.isSpreadElement)) return this.h.err(call, `spread arguments to \`${m}\` are not supported`, 'pass the callback itself');
    if (!cbNode) return this.h.err(call, `\`${m}\` needs a callback`);
    if (extra) return this.h.err(extra, `a \`thisArg\` for \`${m}\` is not supported`, 'use an arrow function, which reads the variables it needs directly');
    if (isReduce(m) && args.length > 2) return this.h.err(args[2], `\`${m}\` takes a callback and an initial value`);
    const cb = this.callback(cbNode, m);
    // a value that must be returned needs every path to return one
    if (cb?.k === 'inline' && m !== 'forEach' && !isPredicate(m)) {
      const sig = this.h.checker.getSignatureFromDeclaration(cb.fn);
      const rt = sig && this.h.checker.getReturnTypeOfSignature(sig);
      if (rt && (rt.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined) || (rt.isUnion() && rt.types.some((t) => t.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined)))))
        return this.h.err(cb.fn, `the callback of \`${m}\` must return a value on every path`, 'add a `return` at the end of the callback');
    }
    // `find` returns the element after the loop: a callback that may write it would change what is read
    const writes = cb?.k === 'inline' ? outerWrites(cb.fn, this.h.checker).length > 0 || passesReference(cb.fn.body, this.h.checker) : cb?.k === 'helper' && cb.arity > 2;
    if (findsElement(m) && writes) return this.h.err(cbNode, `a callback of \`${m}\` that assigns variables or elements, or passes an array or object to a function, is not supported`, `use \`${m}Index\` and read the element at the index`);
    return cb && { method: m, call, cb };
  }

  private callback(node: ts.Expression, m: Method): Callback | null {
    const e = skip(node);
    if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return this.checkFn(e) && this.checkParams(e, m) ? { k: 'inline', fn: e, at: e } : null;
    // `xs.map(Math.exp)`: a one-argument Math function ignores the index and array passed after the value
    if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === 'Math' && MATH_FUNCS.has(e.name.text)) {
      const f = e.name.text;
      if (isReduce(m) || MATH_NARY.has(f) || MATH_BINARY.has(f)) return this.h.err(e, `\`${m}\` would pass \`Math.${f}\` ${isReduce(m) ? 'the accumulator, ' : ''}the index and the array as well as the value`, `pass an arrow function saying which arguments it takes: \`${isReduce(m) ? '(a, v) => …' : MATH_BINARY.has(f) ? `(v, i) => Math.${f}(v, i)\` for what this computes, or \`(v) => Math.${f}(v, 2)` : `(v) => Math.${f}(v)`}\``);
      return { k: 'math', fn: `Math.${f}`, at: e };
    }
    if (ts.isIdentifier(e)) {
      if (this.h.refused(e)) return null;
      const sym = this.h.checker.getSymbolAtLocation(e);
      const chosen = sym?.declarations?.[0];
      if (chosen && ts.isVariableDeclaration(chosen) && chosen.initializer && ts.isConditionalExpression(skip(chosen.initializer)))
        return this.h.err(e, `'${e.text}' holds a function chosen by a condition, which \`${m}\` cannot take as its callback`, `pass an arrow that calls it: \`${isReduce(m) ? `(a, v) => ${e.text}(a, v)` : `(v) => ${e.text}(v)`}\``);
      // (a nested `function g(…) { … }` too: src/frontend/closures.ts checks it where it is declared)
      const decl = sym?.declarations?.[0];
      const local = sym && (this.locals.get(sym) ?? (decl && ts.isFunctionDeclaration(decl) && decl.body && isLocalFunctionDecl(decl, this.h.checker) ? (decl as Fn) : undefined));
      // written out where it is passed: one that passes itself would be written out forever
      if (local && local.pos <= e.pos && e.end <= local.end) return this.h.err(e, `the local function '${e.text}' passes itself as a callback (recursion)`, 'write a top-level function, which may call itself');
      const w = local && outerWrites(local, this.h.checker)[0];
      if (w) return this.h.err(e, `the local function '${e.text}' assigns '${w.getText()}', a variable of the enclosing function, and cannot be passed as a callback`, 'write the callback inline (`xs.forEach((v) => { … })`), where the assignment is a statement of the loop, or return the value and assign it at the call');
      if (local) return this.checkParams(local, m) ? { k: 'inline', fn: local, at: e } : null;
      const f = this.h.helper(e);
      if (f) {
        if (f.params.length > arityOf(m)) return this.h.err(e, `'${e.text}' takes ${f.params.length} parameters, more than \`${m}\` passes its callback`, `pass an arrow function: \`(v) => ${e.text}(v, …)\``);
        if (f.params.some((p) => p.dotDotDotToken)) return this.h.err(e, `'${e.text}' has a rest parameter`, `pass an arrow function: \`(v) => ${e.text}(v)\``);
        if (!f.ret) return this.h.err(e, `the result of '${e.text}' has a type tsad cannot differentiate through`, 'return a number, an array or an object of numbers');
        return { k: 'helper', name: f.name, arity: f.params.length, ret: f.ret, at: e };
      }
    }
    return this.h.err(node, `the callback of \`${m}\` must be an arrow function, a function expression, a local \`const f = (…) => …\` or a top-level function`, 'write the callback inline: `xs.' + (m === 'from' ? 'map' : m) + '((v, i) => …)`');
  }

  /** what a function value must be to be written out in a loop body */
  private checkFn(fn: Fn): boolean {
    if (fn.asteriskToken) return !!this.h.err(fn, 'generator functions are not supported', 'return the values in an array');
    if (fn.modifiers?.some((x) => x.kind === ts.SyntaxKind.AsyncKeyword)) return !!this.h.err(fn, '`async` callbacks are not supported', 'write synchronous code');
    const bad = usesThis(fn);
    if (bad) return !!this.h.err(bad, `\`${(bad as ts.Node).getText()}\` in a callback is not supported`, 'read the values the callback needs directly, as variables of the enclosing function');
    return true;
  }

  private checkParams(fn: Fn, m: Method): boolean {
    for (const p of fn.parameters) {
      if (p.dotDotDotToken || p.initializer) return !!this.h.err(p, 'rest parameters and defaults in a callback are not supported', `\`${m}\` passes ${arityOf(m)} arguments: name them`);
    }
    if (fn.parameters.length > arityOf(m)) return !!this.h.err(fn.parameters[arityOf(m)], `\`${m}\` passes its callback ${arityOf(m)} arguments`, 'remove the extra parameter');
    return true;
  }

  /**
   * Whether the call can be lowered to statements evaluated before the expression holding it: not in
   * a branch of `?:`, `&&`, `||`, `??` (the loop would run unconditionally). An operand JavaScript
   * evaluates before it and that the loop could see changed (a call, above all) is taken into a
   * temporary first by src/frontend/sequencing.ts.
   */
  private placeable(call: ts.CallExpression): boolean {
    // the receiver of a method with a callback is evaluated before anything else of that method
    let top: ts.Node = call;
    while (ts.isPropertyAccessExpression(top.parent) && top.parent.expression === top && isCallbackCall(top.parent.parent as ts.Expression) && (top.parent.parent as ts.CallExpression).expression === top.parent)
      top = top.parent.parent;
    let c: ts.Node = call;
    // (a conditional lowered as an `if`, chosenDecl in lower.ts, is where its branches' statements go)
    while (c.parent && ts.isExpression(c.parent) && !ts.isArrowFunction(c.parent) && !ts.isFunctionExpression(c.parent) && !this.h.isUnfolded(c.parent)) {
      const p = c.parent;
      const branch = (ts.isConditionalExpression(p) && c !== p.condition) ||
        (ts.isBinaryExpression(p) && c === p.right && [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(p.operatorToken.kind));
      if (branch) return !!this.h.err(call, 'an array method with a callback in a branch of `? :`, `&&`, `||` or `??` is not supported (its loop would run unconditionally)', 'compute it into a variable inside an `if`');
      c = p;
    }
    // a callback assigning enclosing variables runs in the middle of its statement only as a statement
    // (the expression body of a `forEach` callback is lowered as a statement of its loop)
    const forEachBody = (ts.isArrowFunction(c.parent) && c.parent.body === c && ts.isCallExpression(c.parent.parent) && ts.isPropertyAccessExpression(c.parent.parent.expression) && c.parent.parent.expression.name.text === 'forEach');
    const nested = !(ts.isExpressionStatement(c.parent) || forEachBody || (ts.isVariableDeclaration(c.parent) && c.parent.initializer === c) ||
      (c === top && ts.isBinaryExpression(top.parent) && top.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isExpressionStatement(top.parent.parent)));
    if (nested || c !== top) {
      for (const a of call.arguments) {
        const fn = skip(a);
        const w = (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && outerWrites(fn, this.h.checker)[0];
        if (w) return !!this.h.err(w, `a callback assigning '${w.getText()}' inside a larger expression is not supported`, 'call the method in a statement of its own (`xs.forEach((v) => { … });`)');
      }
    }
    return true;
  }

  /**
   * The stages of a chain ending in `last`: `xs.map(f).filter(p).reduce(g, 0)` is map, filter, reduce
   * over xs, fused into one loop when every callback only computes values (writes nothing, calls no
   * helper), the earlier ones are a single expression, none reads the array it is given, and a stage
   * after a `filter` does not read its index. Otherwise the receiver is an array of its own.
   */
  private chain(last: Stage, recvNode: ts.Expression): Stage[] {
    if (last.method === 'from' || last.method === 'flatMap' || last.method === 'reduceRight' || isFind(last.method)) return [last];
    if (isReduce(last.method) && last.call.arguments.length < 2) return [last];
    const stages = [last];
    let r = skip(recvNode);
    while (isCallbackCall(r) && ts.isPropertyAccessExpression(r.expression) && (r.expression.name.text === 'map' || r.expression.name.text === 'filter')) {
      const t = this.h.typeAt(r.expression.expression);
      if (!t || t.k !== 'arr' || r.arguments.length !== 1) break;
      const fn = skip(r.arguments[0]);
      const inl = (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) ? fn : null;
      if (!inl || !singleValue(inl) || inl.parameters.length > 2 || !inl.parameters.every((p) => ts.isIdentifier(p.name) && !p.initializer && !p.dotDotDotToken)) break;
      stages.unshift({ method: r.expression.name.text as Method, call: r, cb: { k: 'inline', fn: inl, at: inl } });
      r = skip(r.expression.expression);
    }
    if (stages.length === 1) return stages;
    const ok = stages.every((s, k) => {
      if (s.cb.k !== 'inline' || usesThis(s.cb.fn)) return false;
      const ps = s.cb.fn.parameters;
      const valueAt = isReduce(s.method) ? 1 : 0;
      if (k > 0 && ps.length > valueAt + 2) return false; // reads the intermediate array
      if (k > 0 && stages.slice(0, k).some((x) => x.method === 'filter') && ps.length > valueAt + 1) return false; // its index
      return pure(s.cb.fn, this.h.checker);
    });
    return ok ? stages : [last];
  }

  // ---------- the loop ----------

  private loop(stages: Stage[], srcNode: ts.Expression, decl?: ts.VariableDeclaration): { value: Expr; bound: boolean } | null {
    const h = this.h;
    const last = stages[stages.length - 1];
    const m = last.method;
    const loc = h.locOf(last.call);
    const inlineFns = stages.flatMap((s) => (s.cb.k === 'inline' ? [s.cb.fn] : []));
    // the array, evaluated once (a temporary when it is not a variable the callbacks leave alone)
    let src = h.expr(srcNode);
    if (!src) return null;
    const srcId = ts.isIdentifier(skip(srcNode)) ? h.checker.getSymbolAtLocation(skip(srcNode)) : undefined;
    const rebinds = inlineFns.some((fn) => outerWrites(fn, h.checker).some((w) => h.checker.getSymbolAtLocation(w) === srcId));
    if (src.k !== 'var' || rebinds) {
      const t = h.fresh(src.k === 'field' ? src.name : 'items');
      h.emit({ k: 'decl', name: t, ty: tyOf(src), init: src, konst: true, loc });
      src = v(t, tyOf(src));
    }
    const t0 = tyOf(src);
    const srcTy: Extract<Ty, { k: 'arr' }> = t0.k === 'arr' ? t0 : { k: 'arr', elem: NUM, typed: false, ro: true };
    // the initial value of a reduce, evaluated after the array (as JavaScript evaluates arguments)
    let init: Expr | null = null;
    if (isReduce(m) && last.call.arguments[1]) {
      init = h.expr(last.call.arguments[1]);
      if (!init) return null;
    }
    // removing elements while the method runs makes JavaScript skip the positions removed: not followed
    for (const fn of inlineFns) {
      const at = shrinkingCall(fn.body, h.checker, srcId);
      if (at) return h.err(at, `the callback of \`${m}\` removes elements from the array \`${m}\` runs over: JavaScript then skips the positions removed, which tsad does not follow`, 'iterate over a copy (`xs.slice().forEach(…)`), or write a `for` loop');
    }
    // the length, read once before the loop when a callback may change it (a push, a store past the
    // end, a helper)
    let len: Expr = { k: 'len', obj: src };
    if (inlineFns.some((fn) => containsHelperCall(fn.body) || outerWrites(fn, h.checker).length > 0) || stages.some((s) => s.cb.k === 'helper')) {
      const n = h.fresh('n');
      h.emit({ k: 'decl', name: n, ty: INT, init: len, konst: true, loc });
      len = v(n, INT);
    }
    // the loop counter takes the name of the first callback's index parameter when it keeps its value
    const first = stages[0];
    const ip = first.cb.k === 'inline' ? first.cb.fn.parameters[isReduce(first.method) ? 2 : 1] : undefined;
    const ipKept = ip && !outerWrites((first.cb as Extract<Callback, { k: 'inline' }>).fn, h.checker, true).some((w) => h.checker.getSymbolAtLocation(w) === h.checker.getSymbolAtLocation(ip.name));
    const i = h.fresh(ip && ipKept ? (ip.name as ts.Identifier).text : 'i');
    const iv = v(i, INT);
    const desc = m === 'reduceRight' || m === 'findLast' || m === 'findLastIndex';

    // the result: the new array, the accumulator, or the flag / index a search sets
    const resTy = h.typeAt(last.call);
    if (!resTy && m !== 'forEach') return h.err(last.call, `the result of \`${m}\` has a type tsad cannot differentiate through`, 'use number, number[] (nested), Float64Array or interfaces of these');
    const name = (base: string) => h.fresh(decl && ts.isIdentifier(decl.name) ? decl.name.text : base);
    const filtered = stages.slice(0, -1).some((s) => s.method === 'filter');
    const head: Stmt[] = [];
    const tail: Stmt[] = [];
    let result: Expr = { k: 'undef' };
    let out: Extract<Expr, { k: 'var' }> | null = null;
    let acc: Extract<Expr, { k: 'var' }> | null = null;
    let found: Extract<Expr, { k: 'var' }> | null = null;
    const konst = decl ? (decl.parent.flags & ts.NodeFlags.Const) !== 0 : true;
    if (m === 'map' || m === 'from' || m === 'filter' || m === 'flatMap') {
      if (!resTy || resTy.k !== 'arr') return h.err(last.call, `the result of \`${m}\` is not an array tsad can type`, 'annotate the variable, e.g. `const ys: number[] = …`');
      const pushed = m !== 'map' && m !== 'from' || filtered;
      // a Float64Array's filter builds a plain array first (push needs one), then copies it
      const buildTy: Ty = pushed && resTy.typed ? { ...resTy, typed: false, ro: false } : { ...resTy, ro: false };
      const o = name(m === 'filter' ? 'kept' : 'mapped');
      out = v(o, buildTy);
      const elem = buildTy.k === 'arr' ? buildTy.elem : NUM;
      const alloc: Expr = pushed ? { k: 'arrlit', elems: [], ty: buildTy } : { k: 'alloc', len, fill: elem.k === 'num' ? num(0) : null, ty: buildTy };
      head.push({ k: 'decl', name: o, ty: buildTy, init: alloc, konst: resTy.typed && pushed ? true : konst, loc });
      result = out;
      if (pushed && resTy.typed) {
        const c = name('kept');
        tail.push({ k: 'decl', name: c, ty: resTy, init: { k: 'intr', fn: 'copy', args: [out], ty: resTy }, konst, loc });
        result = v(c, resTy);
      }
    } else if (isReduce(m)) {
      const a = name('acc');
      acc = v(a, resTy!);
      if (!init) {
        // JavaScript throws on an empty array without an initial value; else the first element starts
        head.push({ k: 'if', c: { k: 'bin', op: '===', a: len, b: num(0), ty: BOOL }, then: [{ k: 'throw', e: { k: 'raw', text: "new TypeError('Reduce of empty array with no initial value')", ty: VOID }, loc }], else: [], loc });
        init = { k: 'idx', obj: src, index: desc ? { k: 'bin', op: '-', a: len, b: num(1), ty: INT } : num(0), ty: srcTy.elem };
      }
      head.push({ k: 'decl', name: a, ty: resTy!, init, konst: false, loc });
      result = acc;
    } else if (m === 'some' || m === 'every') {
      const f = name(m === 'some' ? 'any' : 'all');
      found = v(f, BOOL);
      head.push({ k: 'decl', name: f, ty: BOOL, init: { k: 'bool', v: m === 'every' }, konst: false, loc });
      result = found;
    } else if (isFind(m)) {
      const f = h.fresh((m === 'findIndex' || m === 'findLastIndex') && decl && ts.isIdentifier(decl.name) ? decl.name.text : 'at');
      found = v(f, INT);
      head.push({ k: 'decl', name: f, ty: INT, init: num(-1), konst: false, loc });
      result = found;
      if (findsElement(m)) {
        // the element found, or undefined: a constant (a nullable value is read through a name)
        const r = name('found');
        const pick: Expr = { k: 'cond', c: { k: 'bin', op: '>=', a: found, b: num(0), ty: BOOL }, a: { k: 'idx', obj: src, index: found, ty: srcTy.elem }, b: { k: 'undef' }, ty: resTy! };
        tail.push({ k: 'decl', name: r, ty: resTy!, init: pick, konst: true, loc });
        result = v(r, resTy!);
      }
    }

    // the body: each stage in turn on the value the one before passes on
    const body: Stmt[] = [];
    let value: Expr = { k: 'idx', obj: src, index: iv, ty: srcTy.elem };
    if (first.method === 'filter') {
      // the element a filter keeps is the one its predicate saw: read once, before the predicate runs
      const t = h.fresh(firstParamName(first) ?? 'item');
      body.push({ k: 'decl', name: t, ty: srcTy.elem, init: value, konst: true, loc });
      value = v(t, srcTy.elem);
    }
    let sinkBody: Stmt[] = body;
    for (const [k, s] of stages.entries()) {
      const isLast = k === stages.length - 1;
      const array = k === 0 ? src : null;
      if (!isLast) {
        // a fused stage: a mapped value, or a filter's test around the rest
        const r = this.apply(s, value, iv, array, null, sinkBody);
        if (!r) return null;
        if (s.method === 'filter' && !testable(r)) return h.err(s.cb.at, 'the callback of `filter` must return a boolean or a number', 'compare explicitly, e.g. `(v) => v > 0`');
        if (s.method === 'map') {
          // named as the next callback calls the value
          const next = stages[k + 1];
          const pn = next.cb.k === 'inline' ? next.cb.fn.parameters[isReduce(next.method) ? 1 : 0]?.name : undefined;
          const t = h.fresh(pn && ts.isIdentifier(pn) ? pn.text : 'mapped');
          sinkBody.push({ k: 'decl', name: t, ty: tyOf(r), init: r, konst: true, loc });
          value = v(t, tyOf(r));
        } else {
          const inner: Stmt[] = [];
          sinkBody.push({ k: 'if', c: truthy(r), then: inner, else: [], loc });
          sinkBody = inner;
        }
        continue;
      }
      const ok = this.terminal(s, value, iv, array, acc, out, found, filtered, sinkBody, loc);
      if (!ok) return null;
    }
    const first0: Expr = desc ? { k: 'bin', op: '-', a: len, b: num(isReduce(m) && last.call.arguments.length < 2 ? 2 : 1), ty: INT } : num(isReduce(m) && last.call.arguments.length < 2 ? 1 : 0);
    const loopSt: Stmt = {
      k: 'for',
      init: [{ k: 'decl', name: i, ty: INT, init: first0, konst: false }],
      cond: desc ? { k: 'bin', op: '>=', a: iv, b: num(0), ty: BOOL } : { k: 'bin', op: '<', a: iv, b: len, ty: BOOL },
      update: [{ k: 'assign', target: iv, value: { k: 'bin', op: desc ? '-' : '+', a: iv, b: num(1), ty: INT }, op: desc ? '-' : '+', inc: true }],
      body,
      loc,
      origin: FORM_OF[m],
    };
    for (const st of [...head, loopSt, ...tail]) h.emit(st);
    const bound = !!decl && result.k === 'var';
    if (bound) h.bind(decl!, (result as Extract<Expr, { k: 'var' }>).name, tyOf(result));
    return { value: result, bound };
  }

  /** the last stage: what the method does with each value its callback returns */
  private terminal(s: Stage, value: Expr, iv: Extract<Expr, { k: 'var' }>, array: Expr | null, acc: Extract<Expr, { k: 'var' }> | null,
    out: Extract<Expr, { k: 'var' }> | null, found: Extract<Expr, { k: 'var' }> | null, filtered: boolean, body: Stmt[], loc: Loc): boolean {
    const h = this.h;
    const m = s.method;
    if (m === 'forEach') return !!this.apply(s, value, iv, array, null, body, 'effects');
    if (m === 'map' || m === 'from') {
      const ot = out!.ty as Extract<Ty, { k: 'arr' }>;
      const target: LValue = { k: 'idx', obj: out!, index: iv, ty: ot.elem };
      if (filtered) {
        const r = this.apply(s, value, iv, array, null, body);
        if (r) body.push({ k: 'expr', e: { k: 'intr', fn: 'push', args: [out!, r], ty: VOID }, loc });
        return !!r;
      }
      return !!this.apply(s, value, iv, array, null, body, target);
    }
    if (isReduce(m)) return !!this.apply(s, value, iv, array, acc, body, acc!);
    if (m === 'flatMap') {
      const r = this.apply(s, value, iv, array, null, body);
      if (!r) return false;
      const st = this.flatten(r, out!, s, loc);
      if (!st) return false;
      body.push(...st);
      return true;
    }
    // predicates: the element is kept, or the search stops, where the callback's value is truthy
    const r = this.apply(s, value, iv, array, null, body);
    if (!r) return false;
    if (!testable(r)) return !!h.err(s.cb.at, `the callback of \`${m}\` must return a boolean or a number`, 'compare explicitly, e.g. `(v) => v > 0`');
    const t = truthy(r);
    if (m === 'filter') body.push({ k: 'if', c: t, then: [{ k: 'expr', e: { k: 'intr', fn: 'push', args: [out!, value], ty: VOID } }], else: [], loc });
    else if (m === 'some') body.push({ k: 'if', c: t, then: [{ k: 'assign', target: found!, value: { k: 'bool', v: true } }, { k: 'break' }], else: [], loc });
    else if (m === 'every') body.push({ k: 'if', c: not(t), then: [{ k: 'assign', target: found!, value: { k: 'bool', v: false } }, { k: 'break' }], else: [], loc });
    else body.push({ k: 'if', c: t, then: [{ k: 'assign', target: found!, value: iv }, { k: 'break' }], else: [], loc });
    return true;
  }

  /**
   * The pushes of one flatMap value: an array's elements (a literal's one by one, a `? :` between
   * arrays as an `if`), or the value itself.
   */
  private flatten(r: Expr, out: Extract<Expr, { k: 'var' }>, s: Stage, loc: Loc): Stmt[] | null {
    const h = this.h;
    const rt = tyOf(r);
    const push = (x: Expr): Stmt => ({ k: 'expr', e: { k: 'intr', fn: 'push', args: [out, x], ty: VOID }, loc });
    if (r.k === 'arrlit') return r.elems.map(push);
    if (rt.k === 'tuple') return h.err(s.cb.at, 'a callback of `flatMap` returning a tuple variable is not supported', 'return an array literal `[a, b]` or a `number[]`');
    if (rt.k !== 'arr') return [push(r)];
    if (r.k === 'cond') {
      const a = this.flatten(r.a, out, s, loc);
      const b = this.flatten(r.b, out, s, loc);
      return a && b && [{ k: 'if', c: r.c, then: a, else: b, loc }];
    }
    const out0: Stmt[] = [];
    let part = r;
    if (r.k !== 'var') {
      const t = h.fresh('part');
      out0.push({ k: 'decl', name: t, ty: rt, init: r, konst: true, loc });
      part = v(t, rt);
    }
    const j = h.fresh('j');
    const jv = v(j, INT);
    out0.push({
      k: 'for',
      init: [{ k: 'decl', name: j, ty: INT, init: num(0), konst: false }],
      cond: { k: 'bin', op: '<', a: jv, b: { k: 'len', obj: part }, ty: BOOL },
      update: [{ k: 'assign', target: jv, value: { k: 'bin', op: '+', a: jv, b: num(1), ty: INT }, op: '+', inc: true }],
      body: [push({ k: 'idx', obj: part, index: jv, ty: rt.elem })],
      loc,
    });
    return out0;
  }

  /**
   * Calls a stage's callback on (value, index, array) with its body written into `body`. Its result is
   * stored into `sink` at each `return` (an lvalue: the new array's element, the accumulator), dropped
   * ('effects': forEach), or returned as an expression (a temporary when the body returns in several
   * places). null: an error was reported.
   */
  private apply(s: Stage, value: Expr, index: Extract<Expr, { k: 'var' }>, array: Expr | null, acc: Expr | null, body: Stmt[], sink?: LValue | 'effects'): Expr | null {
    const h = this.h;
    const m = s.method;
    const cb = s.cb;
    const passed: Expr[] = [...(acc ? [acc] : []), value, index, ...(array ? [array] : [])];
    const loc = h.locOf(cb.at);
    if (cb.k === 'helper') {
      if (cb.arity > passed.length) return h.err(cb.at, `'${cb.name}' reads the array \`${m}\` passes, which is not available here`, 'pass an arrow function');
      const call: Expr = { k: 'call', fn: cb.name, args: passed.slice(0, cb.arity), ty: cb.ret };
      return this.deliver(call, sink, body, loc);
    }
    if (cb.k === 'math') return this.deliver({ k: 'intr', fn: cb.fn, args: [value], ty: MATH_INTEGRAL.has(cb.fn.slice(5)) ? INT : NUM }, sink, body, loc);
    const fn = cb.fn;
    if (fn.parameters.length > passed.length) return h.err(fn.parameters[passed.length], 'this callback parameter reads the intermediate array of a chain, which is not built', 'call the method on an array of its own');
    // the parameters: bound to the values passed, or copies of them when the body assigns the parameter
    const assigned = new Set(outerWrites(fn, h.checker, true).map((w) => h.checker.getSymbolAtLocation(w)));
    const [result, stmts] = h.capture(() => {
      for (const [k, p] of fn.parameters.entries()) {
        const x = passed[k];
        const ty = tyOf(x);
        // a destructured parameter, `([x, y], i) => …`: its names declared from the element
        if (!ts.isIdentifier(p.name)) {
          for (const st of h.destructure(p.name, x, p)) h.emit(st);
          continue;
        }
        const sym = h.checker.getSymbolAtLocation(p.name);
        const pname = (p.name as ts.Identifier).text;
        if (x.k === 'var' && (!assigned.has(sym) || x === acc)) h.bind(p, x.name, ty);
        else {
          const n = h.fresh(pname);
          h.emit({ k: 'decl', name: n, ty: ty.k === 'int' && assigned.has(sym) ? NUM : ty, init: x, konst: !assigned.has(sym), loc: h.locOf(p) });
          h.bind(p, n, ty.k === 'int' && assigned.has(sym) ? NUM : ty);
        }
      }
      if (!ts.isBlock(fn.body)) {
        if (sink === 'effects') {
          // (no statement and no error: its effect is in what it emitted, `(v) => local(v)`, `(v) => a.reverse()`)
          const st = h.exprStmt(fn.body);
          if (st) h.emit(st);
          return st || !h.failed() ? ({ k: 'undef' } as Expr) : null;
        }
        const r = h.expr(fn.body);
        return r && this.deliver(r, sink, null, loc);
      }
      const lowered = h.block(fn.body);
      return this.returns(lowered, fn, s, sink, loc);
    });
    if (result === null) return null;
    body.push(...stmts);
    return result;
  }

  /** the value of a callback: stored into the sink (its statement appended), or kept as an expression */
  private deliver(r: Expr, sink: LValue | 'effects' | undefined, body: Stmt[] | null, loc: Loc): Expr {
    const emit = (st: Stmt) => (body ? body.push(st) : this.h.emit(st));
    if (sink === 'effects') {
      if (r.k === 'call' || r.k === 'intr') emit({ k: 'expr', e: r, loc });
      return { k: 'undef' };
    }
    if (sink) {
      emit({ k: 'assign', target: sink, value: r, loc, ...accumulation(sink, r) });
      return sink;
    }
    return r;
  }

  /**
   * A block body's `return`s: the last statement's return delivers its value in place; any other
   * `return` delivers it and jumps to the end of the body (a labelled block around it). A predicate's
   * or mapped value returned in several places goes through a temporary.
   */
  private returns(lowered: Stmt[], fn: Fn, s: Stage, sink: LValue | 'effects' | undefined, loc: Loc): Expr | null {
    const h = this.h;
    const last = lowered[lowered.length - 1];
    const others = countReturns(lowered) - (last?.k === 'return' ? 1 : 0);
    if (others === 0 && last?.k === 'return') {
      lowered.pop();
      for (const st of lowered) h.emit(st);
      if (!last.e) return sink === 'effects' ? { k: 'undef' } : isPredicate(s.method) ? { k: 'bool', v: false } : h.err(fn, 'the callback must return a value');
      return this.deliver(last.e, sink, null, loc);
    }
    if (others === 0) {
      // no return: forEach's body (a predicate that never returns is falsy; a value callback is refused earlier)
      for (const st of lowered) h.emit(st);
      return sink === 'effects' ? { k: 'undef' } : isPredicate(s.method) ? { k: 'bool', v: false } : h.err(fn, 'the callback must return a value');
    }
    let target: LValue | 'effects' = sink ?? 'effects';
    let temp: Expr | null = null;
    if (!sink) {
      if (!isPredicate(s.method)) return h.err(fn, `a callback of \`${s.method}\` returning in several places is not supported here`, 'compute the value into a variable and return it once at the end');
      // a predicate's value: false unless a `return` says otherwise (falling off the end returns undefined)
      const t = h.fresh('ok');
      h.emit({ k: 'decl', name: t, ty: BOOL, init: { k: 'bool', v: false }, konst: false, loc });
      target = v(t, BOOL);
      temp = target;
    }
    const label = h.fresh('callback');
    const rewrite = (list: Stmt[]): Stmt[] =>
      list.flatMap((st): Stmt[] => {
        if (st.k === 'return') {
          const out: Stmt[] = [];
          if (st.e) {
            if (target === 'effects') {
              if (st.e.k === 'call' || st.e.k === 'intr') out.push({ k: 'expr', e: st.e, loc: st.loc });
            } else out.push({ k: 'assign', target, value: temp ? truthy(st.e) : st.e, loc: st.loc });
          }
          return [...out, { k: 'break', label, loc: st.loc }];
        }
        return [mapBodies(st, rewrite)];
      });
    const rewritten = rewrite(lowered);
    // the last statement's jump goes to where the body ends anyway
    if (last?.k === 'return') rewritten.pop();
    h.emit({ k: 'block', label, body: rewritten, loc });
    return temp ?? (sink === 'effects' || !sink ? { k: 'undef' } : sink);
  }
}

/** a `this` or `arguments` in a function's body (what it would mean depends on how it is called) */
function usesThis(fn: Fn): ts.Node | null {
  let bad: ts.Node | null = null;
  // an arrow's `this` is the enclosing method's, written out with the body in its loop; a function
  // expression's is whatever the array method passes (undefined)
  const lexical = ts.isArrowFunction(fn);
  const visit = (n: ts.Node): void => {
    if (bad) return;
    if ((n.kind === ts.SyntaxKind.ThisKeyword && !lexical) || (ts.isIdentifier(n) && n.text === 'arguments' && !ts.isPropertyAccessExpression(n.parent))) bad = n;
    else n.forEachChild(visit);
  };
  visit(fn.body);
  return bad;
}

/** whether a predicate's value has a truthiness tsad tests: a boolean or a number */
function testable(e: Expr): boolean {
  const k = tyOf(e).k;
  return k === 'bool' || k === 'num' || k === 'int';
}

/** truthiness, as a predicate's result is tested: numbers are true unless 0, -0 or NaN */
function truthy(e: Expr): Expr {
  const t = tyOf(e);
  if (t.k === 'bool') return e;
  return not(not(e));
}

function firstParamName(s: Stage): string | null {
  const p = s.cb.k === 'inline' ? s.cb.fn.parameters[0] : undefined;
  return p && ts.isIdentifier(p.name) ? p.name.text : null;
}

/** an expression body, or a block holding a single `return e` */
function singleValue(fn: Fn): boolean {
  return !ts.isBlock(fn.body) || (fn.body.statements.length === 1 && ts.isReturnStatement(fn.body.statements[0]) && !!fn.body.statements[0].expression);
}

/** whether a node calls something other than Math, Number or the global number tests (a helper, a method) */
function containsHelperCall(n: ts.Node): boolean {
  let found = false;
  const visit = (x: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(x)) {
      const c = skip(x.expression);
      const builtin = (ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && (c.expression.text === 'Math' || c.expression.text === 'Number')) ||
        (ts.isIdentifier(c) && (c.text === 'isFinite' || c.text === 'isNaN'));
      if (!builtin) {
        found = true;
        return;
      }
    }
    x.forEachChild(visit);
  };
  visit(n);
  return found;
}

/** a `pop`, `shift`, `splice` or `length` store in `n` on the array `src` (on any array where `src` is unknown) */
function shrinkingCall(n: ts.Node, checker: ts.TypeChecker, src: ts.Symbol | undefined): ts.Node | null {
  let found: ts.Node | null = null;
  const rootIs = (e: ts.Expression): boolean => {
    let x = skip(e);
    while (ts.isPropertyAccessExpression(x) || ts.isElementAccessExpression(x)) x = skip(x.expression);
    return !src || (ts.isIdentifier(x) && checker.getSymbolAtLocation(x) === src);
  };
  const visit = (x: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(x) && ts.isPropertyAccessExpression(x.expression) && ['pop', 'shift', 'splice'].includes(x.expression.name.text) && rootIs(x.expression.expression)) found = x;
    else if (ts.isBinaryExpression(x) && x.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && x.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
      const l = skip(x.left);
      if (ts.isPropertyAccessExpression(l) && l.name.text === 'length' && rootIs(l.expression)) found = x;
    }
    x.forEachChild(visit);
  };
  visit(n);
  return found;
}

/**
 * The targets (identifiers) of assignments and increments in a function's body to variables declared
 * outside it — or, with `own`, to its own parameters. Element and field stores count by their root.
 */
function outerWrites(fn: Fn, checker: ts.TypeChecker, own = false): ts.Identifier[] {
  // (through the local functions it calls too: src/frontend/closures.ts writes them out in its body)
  if (!own) return writesOutside(fn, checker, (d) => isLocalFunctionDecl(d, checker));
  const out: ts.Identifier[] = [];
  const inside = (d: ts.Node) => d.pos >= fn.pos && d.end <= fn.end;
  const isParam = (d: ts.Node) => ts.isParameter(d) && d.parent === fn;
  const root = (e: ts.Expression): ts.Identifier | null => {
    let x = skip(e);
    if (own) return ts.isIdentifier(x) ? x : null; // a parameter is reassigned only as itself
    while (ts.isPropertyAccessExpression(x) || ts.isElementAccessExpression(x)) x = skip(x.expression);
    return ts.isIdentifier(x) ? x : null;
  };
  const note = (target: ts.Expression) => {
    const id = root(target);
    if (!id) return;
    const decl = checker.getSymbolAtLocation(id)?.declarations?.[0];
    if (!decl) return;
    if (own ? isParam(decl) : !inside(decl)) out.push(id);
  };
  const visit = (n: ts.Node): void => {
    if (ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
      const l = skip(n.left);
      if (ts.isArrayLiteralExpression(l)) l.elements.forEach((el) => note(el as ts.Expression));
      else note(l);
    } else if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken)) note(n.operand);
    n.forEachChild(visit);
  };
  visit(fn.body);
  return out;
}

/** a callback that only computes a value: it writes nothing outside itself and calls no helper */
/**
 * Whether a call in `n` (not of Math's) is given an array or object (not built as a literal right there)
 * by a function that may write into one: its body stores into an element or field, calls a method that
 * changes an array, or passes one on to a function that may. A callee tsad cannot see may write.
 */
function passesReference(n: ts.Node, checker: ts.TypeChecker, seen = new Set<ts.Node>()): boolean {
  let found = false;
  const visit = (x: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(x) && !isMathCall(x) && containsHelperCall(x)) {
      const givesReference = x.arguments.some((a) => {
        const e = skip(a);
        return ts.isSpreadElement(e) || (!ts.isArrayLiteralExpression(e) && !ts.isObjectLiteralExpression(e) && !!(checker.getTypeAtLocation(e).flags & ts.TypeFlags.Object));
      });
      if (givesReference && calleeMayWrite(x, checker, seen)) found = true;
    }
    x.forEachChild(visit);
  };
  visit(n);
  return found;
}

const MUTATORS = new Set(['push', 'pop', 'shift', 'unshift', 'splice', 'fill', 'reverse', 'sort', 'set', 'copyWithin']);

function calleeMayWrite(call: ts.CallExpression, checker: ts.TypeChecker, seen: Set<ts.Node>): boolean {
  const callee = skip(call.expression);
  if (!ts.isIdentifier(callee)) return true;
  const d0 = checker.getSymbolAtLocation(callee)?.declarations?.[0];
  // (a `const dot = (a, b) => …` never reassigned is that function)
  const init = d0 && ts.isVariableDeclaration(d0) && d0.parent.flags & ts.NodeFlags.Const && d0.initializer ? skip(d0.initializer) : undefined;
  const decl = init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) ? init : d0;
  if (!decl || !(ts.isFunctionDeclaration(decl) || ts.isArrowFunction(decl) || ts.isFunctionExpression(decl)) || !decl.body) return true;
  if (seen.has(decl)) return false; // (recursion: its other calls are looked at where they are)
  seen.add(decl);
  let writes = false;
  const storeTarget = (t: ts.Expression) => {
    const x = skip(t);
    return ts.isElementAccessExpression(x) || ts.isPropertyAccessExpression(x) || ts.isArrayLiteralExpression(x) || ts.isObjectLiteralExpression(x);
  };
  const visit = (x: ts.Node): void => {
    if (writes) return;
    if (ts.isBinaryExpression(x) && x.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && x.operatorToken.kind <= ts.SyntaxKind.LastAssignment && storeTarget(x.left)) writes = true;
    else if ((ts.isPrefixUnaryExpression(x) || ts.isPostfixUnaryExpression(x)) && (x.operator === ts.SyntaxKind.PlusPlusToken || x.operator === ts.SyntaxKind.MinusMinusToken) && storeTarget(x.operand)) writes = true;
    else if (ts.isCallExpression(x) && ts.isPropertyAccessExpression(skip(x.expression)) && MUTATORS.has((skip(x.expression) as ts.PropertyAccessExpression).name.text)) writes = true;
    else if (ts.isCallExpression(x) && passesReference(x, checker, seen)) writes = true;
    if (!writes) x.forEachChild(visit);
  };
  visit(decl.body);
  return writes;
}

const isMathCall = (x: ts.CallExpression) => {
  const c = skip(x.expression);
  return ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && (c.expression.text === 'Math' || c.expression.text === 'Number');
};

function pure(fn: Fn, checker: ts.TypeChecker): boolean {
  return outerWrites(fn, checker).length === 0 && !containsHelperCall(fn.body);
}

/**
 * `acc = acc + e` (a reducer `(s, v) => s + e`, `s - e`) is the compound assignment `acc += e`: recorded
 * as one (`op`), it is the accumulation the analyses recognise (reduction loops, merged increments)
 * instead of an overwrite of `acc`. The value stays the full right-hand side, evaluated in the same order.
 */
function accumulation(sink: LValue, r: Expr): { op?: '+' | '-' } {
  if (sink.k !== 'var' || r.k !== 'bin' || (r.op !== '+' && r.op !== '-') || r.a.k !== 'var' || r.a.name !== sink.name) return {};
  let again = false;
  forEachExpr(r.b, (x) => {
    if (x.k === 'var' && x.name === sink.name) again = true;
  });
  return again || tyOf(r).k !== 'num' ? {} : { op: r.op };
}
