// Closures and functions as values (issue 17, items 2 and 3): nested function declarations and local
// `const f = (…) => …` that read (and write) variables of the enclosing function, and functions passed
// to helpers of the compilation (`rk4(rhs, y, h)`).
//
// A call of a local function is INLINED at its call site: its parameters become fresh locals (or name
// the argument's variable when nothing can reassign it), its body is lowered right there, and each
// `return e` stores into a result variable and jumps to the end of a labelled block. Inlining is exact
// for JavaScript's semantics and needs no new IR: a captured variable is the enclosing function's own
// variable, so the closure sees its value at call time and its assignments (`total += v * v`) are
// assignments of that variable; an array captured and written through (`acc[i] += …`) is the same
// array object. Explicit in/out parameters would need a second calling convention in every mode for
// the same result, so we inline instead. A local function that calls itself would inline forever:
// recursion is refused (a top-level function may recurse).
//
// A function passed to a helper (`rk4(f, y, h)`) is known statically when it is a top-level function,
// a local function or an arrow literal, or a function parameter of a copy being specialised: the
// helper is then copied per function, with that parameter bound (`rk4__rhs`), and the variables the
// closure captures become extra parameters of the copy, passed at the call. The copy can only read
// them by value: a closure that reassigns captured variables is refused there (it may still write
// into captured arrays, which are passed by reference). Anything else (a function chosen at run time,
// read from an array, stored, returned) is refused with a located diagnostic.
import ts from 'typescript';
import type { Expr, Loc, Param, Stmt, Ty } from '../ir/types.js';
import { BOOL, NUM, containsCall, countReturns, mapBodies, tyOf } from '../ir/util.js';
import { collectVarBindings, isAssignedIn, isVarList } from './var-scope.js';
import { patternParamName } from './destructuring.js';
import { isOptionalParam } from './jsdoc.js';

/** The source forms this module lowers, for coverage accounting (test/fuzz/coverage.ts reads `origin`). */
export const CLOSURE_FORMS = [
  'closure.read', // a call of a local function that reads variables of the enclosing function, inlined
  'closure.write', // a call of a local function that assigns enclosing variables or stores into captured arrays, inlined
  'fn.arg', // a call of a helper specialised for the function passed to it (`rk4__rhs`)
  'fn.choice', // a call of `const ease = c ? f : g`: `c ? f(…) : g(…)`, the test evaluated once, where the choice is made
  'fn.factory', // a call of `const model = makeModel(k)`: the closure the factory returns, inlined with the factory's variables bound
] as const;
export type ClosureForm = (typeof CLOSURE_FORMS)[number];

export type FnNode = ts.ArrowFunction | ts.FunctionExpression | ts.FunctionDeclaration;

/** a function value known statically */
export type FnValue =
  | { k: 'top'; name: string }
  /** a local function or an arrow literal: the variables it captures (by symbol) and the function parameters it calls */
  | { k: 'closure'; node: FnNode; label: string; captured: ts.Symbol[]; env: Map<ts.Node, FnValue> };

/** a function chosen by tests (`c ? f : d ? g : h`): each test bound to a boolean where the choice is made */
type Choice = { k: 'fn'; v: FnValue } | { k: 'pick'; test: Expr; a: Choice; b: Choice };

/** what a specialised copy of a helper binds: its function parameters, and the captured variables it takes */
export interface Specialisation {
  bound: Map<ts.Node, FnValue>;
  /** the captured variables, with their types where they are declared */
  captured: { sym: ts.Symbol; ty: Ty }[];
}

/** What the lowering of a function lends this module. */
export interface ClosureHost {
  checker: ts.TypeChecker;
  typeAt(n: ts.Node): Ty | null;
  locOf(n: ts.Node): Loc;
  expr(e: ts.Expression): Expr | null;
  err(n: ts.Node, msg: string, hint?: string): null;
  fresh(base: string): string;
  emit(s: Stmt): void;
  block(b: ts.Block): Stmt[];
  /** lowers statements in order, as if they stood here (a factory's body before its `return`) */
  statements(list: readonly ts.Statement[]): Stmt[];
  /** whether the function being lowered has no error so far */
  ok(): boolean;
  capture<T>(f: () => T): [T, Stmt[]];
  bind(node: ts.Node, name: string, ty: Ty): void;
  /** the statements declaring a pattern's names from a value (`[x, v]` from a parameter's argument) */
  destructure(pattern: ts.BindingName, value: Expr, node: ts.Node): Stmt[];
  /** forgets what a declaration named (a parameter of an inlined body, after the body) */
  unbind(node: ts.Node): void;
  /** the variable a declaration names in this lowering, if any */
  declVar(decl: ts.Node): { name: string; ty: Ty } | null;
  /** the top-level function of the compilation a declaration was collected as */
  functionOf(decl: ts.Node): string | null;
  /** the declaration of a top-level function, by name */
  helperDecl(name: string): { params: readonly ts.ParameterDeclaration[] } | null;
  userCall(e: ts.CallExpression | ts.NewExpression, fn: string, self?: Expr): Expr | null;
  /** lowers (once per key) the copy of `helper` specialised as `spec`; its IR name, or null on failure */
  specialise(helper: string, label: string, key: string, spec: Specialisation): string | null;
  /** the `this` of the function being lowered (a method's instance), if any */
  self(): Expr | null;
  /** whether a name's declaration was refused (reported): its uses add no error */
  refused(id: ts.Identifier): boolean;
  /** marks the function being lowered as failed, where the error was reported before */
  fail(): void;
}

const skip = (e: ts.Expression): ts.Expression => {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return e;
};
const isFnNode = (n: ts.Node): n is FnNode => ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n);
const inside = (n: ts.Node, outer: ts.Node) => n.pos >= outer.pos && n.end <= outer.end;

/** node identities for specialisation keys (never printed: names come from labels) */
const ids = new WeakMap<ts.Node | ts.Symbol, number>();
let nextId = 0;
const idOf = (n: ts.Node | ts.Symbol) => {
  let i = ids.get(n);
  if (i === undefined) ids.set(n, (i = nextId++));
  return i;
};

/** whether a type is a function type (a parameter holding a function) */
export function isFunctionType(t: ts.Type): boolean {
  return t.getCallSignatures().length > 0 || (t.isUnion() && t.types.some((u) => u.getCallSignatures().length > 0));
}

export class Closures {
  /** the local functions being inlined, innermost last, with the call that inlines each */
  private stack: { fn: FnNode; call: ts.CallExpression; branch: boolean }[] = [];
  /** parameters of an inlined expression body that read their argument's expression directly */
  private substituted = new Map<ts.Node, Expr>();
  /** local functions checked, and whether they passed */
  private checked = new Map<FnNode, boolean>();
  /** `const ease = c ? f : g`, by declaration: the test's value (bound where the choice is made) and the two functions */
  private chosen = new Map<ts.Node, Choice>();
  /** `const model = makeModel(k)`, by declaration: the function the factory returns, and what its variables are bound to */
  private made = new Map<ts.Node, { fn: FnNode; binds: { node: ts.Node; at: { name: string; ty: Ty } }[] }>();

  constructor(
    private h: ClosureHost,
    private spec: Specialisation | null,
  ) {}

  // ---------- what names denote ----------

  /** the local function (nested declaration or `const f = (…) => …`) a declaration is, if it is one */
  private localFn(decl: ts.Node | undefined): FnNode | null {
    if (!decl) return null;
    if (ts.isFunctionDeclaration(decl) && decl.body && !ts.isSourceFile(decl.parent) && !this.h.functionOf(decl)) return decl;
    if (ts.isVariableDeclaration(decl) && decl.initializer && !this.h.functionOf(decl) && ts.isVariableDeclarationList(decl.parent) && isFixedBinding(decl, this.h.checker)) {
      const init = skip(decl.initializer);
      if ((ts.isArrowFunction(init) || ts.isFunctionExpression(init)) && !ts.isSourceFile(decl.parent.parent.parent)) return init;
    }
    return null;
  }

  private declOf(id: ts.Identifier): ts.Node | undefined {
    const c = this.h.checker;
    const sym = ts.isShorthandPropertyAssignment(id.parent) ? c.getShorthandAssignmentValueSymbol(id.parent) : c.getSymbolAtLocation(id);
    return sym?.declarations?.[0];
  }

  /** the function an identifier denotes statically, if it denotes one (a local function, a bound parameter, a top-level function) */
  private fnValue(id: ts.Identifier): FnValue | null {
    const decl = this.declOf(id);
    if (!decl) return null;
    const bound = this.boundFn(decl);
    if (bound) return bound;
    const local = this.localFn(decl);
    if (local) return this.closureValue(local, id.text);
    const top = this.h.functionOf(decl);
    return top && !ts.isClassDeclaration(decl) && !ts.isClassLike(decl.parent) ? { k: 'top', name: top } : null;
  }

  /**
   * A closure's value: the variables of this lowering it reads or writes (through the local functions
   * it calls too) and the bound function parameters it calls.
   */
  private closureValue(fn: FnNode, label: string): FnValue {
    const captured = new Map<ts.Symbol, true>();
    const env = new Map<ts.Node, FnValue>();
    const seen = new Set<FnNode>();
    const visit = (f: FnNode) => {
      if (seen.has(f)) return;
      seen.add(f);
      const walk = (n: ts.Node): void => {
        if (ts.isIdentifier(n) && !isName(n)) {
          const c = this.h.checker;
          const sym = ts.isShorthandPropertyAssignment(n.parent) ? c.getShorthandAssignmentValueSymbol(n.parent) : c.getSymbolAtLocation(n);
          const decl = sym?.declarations?.[0];
          // (what the root function declares is its own, even where a function nested in it reads it)
          if (sym && decl && !inside(decl, f) && !inside(decl, fn)) {
            const bound = this.boundFn(decl);
            const local = this.localFn(decl);
            if (bound) env.set(decl, bound);
            else if (local) visit(local);
            else if (this.h.declVar(decl)) captured.set(sym, true);
          }
        }
        n.forEachChild(walk);
      };
      if (f.body) walk(f.body);
      for (const p of f.parameters) if (p.initializer) walk(p.initializer);
    };
    visit(fn);
    return { k: 'closure', node: fn, label, captured: [...captured.keys()], env };
  }

  // ---------- declarations and parameters ----------

  /** a nested `function f(…) { … }`: nothing to emit (it is inlined where it is called); checked here */
  declareFunction(s: ts.FunctionDeclaration): void {
    if (!s.name || !s.body) {
      this.h.err(s, 'a nested function declaration needs a name and a body');
      return;
    }
    this.checkFn(s, s.name.text);
  }

  /**
   * `const ease = quintic ? smoother : smooth` (or `var`/`let` never assigned again), each side a function
   * the name denotes statically, an arrow, or another such choice: the tests are evaluated here, once, as
   * JavaScript does (a nested one only where its branch is taken), and each call `ease(t)` becomes
   * `quintic ? smoother(t) : smooth(t)` (`choiceCall`). false: no such choice.
   */
  declareChoice(d: ts.VariableDeclaration): boolean {
    const init = d.initializer && skip(d.initializer);
    if (!init || !ts.isConditionalExpression(init) || !ts.isIdentifier(d.name)) return false;
    const h = this.h;
    const name = d.name.text;
    const leaves = choiceLeaves(init);
    const denotes = (x: ts.Expression) => ts.isArrowFunction(x) || ts.isFunctionExpression(x) || (ts.isIdentifier(x) && !!this.fnValue(x));
    if (!leaves.some((x) => denotes(x) || isFunctionType(h.checker.getTypeAtLocation(x)))) return false;
    const other = leaves.find((x) => !denotes(x));
    if (other) {
      h.err(other, `'${name}' holds a function chosen by a condition, and '${other.getText()}' is not a function tsad can follow here`, `choose between top-level functions, local functions or arrows (\`(v: number) => ${ts.isPropertyAccessExpression(other) ? other.getText() + '(v)' : '…'}\`)`);
      return true; // refused: reported once, here
    }
    const konst = ts.isVariableDeclarationList(d.parent) && (d.parent.flags & ts.NodeFlags.Const) !== 0;
    if (!konst && isAssignedIn(d.name, enclosingFn(d) ?? d.getSourceFile(), h.checker)) {
      h.err(d, `'${name}' holds a function chosen by a condition and is assigned again: tsad follows a function chosen once`, `declare it \`const ${name} = … ? … : …\` and choose again with a second \`const\``);
      return true;
    }
    const choice = this.choose(init, name, null);
    if (choice) this.chosen.set(d, choice);
    return true;
  }

  /** the choice a side of `? :` makes; `taken`: where it is reached (null: always) */
  private choose(x: ts.Expression, name: string, taken: Expr | null): Choice | null {
    const h = this.h;
    x = skip(x);
    if (!ts.isConditionalExpression(x)) {
      const v = ts.isArrowFunction(x) || ts.isFunctionExpression(x) ? (this.checkFn(x, name) ? this.closureValue(x, name) : null) : this.fnValue(x as ts.Identifier);
      if (!v || (v.k === 'closure' && !this.checkFn(v.node, name))) return null;
      return { k: 'fn', v };
    }
    const [test, pre] = h.capture(() => h.expr(x.condition));
    if (!test) return null;
    if (pre.length && taken) return h.err(x.condition, `'${name}' holds a function chosen by nested conditions, and this one needs statements before it`, 'compute the condition into a `const` first');
    pre.forEach((st) => h.emit(st));
    // (a nested test is evaluated only where its branch is taken: `!first && …`)
    const value: Expr = taken ? { k: 'bin', op: '&&', a: taken, b: test, ty: BOOL } : test;
    const bound: Expr = value.k === 'bool' || value.k === 'var' ? value : { k: 'var', name: h.fresh(`${name}Picks`), ty: BOOL };
    if (bound !== value) h.emit({ k: 'decl', name: (bound as { name: string }).name, ty: BOOL, init: value, konst: true, loc: h.locOf(x.condition), origin: 'fn.choice' });
    const not: Expr = { k: 'un', op: '!', a: bound, ty: BOOL };
    const a = this.choose(x.whenTrue, name, bound);
    const b = a && this.choose(x.whenFalse, name, taken ? { k: 'bin', op: '&&', a: taken, b: not, ty: BOOL } : not);
    return a && b && { k: 'pick', test: bound, a, b };
  }

  /**
   * `const model = makeModel(k, data)`, where the top-level `makeModel` returns an arrow or a function
   * expression (after `const` declarations at most): the factory's body is written out here, its
   * parameters taking the arguments' values, and each call `model(t)` inlines the function it returns
   * with those values bound, as the closure JavaScript makes would see them. false: no such factory.
   */
  declareMade(d: ts.VariableDeclaration): boolean {
    const init = d.initializer && skip(d.initializer);
    if (!init || !ts.isCallExpression(init) || !ts.isIdentifier(d.name)) return false;
    const callee = skip(init.expression);
    const decl = ts.isIdentifier(callee) ? this.declOf(callee) : undefined;
    const factory = decl && this.h.functionOf(decl) ? factoryNode(decl) : null;
    if (!factory || !this.h.checker.getTypeAtLocation(init).getCallSignatures().length) return false;
    const h = this.h;
    const name = d.name.text;
    const made = madeFunction(factory);
    const konst = ts.isVariableDeclarationList(d.parent) && (d.parent.flags & ts.NodeFlags.Const) !== 0;
    if (!made || typeof made === 'string' || (!konst && isAssignedIn(d.name, enclosingFn(d) ?? d.getSourceFile(), h.checker))) {
      const why = !made ? 'its body is not `return (…) => …` after `const` declarations' : typeof made === 'string' ? made : `'${name}' is assigned again`;
      h.err(init, `'${name}' holds the function '${callee.getText()}' returns, which tsad cannot follow here: ${why}`, `write the factory as \`function ${callee.getText()}(…) { …; return (t) => …; }\` with one \`return\`, keep '${name}' a \`const\`, or differentiate the closure with the runtime API: \`grad(${callee.getText()}(…), { scope: { … } })\``);
      return true;
    }
    if (init.arguments.some(ts.isSpreadElement) || init.arguments.length !== factory.parameters.length || factory.parameters.some((p) => p.initializer || isOptionalParam(p) || p.dotDotDotToken || !ts.isIdentifier(p.name))) {
      h.err(init, `'${callee.getText()}' returns a function and is called with ${init.arguments.length} argument(s) for ${factory.parameters.length} parameter(s): tsad follows a factory whose plain parameters are all passed`, 'pass one argument per parameter (no defaults, rest or destructured parameters in the factory)');
      return true;
    }
    if (!this.checkFn(made.fn, name)) return true;
    const binds: ts.Node[] = [];
    // the parameters take the arguments' values at the call, as the closure keeps them
    for (const [i, p] of factory.parameters.entries()) {
      const a = init.arguments[i];
      const x = h.expr(a);
      if (!x) return true;
      const ty = h.typeAt(p.name) ?? tyOf(x);
      const fixed = x.k === 'num' || (x.k === 'var' && ts.isIdentifier(skip(a)) && !isAssignedIn(skip(a) as ts.Identifier, enclosingFn(a) ?? a.getSourceFile(), h.checker));
      if (fixed && !isAssignedIn(p.name as ts.Identifier, factory, h.checker) && x.k === 'var') h.bind(p, x.name, ty);
      else {
        const local = h.fresh((p.name as ts.Identifier).text);
        h.emit({ k: 'decl', name: local, ty, init: x, konst: !isAssignedIn(p.name as ts.Identifier, factory, h.checker), loc: h.locOf(a) });
        h.bind(p, local, ty);
      }
      binds.push(p);
    }
    // (what the body computes before its `return` runs here, once; the closure sees its top-level names)
    const before = h.statements(made.lead);
    if (!h.ok()) return true;
    before.forEach((st) => h.emit(st));
    for (const st of made.lead) if (ts.isVariableStatement(st)) for (const v of st.declarationList.declarations) binds.push(v, ...bindingElements(v.name));
    const bound = binds.map((n) => ({ node: n, at: h.declVar(n) })).filter((b): b is { node: ts.Node; at: { name: string; ty: Ty } } => !!b.at);
    this.made.set(d, { fn: made.fn, binds: bound });
    return true;
  }

  /** `ease(t)` of a chosen function: `let r; if (c) r = f(t); else r = g(t);`, each branch lowering its own call */
  private choiceCall(e: ts.CallExpression, callee: ts.Identifier, choice: Choice): Expr | null {
    const h = this.h;
    if (inBranch(e) || this.earlierCall(e))
      return h.err(e, `'${callee.text}' holds a function chosen by a condition, and is called inside a larger expression where its call must become an \`if\``, `call it in a statement of its own first: \`const v = ${callee.text}(…);\``);
    const loc = h.locOf(e);
    const ty = h.typeAt(e);
    const result = ty && ty.k !== 'void' ? { k: 'var' as const, name: h.fresh(`${callee.text}Value`), ty } : null;
    let ok = true;
    const branch = (c: Choice): Stmt[] => {
      if (c.k === 'pick') return [{ k: 'if', c: c.test, then: branch(c.a), else: branch(c.b), loc, origin: 'fn.choice' }];
      const v = c.v;
      const [r, stmts] = h.capture(() => {
        if (v.k === 'closure') return this.inline(e, v.node, v.label);
        const viaCopy = this.helperCall(e, v.name);
        return viaCopy !== undefined ? viaCopy : h.userCall(e, v.name);
      });
      if (!r) ok = false;
      else if (result && r.k !== 'undef') stmts.push({ k: 'assign', target: result, value: r, loc });
      else if (r.k === 'call' || r.k === 'intr') stmts.push({ k: 'expr', e: r, loc });
      return stmts;
    };
    const body = branch(choice);
    if (!ok) return null;
    if (result) h.emit({ k: 'decl', name: result.name, ty: result.ty, init: null, konst: false, loc });
    body.forEach((st) => h.emit(st));
    return result ?? { k: 'undef' };
  }

  /** what a local function must be to be inlined; false: refused (reported once: at its declaration or first call) */
  private checkFn(fn: FnNode, name: string): boolean {
    const known = this.checked.get(fn);
    if (known === false) this.h.fail();
    if (known !== undefined) return known;
    const ok = this.checkFnOnce(fn, name);
    this.checked.set(fn, ok);
    return ok;
  }

  private checkFnOnce(fn: FnNode, name: string): boolean {
    if (fn.asteriskToken) return !!this.h.err(fn, `the local function '${name}' is a generator, which is not supported`, 'return the values in an array');
    if (fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)) return !!this.h.err(fn, `the local function '${name}' is \`async\`, which is not supported`, 'write synchronous code');
    const dyn = dynamicThis(fn);
    if (dyn) return !!this.h.err(dyn, `\`${dyn.getText()}\` inside the local function '${name}' depends on how it is called, which is not supported`, ts.isArrowFunction(fn) ? 'read the values it needs directly, as variables of the enclosing function' : 'write an arrow function (`const f = (…) => …`), whose `this` is the enclosing one, or read the values as variables');
    // (a `var` the block-scoped lowering places where it stands, as a `let`, is fine: one declaration
    // with a value, every use after it in its block — see var-scope.ts)
    const v = fn.body ? [...collectVarBindings(fn.body, this.h.checker).values()].find((b) => b.hoisted) : undefined;
    if (v) return !!this.h.err(v.decls[0], `a \`var\` inside the local function '${name}' that is used outside its block, declared twice or read before its value is not supported`, 'declare it with `let` or `const` where it is first given a value');
    for (const p of fn.parameters) {
      if (!ts.isIdentifier(p.name) && p.dotDotDotToken) return !!this.h.err(p, `a destructured rest parameter of the local function '${name}' is not supported`, 'name it (`...xs`) and read its elements');
      if (p.dotDotDotToken || p.initializer || isOptionalParam(p)) return !!this.h.err(p, `rest, optional and default parameters of the local function '${name}' are not supported`, 'declare plain parameters and pass every argument');
    }
    return true;
  }

  /**
   * A parameter of the function being lowered that holds a function: 'bound' in a specialised copy (it
   * is no parameter of the copy), 'refused' (reported) where it is known only at run time; null when the
   * parameter is no function.
   */
  param(p: ts.ParameterDeclaration, fname: string): 'bound' | 'refused' | null {
    if (this.spec?.bound.has(p)) return 'bound';
    if (!isFunctionType(this.h.checker.getTypeAtLocation(p))) return null;
    const name = p.name.getText();
    this.h.err(p, `the parameter '${name}' of '${fname}' holds a function, known only at run time here`, `tsad compiles a copy of '${fname}' for each function passed as '${name}' where the call names it (\`${fname}(g, …)\` with a top-level function, a local function or an arrow becomes \`${fname}__g\`): differentiate a function that calls '${fname}' that way, and give the head data, not functions`);
    return 'refused';
  }

  /** the parameters a specialised copy takes for the variables its closures capture (bound here to them) */
  capturedParams(): Param[] {
    const out: Param[] = [];
    for (const { sym, ty } of this.spec?.captured ?? []) {
      const name = this.h.fresh(sym.name);
      for (const d of sym.declarations ?? []) this.h.bind(d, name, ty);
      out.push({ name, ty });
    }
    return out;
  }

  // ---------- reads of names ----------

  /**
   * An identifier read as a value: a parameter of an inlined expression body standing for its argument,
   * or a local function used other than by calling it or passing it to a helper or an array method
   * (refused: it would escape). undefined: neither.
   */
  read(id: ts.Identifier): Expr | null | undefined {
    const decl = this.declOf(id);
    if (!decl) return undefined;
    const sub = this.substituted.get(decl);
    if (sub) return sub;
    const bound = this.boundFn(decl);
    const local = this.localFn(decl);
    if (!bound && !local) return undefined;
    if (this.h.refused(id)) return null;
    if (local && writesOutside(local, this.h.checker).length)
      return this.h.err(id, `the local function '${id.text}' assigns variables of the enclosing function and escapes here (stored, returned or passed where tsad cannot follow its calls)`, `call it directly in the enclosing function (\`${id.text}(…);\`), or return the value and assign it at the call`);
    return this.h.err(id, `the function '${id.text}' is used as a value here: tsad follows a function only where it is called, passed to a helper of the compilation, or passed to an array method`, `call it, or pass it directly as an argument (\`helper(${id.text}, …)\`); choose between functions with an \`if\` around two calls`);
  }

  /** an arrow or function expression that is neither a local `const`, an argument of a helper nor a callback */
  literal(e: ts.ArrowFunction | ts.FunctionExpression): null {
    const call = e.parent;
    if (ts.isCallExpression(call) && call.arguments.includes(e) && ts.isIdentifier(skip(call.expression)))
      return this.h.err(e, `the parameter of '${skip(call.expression).getText()}' this function is passed to has no function type`, 'declare its type where the helper takes it, e.g. `rhs: (t: number, y: number[]) => number[]` (tsad then compiles a copy of the helper per function passed)');
    return this.h.err(e, 'a function expression is supported as a local `const f = (…) => …`, an argument of a helper of the compilation or an array method\'s callback, not here', 'name it with `const` and call it, or pass it directly as an argument');
  }

  /**
   * The function a function parameter holds in this copy: bound by the specialisation, or by the
   * environment of a closure bound to it (`integrate((t) => g(t) * t, …)` in a copy where g is known).
   */
  private boundFn(decl: ts.Node): FnValue | undefined {
    const spec = this.spec;
    if (!spec) return undefined;
    const direct = spec.bound.get(decl);
    if (direct) return direct;
    const search = (v: FnValue, seen: Set<FnValue>): FnValue | undefined => {
      if (v.k !== 'closure' || seen.has(v)) return undefined;
      seen.add(v);
      const hit = v.env.get(decl);
      if (hit) return hit;
      for (const w of v.env.values()) {
        const r = search(w, seen);
        if (r) return r;
      }
      return undefined;
    };
    const seen = new Set<FnValue>();
    for (const v of spec.bound.values()) {
      const r = search(v, seen);
      if (r) return r;
    }
    return undefined;
  }

  // ---------- calls ----------

  /**
   * `f(…)` where `f` is a local function (inlined), a function parameter of a specialised copy, or a
   * top-level function taking functions (specialised). undefined: none of these.
   */
  call(e: ts.CallExpression): Expr | null | undefined {
    const callee = skip(e.expression);
    if (!ts.isIdentifier(callee)) return undefined;
    const decl = this.declOf(callee);
    if (!decl) return undefined;
    const choice = this.chosen.get(decl);
    if (choice) return this.choiceCall(e, callee, choice);
    const made = this.made.get(decl);
    if (made) {
      if (this.stack.some((f) => f.fn === made.fn)) return this.h.err(e, `the function '${callee.text}' holds calls itself (recursion)`, 'write a top-level function, which may call itself');
      // (the factory's variables as this closure keeps them: another closure of the same factory binds its own)
      for (const b of made.binds) this.h.bind(b.node, b.at.name, b.at.ty);
      const r = this.inline(e, made.fn, callee.text);
      return r && r.k !== 'undef' && r.k !== 'call' ? ({ ...r, origin: 'fn.factory' } as Expr) : r;
    }
    const bound = this.boundFn(decl);
    const local = bound ? null : this.localFn(decl);
    if (local && this.h.refused(callee)) return null;
    if (bound?.k === 'top') {
      const s = this.helperCall(e, bound.name);
      return s !== undefined ? s : this.h.userCall(e, bound.name);
    }
    if (bound?.k === 'closure') return this.inline(e, bound.node, bound.label);
    if (local) return this.inline(e, local, callee.text);
    // a function parameter of a helper lowered on its own is refused where it is declared (one problem, one error)
    if (ts.isParameter(decl) && isFunctionType(this.h.checker.getTypeAtLocation(decl))) {
      this.h.fail();
      return null;
    }
    const top = this.h.functionOf(decl);
    return top ? this.helperCall(e, top) : undefined;
  }

  /** a call of a helper with function parameters: the copy specialised for the functions passed; undefined when it takes none */
  helperCall(e: ts.CallExpression, helper: string): Expr | null | undefined {
    const d = this.h.helperDecl(helper);
    if (!d) return undefined;
    const fnParams = d.params.filter((p) => isFunctionType(this.h.checker.getTypeAtLocation(p)));
    if (!fnParams.length) return undefined;
    if (e.arguments.some(ts.isSpreadElement)) return this.h.err(e, `spread arguments to '${helper}', which takes a function, are not supported`, 'pass each argument');
    // (a trailing number left out takes its default where that is a constant: `integrate(g, a, b)` with `n = 8`)
    const missing = d.params.slice(e.arguments.length);
    if (e.arguments.length > d.params.length || !missing.every((p) => !fnParams.includes(p) && !p.dotDotDotToken && p.initializer && isConstantDefault(p.initializer)))
      return this.h.err(e, `'${helper}' takes a function and ${d.params.length} arguments in all: pass every one of them`, 'write each argument at the call (only a constant default, `n = 8`, is filled in for a helper taking functions)');
    const bound = new Map<ts.Node, FnValue>();
    const args: Expr[] = [];
    const labels: string[] = [];
    for (const [i, p] of d.params.entries()) {
      const a = e.arguments[i] ?? p.initializer!;
      if (!fnParams.includes(p)) {
        const x = this.h.expr(a);
        if (!x) return null;
        args.push(x);
        continue;
      }
      const v = this.known(skip(a), helper, p.name.getText());
      if (!v) return null;
      bound.set(p, v);
      labels.push(v.k === 'top' ? v.name : v.label);
    }
    // the variables the closures capture, passed after the other arguments
    const captured = new Map<ts.Symbol, true>();
    const collect = (v: FnValue) => {
      if (v.k !== 'closure') return;
      for (const s of v.captured) captured.set(s, true);
      for (const w of v.env.values()) collect(w);
    };
    for (const v of bound.values()) collect(v);
    const capt: Specialisation['captured'] = [];
    for (const sym of captured.keys()) {
      const x = this.h.declVar(sym.declarations![0]);
      if (!x) return this.h.err(e, `'${sym.name}', which the function passed to '${helper}' reads, is not available here`, 'declare it before the call');
      args.push({ k: 'var', name: x.name, ty: x.ty });
      capt.push({ sym, ty: x.ty });
    }
    const spec: Specialisation = { bound, captured: capt };
    const key = `${helper}(${[...bound.entries()].map(([p, v]) => `${idOf(p)}=${keyOf(v)}`).join(',')})`;
    const name = this.h.specialise(helper, labels.join('_'), key, spec);
    if (!name) {
      this.h.fail(); // reported by the copy's lowering, into this function's diagnostics
      return null;
    }
    const ty = this.h.typeAt(e);
    if (!ty) return this.h.err(e, `the result of '${helper}' has a type tsad cannot differentiate through`, 'return a number, an array or an object of numbers');
    return { k: 'call', fn: name, args, ty, origin: 'fn.arg' };
  }

  /** the function an argument passed to a helper's function parameter denotes, checked; null: refused (reported) */
  private known(a: ts.Expression, helper: string, param: string): FnValue | null {
    const hint = `pass a function the call names: a top-level function, a local function or an arrow (\`${helper}((t, y) => …, …)\`); to choose one at run time, write an \`if\` with one call of '${helper}' per function`;
    if (ts.isArrowFunction(a) || ts.isFunctionExpression(a)) {
      if (!this.checkFn(a, 'passed to ' + helper)) return null;
      return this.escapeChecked(this.closureValue(a, 'lambda'), a, helper);
    }
    if (ts.isIdentifier(a)) {
      const v = this.fnValue(a);
      if (v?.k === 'closure' && !this.checkFn(v.node, a.text)) return null;
      if (v) return this.escapeChecked(v, a, helper);
      const decl = this.declOf(a);
      if (decl && ts.isParameter(decl) && isFunctionType(this.h.checker.getTypeAtLocation(decl))) {
        this.h.fail(); // the parameter was refused where it is declared
        return null;
      }
      if (this.h.refused(a)) return null;
    }
    return this.h.err(a, `the function passed to '${helper}' as '${param}' cannot be known statically here`, hint);
  }

  /** a closure passed to a helper may not reassign captured variables (the copy receives their values) */
  private escapeChecked(v: FnValue, at: ts.Node, helper: string): FnValue | null {
    if (v.k !== 'closure') return v;
    const w = rebinds(v.node, this.h.checker, (d) => !!this.localFn(d)).find((id) => !!this.h.declVar(this.declOf(id)!));
    if (w) return this.h.err(at, `the function passed to '${helper}' assigns '${w.text}', a variable of the enclosing function: the copy of '${helper}' receives its value, and could not assign it`, `return the new value from the function and assign it after the call, or call the function directly where '${w.text}' is declared`);
    if (usesThis(v.node)) return this.h.err(at, `the function passed to '${helper}' reads \`this\``, 'read the fields it needs into a `const` before the call and use that');
    return v;
  }

  /**
   * Inlines a call of a local function: arguments evaluated in order, parameters bound, the body
   * lowered here. The value is an expression (the body's, or the result variable its returns store).
   */
  private inline(e: ts.CallExpression, fn: FnNode, name: string): Expr | null {
    const h = this.h;
    if (this.stack.some((s) => s.fn === fn))
      return h.err(e, `the local function '${name}' calls itself (recursion), which is not supported: tsad writes a local function out where it is called`, 'move it to the top level of the module (a top-level function may call itself) and pass what it reads as parameters');
    if (!this.checkFn(fn, name)) return null;
    // `const f = …` is not initialized before its declaration runs (a function declaration is hoisted)
    const outer = this.stack.length ? this.stack[0].call : e;
    const decl = ts.isFunctionDeclaration(fn) ? null : fn.parent;
    if (decl && inside(outer, enclosingFn(decl) ?? decl) && outer.getSourceFile() === decl.getSourceFile() && outer.pos < decl.end)
      return h.err(e, `the local function '${name}' is called before its \`const\` declaration has run`, 'declare it before the call, or write it as a function declaration (`function f(…) { … }`), which is hoisted');
    if (e.arguments.some(ts.isSpreadElement)) return h.err(e, `spread arguments to the local function '${name}' are not supported`, 'pass each argument');
    if (e.arguments.length !== fn.parameters.length)
      return h.err(e, `the local function '${name}' takes ${fn.parameters.length} argument${fn.parameters.length === 1 ? '' : 's'}, and is called with ${e.arguments.length}`, 'pass exactly one argument per parameter');
    const writes = writesOutside(fn, h.checker, (d) => !!this.localFn(d) || !!this.boundFn(d));
    if (writes.length && !statementPosition(e))
      return h.err(e, `the local function '${name}' assigns '${writes[0].getText()}', a variable of the enclosing function, and is called inside a larger expression`, `call it in a statement of its own (\`${name}(…);\`, \`const r = ${name}(…);\` or \`r = ${name}(…);\`), so that its assignment happens where JavaScript makes it`);
    // (a call inside a body inlined in a branch is in that branch too)
    const branch = inBranch(e) || this.stack.some((s) => s.branch);
    // an argument's variable names the parameter unless the body (or a function it calls) may reassign it
    const rebound = new Set(rebinds(fn, h.checker, (d) => !!this.localFn(d) || !!this.boundFn(d)).map((id) => {
      const d = this.declOf(id);
      return (d && h.declVar(d)?.name) ?? id.text;
    }));
    // the arguments, in order, before the body
    const args: Expr[] = [];
    for (const a of e.arguments) {
      const [x, pre] = h.capture(() => h.expr(a));
      if (!x) return null;
      for (const st of pre) h.emit(st);
      args.push(x);
    }
    const ownAssigned = new Set(rebindsOwn(fn, h.checker));
    const exprBody = singleExpr(fn);
    // an argument's expression may stand for its parameter only where nothing in the body can change what it reads
    const substitutable = (x: Expr) => x.k === 'num' || (!!exprBody && !this.effectful(exprBody, new Set([fn])) && (x.k === 'global' || (branch && pureArg(x))));
    // the parameters' declarations come first (kept apart: a statement of the body starts with nothing pending)
    const head: Stmt[] = [];
    const [result, bodyStmts] = h.capture((): Expr | null => {
      for (const [i, p] of fn.parameters.entries()) {
        const x = args[i];
        const assigned = ownAssigned.has(p);
        const pty = paramTy(h, p, x, assigned);
        if (!pty) return null;
        if (!ts.isIdentifier(p.name)) {
          // a destructured parameter (`(t, [x, v]) => …`): its argument named, and taken apart at the top
          // of the body, as a top-level function's pattern parameter is
          const n = h.fresh(patternParamName(p, i));
          head.push({ k: 'decl', name: n, ty: pty, init: x, konst: true, loc: h.locOf(p) });
          for (const st of h.destructure(p.name, { k: 'var', name: n, ty: pty }, p)) h.emit(st);
          continue;
        }
        if (!assigned && (x.k === 'var' ? !rebound.has(x.name) : !!exprBody && substitutable(x))) {
          if (x.k === 'var') h.bind(p, x.name, x.ty);
          else this.substituted.set(p, x);
          continue;
        }
        // a parameter the body never reads needs its argument only for the argument's effects
        if (!assigned && pureArg(x) && !readsParam(fn, p, h.checker)) continue;
        const n = h.fresh((p.name as ts.Identifier).text);
        head.push({ k: 'decl', name: n, ty: pty, init: x, konst: !assigned, loc: h.locOf(p) });
        h.bind(p, n, pty);
      }
      this.stack.push({ fn, call: e, branch });
      try {
        if (exprBody) return h.expr(exprBody);
        return this.returns(h.block(fn.body as ts.Block), e, fn, name);
      } finally {
        this.stack.pop();
        // (a later call of the same function binds its parameters afresh: nothing of this one may be found)
        for (const p of fn.parameters) {
          this.substituted.delete(p);
          h.unbind(p);
          bindingElements(p.name).forEach((el) => h.unbind(el));
        }
      }
    });
    if (!result) return null;
    const stmts = [...head, ...bodyStmts];
    if (stmts.length && branch)
      return h.err(e, `the local function '${name}' is called in a branch of \`? :\`, \`&&\`, \`||\` or \`??\`, and its body needs statements, which would run whichever branch is taken`, `compute it in an \`if\`: \`let r = …; if (…) r = ${name}(…);\``);
    if (stmts.length && this.earlierCall(e))
      return h.err(e, `the local function '${name}' is called after another call in the same expression: its body would run first`, 'compute the other call into a variable in a statement of its own first');
    const origin = writes.length || writesIntoCaptured(fn, h.checker) ? 'closure.write' : 'closure.read';
    if (stmts.length) stmts[0].origin ??= origin;
    for (const st of stmts) h.emit(st);
    return result.k === 'undef' || result.k === 'call' ? result : ({ ...result, origin } as Expr);
  }

  /**
   * Whether an expression assigns something or calls anything but Math, Number and local functions whose
   * single expression does neither (`seen`: the functions on the way, a recursion is effectful).
   */
  private effectful(n: ts.Node, seen: Set<FnNode>): boolean {
    let found = false;
    const visit = (x: ts.Node): void => {
      if (found) return;
      if (ts.isBinaryExpression(x) && x.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && x.operatorToken.kind <= ts.SyntaxKind.LastAssignment) found = true;
      else if ((ts.isPrefixUnaryExpression(x) || ts.isPostfixUnaryExpression(x)) && (x.operator === ts.SyntaxKind.PlusPlusToken || x.operator === ts.SyntaxKind.MinusMinusToken)) found = true;
      else if (ts.isCallExpression(x) || ts.isNewExpression(x)) {
        const c = skip(x.expression);
        const builtin = ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && (c.expression.text === 'Math' || c.expression.text === 'Number');
        const local = ts.isIdentifier(c) ? this.localFn(this.declOf(c)) : null;
        const body = local && singleExpr(local);
        if (!builtin && !(local && body && !seen.has(local) && !this.effectful(body, new Set([...seen, local])))) found = true;
      }
      if (!found) x.forEachChild(visit);
    };
    visit(n);
    return found;
  }

  /**
   * Whether an operand JavaScript evaluates before the call, in the same expression, calls a helper or a
   * method (evaluated in place, after the inlined body's statements: it may write what the body reads).
   * Calls of local functions and array methods with callbacks become statements in order: they do not count.
   */
  private earlierCall(e: ts.Node): boolean {
    let c = e;
    while (c.parent && ts.isExpression(c.parent) && !isFnNode(c.parent)) {
      const p = c.parent;
      if (p.getChildren().some((s) => s !== c && s.end <= c.getStart() && this.callsInPlace(s))) return true;
      c = p;
    }
    return false;
  }

  private callsInPlace(n: ts.Node): boolean {
    let found = false;
    const visit = (x: ts.Node): void => {
      if (found) return;
      if (ts.isCallExpression(x)) {
        const c = skip(x.expression);
        const builtin = ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && (c.expression.text === 'Math' || c.expression.text === 'Number');
        const d = ts.isIdentifier(c) ? this.declOf(c) : undefined;
        const local = !!d && (!!this.localFn(d) || this.boundFn(d)?.k === 'closure' || this.chosen.has(d) || this.made.has(d));
        const method = ts.isPropertyAccessExpression(c) && ['map', 'forEach', 'reduce', 'reduceRight', 'filter', 'some', 'every', 'find', 'findIndex', 'findLast', 'findLastIndex', 'flatMap'].includes(c.name.text);
        if (!builtin && !local && !method) found = true;
      }
      if (!isFnNode(x)) x.forEachChild(visit);
    };
    visit(n);
    return found;
  }

  /**
   * A block body's `return`s: a single `return e` at the end gives its value in place; otherwise each
   * `return e` stores into a result variable and leaves a labelled block around the body.
   */
  private returns(lowered: Stmt[], call: ts.CallExpression, fn: FnNode, name: string): Expr | null {
    const h = this.h;
    const last = lowered[lowered.length - 1];
    const others = countReturns(lowered) - (last?.k === 'return' ? 1 : 0);
    if (others === 0) {
      if (last?.k === 'return') lowered.pop();
      for (const st of lowered) h.emit(st);
      return last?.k === 'return' && last.e ? last.e : { k: 'undef' };
    }
    // (untyped JavaScript: the type of the first value returned)
    const rt = h.typeAt(call) ?? firstReturnTy(lowered);
    const valued = !!rt && rt.k !== 'void';
    if (valued && rt.k === 'opt') return h.err(fn, `the local function '${name}' may finish without returning a value`, 'return a value on every path');
    const result = valued ? h.fresh(`${name}Result`) : null;
    if (result) h.emit({ k: 'decl', name: result, ty: rt!, init: null, konst: false, loc: h.locOf(call) });
    const label = h.fresh(name);
    const rewrite = (list: Stmt[]): Stmt[] =>
      list.flatMap((st): Stmt[] => {
        if (st.k === 'return') {
          const out: Stmt[] = [];
          if (st.e && result) out.push({ k: 'assign', target: { k: 'var', name: result, ty: rt! }, value: st.e, loc: st.loc });
          else if (st.e && (st.e.k === 'call' || st.e.k === 'intr')) out.push({ k: 'expr', e: st.e, loc: st.loc });
          return [...out, { k: 'break', label, loc: st.loc }];
        }
        return [mapBodies(st, rewrite)];
      });
    const body = rewrite(lowered);
    if (last?.k === 'return') body.pop(); // its jump goes where the body ends anyway
    h.emit({ k: 'block', label, body, loc: h.locOf(call) });
    return result ? { k: 'var', name: result, ty: rt! } : { k: 'undef' };
  }
}

// ---------- helpers ----------

function keyOf(v: FnValue): string {
  if (v.k === 'top') return `top:${v.name}`;
  return `fn:${idOf(v.node)}[${v.captured.map(idOf).join(',')}]{${[...v.env.entries()].map(([d, w]) => `${idOf(d)}=${keyOf(w)}`).join(',')}}`;
}

/** whether a top-level function takes a function (it is lowered only as copies specialised per call site) */
export function takesFunctions(params: readonly ts.ParameterDeclaration[], checker: ts.TypeChecker): boolean {
  return params.some((p) => isFunctionType(checker.getTypeAtLocation(p)));
}

/** an identifier that names a property or a type, not a variable */
/** a parameter default that reads nothing: a number, possibly negated */
function isConstantDefault(e: ts.Expression): boolean {
  const x = skip(e);
  return ts.isNumericLiteral(x) || (ts.isPrefixUnaryExpression(x) && x.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(x.operand));
}

function isName(n: ts.Identifier): boolean {
  const p = n.parent;
  return (ts.isPropertyAccessExpression(p) && p.name === n) || (ts.isPropertyAssignment(p) && p.name === n) || ts.isTypeReferenceNode(p) ||
    (ts.isQualifiedName(p)) || (ts.isBindingElement(p) && p.propertyName === n) || ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p) ||
    (ts.isPropertySignature(p) && p.name === n) || (ts.isMethodDeclaration(p) && p.name === n);
}

/** the function a declaration is in */
function enclosingFn(n: ts.Node): ts.Node | null {
  for (let p = n.parent; p; p = p.parent) if (isFnNode(p) || ts.isMethodDeclaration(p) || ts.isConstructorDeclaration(p) || ts.isAccessor(p)) return p;
  return null;
}

/** the parameter's type: declared, or (untyped JavaScript) the argument's */
function paramTy(h: ClosureHost, p: ts.ParameterDeclaration, arg: Expr, assigned: boolean): Ty | null {
  const any = h.checker.getTypeAtLocation(p).flags & ts.TypeFlags.Any;
  const t = any ? tyOf(arg) : h.typeAt(p.name);
  if (!t) return h.err(p, `the parameter '${p.name.getText()}' has a type tsad cannot differentiate through`, 'use numbers, arrays and objects of numbers');
  return t.k === 'int' && assigned ? NUM : t;
}

/** the elements of a binding pattern, nested ones too (none for a plain name) */
function bindingElements(name: ts.BindingName): ts.BindingElement[] {
  if (ts.isIdentifier(name)) return [];
  return name.elements.flatMap((el) => (ts.isBindingElement(el) ? [el, ...bindingElements(el.name)] : []));
}

/** an argument that can stand for its parameter wherever the body reads it: no effects, no calls but Math's */
function pureArg(x: Expr): boolean {
  return !containsCall(x) && !/"k":"intr","fn":"(?!Math\.)/.test(JSON.stringify(x));
}

/** whether a function's body mentions its parameter */
function readsParam(fn: FnNode, p: ts.ParameterDeclaration, checker: ts.TypeChecker): boolean {
  const sym = checker.getSymbolAtLocation(p.name);
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isIdentifier(n) && n !== p.name && (ts.isShorthandPropertyAssignment(n.parent) ? checker.getShorthandAssignmentValueSymbol(n.parent) : checker.getSymbolAtLocation(n)) === sym) found = true;
    else n.forEachChild(visit);
  };
  if (fn.body) visit(fn.body);
  return found;
}

/** an arrow with an expression body, or a body that is one `return e`: that expression */
function singleExpr(fn: FnNode): ts.Expression | null {
  if (fn.body && !ts.isBlock(fn.body)) return fn.body;
  const b = fn.body as ts.Block | undefined;
  if (b && b.statements.length === 1 && ts.isReturnStatement(b.statements[0]) && b.statements[0].expression) return b.statements[0].expression;
  return null;
}

/** where JavaScript runs the call's assignments no earlier than its statement: a statement, an initializer, `x = f()` */
function statementPosition(e: ts.CallExpression): boolean {
  let c: ts.Node = e;
  while (ts.isParenthesizedExpression(c.parent)) c = c.parent;
  const p = c.parent;
  if (ts.isExpressionStatement(p)) return true;
  if (ts.isVariableDeclaration(p) && p.initializer === c) return true;
  if (ts.isArrowFunction(p) && p.body === c) return true;
  return ts.isBinaryExpression(p) && p.right === c && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(skip(p.left)) && ts.isExpressionStatement(p.parent);
}

/** in a branch of `?:`, `&&`, `||`, `??` of the expression holding the call (up to its statement or function) */
function inBranch(e: ts.Node): boolean {
  let c = e;
  while (c.parent && ts.isExpression(c.parent) && !isFnNode(c.parent)) {
    const p = c.parent;
    if (ts.isConditionalExpression(p) && c !== p.condition) return true;
    if (ts.isBinaryExpression(p) && c === p.right && [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(p.operatorToken.kind)) return true;
    c = p;
  }
  // a parameter default runs only when the argument is missing
  return !!c.parent && ts.isParameter(c.parent);
}

/**
 * Whether every use of the factory `name` declared by `decl` among `bodies` is `const m = name(…)`:
 * then each use says itself why it cannot be followed (`declareMade`), and the factory, lowered on its
 * own, adds no second error.
 */
export function onlyMadeInto(decl: ts.Node, bodies: readonly ts.Node[], checker: ts.TypeChecker): boolean {
  const name = (decl as ts.FunctionDeclaration | ts.VariableDeclaration).name;
  const sym = name && ts.isIdentifier(name) ? checker.getSymbolAtLocation(name) : undefined;
  if (!sym) return false;
  let ok = true;
  let uses = 0;
  const visit = (n: ts.Node): void => {
    if (!ok) return;
    if (ts.isIdentifier(n) && n !== name && checker.getSymbolAtLocation(n) === sym) {
      uses++;
      const call = n.parent;
      ok = ts.isCallExpression(call) && skip(call.expression) === n && ts.isVariableDeclaration(call.parent) && call.parent.initializer === call;
      return;
    }
    n.forEachChild(visit);
  };
  for (const b of bodies) visit(b);
  return ok && uses > 0;
}

/** the function node a top-level function's declaration holds (`function f(…) {…}`, `const f = (…) => …`) */
function factoryNode(decl: ts.Node): FnNode | null {
  if (ts.isFunctionDeclaration(decl)) return decl.body ? decl : null;
  if (ts.isVariableDeclaration(decl) && decl.initializer) {
    const init = skip(decl.initializer);
    if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) return init;
  }
  return null;
}

/**
 * What a factory returns: `return (t) => …` (or a function expression) as its last statement, with
 * no other `return` before it; an arrow factory's expression body may be the function itself. A string: why not; null: it
 * returns no function literal.
 */
function madeFunction(factory: FnNode): { fn: ts.ArrowFunction | ts.FunctionExpression; lead: readonly ts.Statement[] } | string | null {
  const isFn = (x: ts.Node | undefined): x is ts.ArrowFunction | ts.FunctionExpression => !!x && (ts.isArrowFunction(x) || ts.isFunctionExpression(x));
  if (!factory.body) return null;
  if (!ts.isBlock(factory.body)) {
    const b = skip(factory.body);
    return isFn(b) ? { fn: b, lead: [] } : null;
  }
  const stmts = factory.body.statements;
  const last = stmts[stmts.length - 1];
  const value = last && ts.isReturnStatement(last) && last.expression ? skip(last.expression) : undefined;
  if (!isFn(value)) return null;
  const lead = stmts.slice(0, -1);
  let problem: string | null = null;
  // (a `var` of the body itself is declared where it stands, as the body runs once; one in a block is hoisted out of it)
  const visit = (n: ts.Node): void => {
    if (problem || isFnNode(n)) return;
    if (ts.isReturnStatement(n)) problem = 'it returns before its last statement';
    else if (ts.isVariableStatement(n) && isVarList(n.declarationList) && !lead.includes(n)) problem = 'it declares a `var` inside a block (write `let` or `const`)';
    else if (ts.isFunctionDeclaration(n)) problem = 'it declares a function before its `return`';
    else n.forEachChild(visit);
  };
  lead.forEach(visit);
  return problem ?? { fn: value, lead };
}

/** the functions a chain of `? :` chooses between (`c ? f : d ? g : h` → f, g, h) */
function choiceLeaves(x: ts.Expression): ts.Expression[] {
  x = skip(x);
  return ts.isConditionalExpression(x) ? [...choiceLeaves(x.whenTrue), ...choiceLeaves(x.whenFalse)] : [x];
}

function firstReturnTy(list: Stmt[]): Ty | null {
  for (const st of list) {
    if (st.k === 'return') return st.e ? tyOf(st.e) : null;
    const inner = st.k === 'if' ? [...st.then, ...st.else] : st.k === 'for' || st.k === 'while' || st.k === 'do' || st.k === 'block' ? st.body : st.k === 'switch' ? st.cases.flatMap((c) => c.body) : [];
    const t = inner.length ? firstReturnTy(inner) : null;
    if (t) return t;
  }
  return null;
}

/** `this` or `arguments` whose meaning depends on how the function is called (an arrow's `this` is the enclosing one) */
function dynamicThis(fn: FnNode): ts.Node | null {
  let bad: ts.Node | null = null;
  const arrow = ts.isArrowFunction(fn);
  const visit = (n: ts.Node): void => {
    if (bad) return;
    if ((n.kind === ts.SyntaxKind.ThisKeyword && !arrow) || (ts.isIdentifier(n) && n.text === 'arguments' && !isName(n))) bad = n;
    else if (!(ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n))) n.forEachChild(visit);
  };
  if (fn.body) visit(fn.body);
  return bad;
}

function usesThis(fn: FnNode): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (n.kind === ts.SyntaxKind.ThisKeyword) found = true;
    else if (!found) n.forEachChild(visit);
  };
  if (fn.body) visit(fn.body);
  return found;
}


/** the identifier targets of assignments and increments in a function (element and field stores by their root when `roots`) */
function assignTargets(fn: FnNode, roots: boolean): ts.Identifier[] {
  const out: ts.Identifier[] = [];
  const note = (t: ts.Expression) => {
    let x = skip(t);
    if (roots) while (ts.isPropertyAccessExpression(x) || ts.isElementAccessExpression(x)) x = skip(x.expression);
    if (ts.isIdentifier(x)) out.push(x);
    else if (ts.isArrayLiteralExpression(x)) x.elements.forEach((el) => note(el as ts.Expression));
    else if (ts.isObjectLiteralExpression(x))
      for (const p of x.properties) {
        if (ts.isShorthandPropertyAssignment(p)) out.push(p.name);
        else if (ts.isPropertyAssignment(p)) note(p.initializer);
      }
  };
  const visit = (n: ts.Node): void => {
    if (ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment) note(n.left);
    else if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken)) note(n.operand);
    n.forEachChild(visit);
  };
  if (fn.body) visit(fn.body);
  return out;
}

/**
 * A `const` declaration, or a `let`/`var` one of a function (`var sq = function (v) { … }`, older
 * JavaScript's way) that nothing assigns again and nothing names before it: it holds one function.
 */
export function isFixedBinding(d: ts.VariableDeclaration, checker: ts.TypeChecker): boolean {
  if (!ts.isVariableDeclarationList(d.parent)) return false;
  if (d.parent.flags & ts.NodeFlags.Const) return true;
  const init = d.initializer && skip(d.initializer);
  if (!init || !(ts.isArrowFunction(init) || ts.isFunctionExpression(init)) || !ts.isIdentifier(d.name)) return false;
  const scope = enclosingFn(d) ?? d.getSourceFile();
  if (isAssignedIn(d.name, scope, checker)) return false;
  // (a hoisted `var` read above its declaration holds undefined there)
  const sym = checker.getSymbolAtLocation(d.name);
  let early = false;
  const visit = (n: ts.Node): void => {
    if (early) return;
    if (ts.isIdentifier(n) && n !== d.name && n.text === (d.name as ts.Identifier).text && n.pos < d.end && checker.getSymbolAtLocation(n) === sym) early = true;
    n.forEachChild(visit);
  };
  visit(scope);
  return !early;
}

/** a local function's declaration: a nested `function f` or a `const f = (…) => …` inside a function */
export function isLocalFunctionDecl(d: ts.Node, checker: ts.TypeChecker): boolean {
  if (ts.isFunctionDeclaration(d)) return !!d.body && !ts.isSourceFile(d.parent);
  if (!ts.isVariableDeclaration(d) || !d.initializer || !ts.isVariableDeclarationList(d.parent) || !isFixedBinding(d, checker)) return false;
  const init = skip(d.initializer);
  return (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) && !ts.isSourceFile(d.parent.parent.parent);
}

/** the local functions a function calls or mentions (by their declarations), found by `isLocal` */
function mentioned(fn: FnNode, checker: ts.TypeChecker, isLocal: (d: ts.Node) => boolean): FnNode[] {
  const out: FnNode[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && !isName(n)) {
      const d = checker.getSymbolAtLocation(n)?.declarations?.[0];
      if (d && !inside(d, fn) && isLocal(d)) {
        const f = ts.isFunctionDeclaration(d) ? d : ts.isVariableDeclaration(d) && d.initializer ? skip(d.initializer) : null;
        if (f && isFnNode(f)) out.push(f);
      }
    }
    n.forEachChild(visit);
  };
  if (fn.body) visit(fn.body);
  return out;
}

/** targets outside `fn` (transitively through the local functions it calls) that `fn` assigns; `roots`: element stores count */
function outsideTargets(fn: FnNode, checker: ts.TypeChecker, roots: boolean, isLocal: (d: ts.Node) => boolean): ts.Identifier[] {
  const out: ts.Identifier[] = [];
  const seen = new Set<FnNode>();
  const visit = (f: FnNode) => {
    if (seen.has(f)) return;
    seen.add(f);
    // (a local function's own variables, reassigned, are its call's, not anyone's outside: `predict`'s
    // `z`, `j`; a store through one may still reach an array from outside)
    const reassigned = new Set(assignTargets(f, false));
    for (const id of assignTargets(f, roots)) {
      const d = checker.getSymbolAtLocation(id)?.declarations?.[0];
      if (d && !inside(d, fn) && !(reassigned.has(id) && inside(d, f))) out.push(id);
    }
    for (const g of mentioned(f, checker, isLocal)) visit(g);
  };
  visit(fn);
  return out;
}

/** variables outside `fn` it reassigns (`total += v`), directly or through local functions it calls */
function rebinds(fn: FnNode, checker: ts.TypeChecker, isLocal: (d: ts.Node) => boolean = () => false): ts.Identifier[] {
  return outsideTargets(fn, checker, false, isLocal);
}

/** what `fn` writes outside itself: reassigned variables, and arrays or objects stored into */
export function writesOutside(fn: FnNode, checker: ts.TypeChecker, isLocal: (d: ts.Node) => boolean = () => false): ts.Identifier[] {
  return outsideTargets(fn, checker, true, isLocal);
}

function writesIntoCaptured(fn: FnNode, checker: ts.TypeChecker): boolean {
  return outsideTargets(fn, checker, true, () => false).length > 0;
}

/** the parameters of `fn` its body reassigns */
function rebindsOwn(fn: FnNode, checker: ts.TypeChecker): ts.ParameterDeclaration[] {
  const out: ts.ParameterDeclaration[] = [];
  for (const id of assignTargets(fn, false)) {
    const d = checker.getSymbolAtLocation(id)?.declarations?.[0];
    if (d && ts.isParameter(d) && d.parent === fn) out.push(d);
  }
  return out;
}

