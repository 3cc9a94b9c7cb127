// Assignments, `++`/`--` and the comma operator inside expressions (issue 16, item 3), lowered with
// temporaries in JavaScript's evaluation order.
//
// The IR has no side effects inside expressions, so an effect nested in an expression (`a[i++] = x`,
// `s += (t = x * x)`, `(k *= 2) < n`) is hoisted: it becomes statements emitted before the statement
// that holds it, and the expression keeps a value standing for its result. Hoisting moves the effect
// before everything of its statement, so an operand JavaScript evaluates *earlier* than a hoisted effect
// and that the effect could change (`x + (x = 2)`, `f(a[j--], b[++j])`) is itself frozen into a
// temporary first: left-to-right order is kept, each operand is evaluated once, `x++` yields the old
// value and `++x` the new one. What cannot be kept exact this way is refused: an effect in a branch of
// `?:`, `&&`, `||` (hoisting would run it unconditionally), in a `case` test or in a parameter default.
// A loop whose condition holds an effect is rewritten so that the effect runs at every test.
import ts from 'typescript';
import type { BinOp, Expr, LValue, Loc, Stmt, Ty } from '../ir/types.js';
import { INT, NUM, settleForHeader, tyOf } from '../ir/util.js';
import { isCallbackCall } from './callbacks.js';
import { assertsPresent } from './jsdoc.js';

/** What the lowering of a function lends this module. */
export interface SequencingHost {
  expr(e: ts.Expression): Expr | null;
  /** an assignment's target (`updates`: its old value is read first, `+=`, `++`) */
  lvalue(e: ts.Expression, updates?: boolean): LValue | null;
  /** an expression used as a statement (an assignment, an increment, a call) */
  exprStmt(e: ts.Expression): Stmt | null;
  err(node: ts.Node, msg: string, hint?: string): null;
  fresh(base: string): string;
  /** appends a statement to those evaluated before the current one */
  emit(s: Stmt): void;
  locOf(n: ts.Node): Loc;
  /** the IR name of the local variable an identifier names, if it names one */
  local(id: ts.Identifier): string | null;
  /** a conditional or `&&`/`||` lowered as an `if` before its statement: its branches are statements */
  isUnfolded(n: ts.Node): boolean;
}

const isAssignOp = (k: ts.SyntaxKind) => k >= ts.SyntaxKind.FirstAssignment && k <= ts.SyntaxKind.LastAssignment;
const isIncDec = (n: ts.Node): n is ts.PrefixUnaryExpression | ts.PostfixUnaryExpression =>
  (ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) &&
  (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken);

/** the array methods that move elements in place and whose value an expression may use */
const RESIZING = new Set(['pop', 'shift', 'unshift', 'splice']);

/** `x.pop()`, `x.shift()`, `x.unshift(v)`, `x.splice(i, k)`: taken as an array's (a class's own method of
 * that name is lowered as a call, and only freezes what it need not) */
const isPopCall = (n: ts.Node): n is ts.CallExpression =>
  ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && RESIZING.has(n.expression.name.text) && (n.arguments.length === 0 || n.expression.name.text === 'unshift' || n.expression.name.text === 'splice');

/** an assignment (plain or compound), an increment/decrement, or an array's `pop()`, `shift()`, `unshift(…)`, `splice(…)` */
export function isEffectNode(n: ts.Node): boolean {
  return (ts.isBinaryExpression(n) && isAssignOp(n.operatorToken.kind)) || isIncDec(n) || isPopCall(n);
}

const isComma = (n: ts.Node): n is ts.BinaryExpression => ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.CommaToken;

/** the node a parenthesized (or `as`-wrapped) expression sits in, and the child on its path */
function outer(n: ts.Node): { child: ts.Node; parent: ts.Node } {
  let child = n;
  let parent = n.parent;
  while (parent && (ts.isParenthesizedExpression(parent) || ts.isAsExpression(parent) || ts.isNonNullExpression(parent) || ts.isSatisfiesExpression(parent))) {
    child = parent;
    parent = parent.parent;
  }
  return { child, parent };
}

/**
 * Whether an expression is lowered as a statement of its own: an expression statement, a `for`
 * header's initializer or update, or a part of a comma list that is one of these. Such an expression
 * is sequenced as statements (nothing of it is hoisted past anything else).
 */
export function isStatementLevel(n: ts.Node): boolean {
  const { child, parent } = outer(n);
  if (!parent) return false;
  if (ts.isExpressionStatement(parent)) return true;
  if (ts.isForStatement(parent)) return parent.initializer === child || parent.incrementor === child;
  return isComma(parent) && isStatementLevel(parent);
}

/** the expression a node's evaluation belongs to: the outermost expression around it (a statement's, a
 * condition's, an initializer's), or a part of a statement-level comma list */
function fullExpression(n: ts.Node): ts.Node {
  let c = n;
  for (;;) {
    if (isStatementLevel(c)) return c;
    const p = c.parent;
    if (!p || ts.isArrowFunction(p) || ts.isFunctionExpression(p)) return c;
    if (!(ts.isExpression(p) || ts.isSpreadElement(p) || ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p))) return c;
    c = p;
  }
}

/** the variables and whether memory (elements, fields, anything a called helper may write) an effect may change */
export interface Writes {
  vars: Set<string>;
  memory: boolean;
}

interface Effect {
  node: ts.Node;
  start: number;
}

export class Sequencing {
  /** whether the function holds any effect nested in an expression (else nothing here runs) */
  private active: boolean;
  private effectsOf = new Map<ts.Node, Effect[]>();
  /** targets of destructuring assignments, lowered as lvalues (never frozen) */
  private targets = new Set<ts.Node>();

  constructor(
    private host: SequencingHost,
    body: ts.Node | undefined,
  ) {
    this.active = !!body && containsNested(body);
  }

  /** marks a node lowered as an assignment target by a destructuring assignment */
  markTarget(n: ts.Node): void {
    this.targets.add(n);
  }

  // ---------- freezing operands evaluated before a hoisted effect ----------

  /**
   * The value of `e` as its statement will read it. When an effect JavaScript evaluates after `e`
   * is hoisted before the statement and may change what `e` reads, `e`'s value is taken into a
   * temporary first (where JavaScript evaluates it).
   */
  settle(e: ts.Expression, r: Expr): Expr {
    if (!this.active || isConstant(r) || this.isTarget(e)) return r;
    const root = fullExpression(e);
    const later = this.effects(root).filter((x) => x.start >= e.end);
    if (!later.length) return r;
    // an operand inside a branch is not evaluated unconditionally: its whole conditional is frozen instead
    if (this.branchBetween(e, root)) return r;
    if (isStable(r, this.writesOf(later))) return r;
    return this.freeze(r, e);
  }

  private isTarget(e: ts.Node): boolean {
    if (this.targets.has(e)) return true;
    const { child, parent } = outer(e);
    if (!parent) return false;
    if (ts.isBinaryExpression(parent) && isAssignOp(parent.operatorToken.kind) && parent.left === child) return true;
    return isIncDec(parent);
  }

  private freeze(r: Expr, at: ts.Node, base?: string): Expr {
    const name = this.host.fresh(base ?? (r.k === 'var' ? `${r.name}Old` : 'tmp'));
    const ty = tyOf(r);
    this.host.emit({ k: 'decl', name, ty, init: r, konst: true, loc: this.host.locOf(at) });
    return { k: 'var', name, ty };
  }

  /** the effects hoisted out of a full expression (not the statement-level root itself), in source order */
  private effects(root: ts.Node): Effect[] {
    let list = this.effectsOf.get(root);
    if (!list) {
      const found: Effect[] = [];
      const visit = (n: ts.Node) => {
        if (ts.isArrowFunction(n) || ts.isFunctionExpression(n)) return;
        if (n !== root && (isEffectNode(n) || isCallbackCall(n as ts.Expression))) found.push({ node: n, start: n.getStart() });
        n.forEachChild(visit);
      };
      visit(root);
      list = found;
      this.effectsOf.set(root, list);
    }
    return list;
  }

  private writesOf(effects: Effect[]): Writes {
    const w: Writes = { vars: new Set(), memory: false };
    for (const { node } of effects) {
      if (isPopCall(node)) {
        w.memory = true;
        continue;
      }
      if (!isEffectNode(node)) {
        callbackWrites(node, w, (id) => this.host.local(id));
        continue;
      }
      noteTarget(node, w, (id) => this.host.local(id));
      // a helper called inside a hoisted effect may write the arrays it is given
      node.forEachChild(function visit(n: ts.Node): void {
        if (ts.isCallExpression(n) && !isMathCall(n)) w.memory = true;
        n.forEachChild(visit);
      });
    }
    return w;
  }

  /**
   * A fresh array or object read at once (`[a, b][i]`, `({ p: x }).p`, `a.slice()[i]`), named by a
   * constant before its statement: derivatives follow values through names, and a literal indexed in
   * place would read without its derivative. Where the constant would run when JavaScript does not
   * evaluate the literal (a branch of `?:`, `&&`, `||`), refused.
   */
  nameFresh(e: ts.Expression, r: Expr): Expr | null {
    if (!this.placeable(e, 'an array or object literal (or a copy) read at once', 'name it first: `const t = [a, b];` before the statement, then read `t[i]`')) return null;
    return this.freeze(r, e, 'fresh');
  }

  /**
   * May statements computing `e` run before its statement? Not where JavaScript may not evaluate it (a
   * branch of `?:`, `&&`, `||`), nor in a `case` test or a parameter default: there, a located error.
   */
  placeable(e: ts.Expression, what: string, hint: string): boolean {
    const root = fullExpression(e);
    const p = outer(root).parent;
    if (!this.branchBetween(e, root) && !(p && (ts.isCaseClause(p) || ts.isParameter(p)))) return true;
    this.host.err(e, `${what}, inside a branch, a \`case\` test or a parameter default, is not supported`, hint);
    return false;
  }

  /** whether a `?:` branch or the right operand of `&&`/`||`/`??` lies between `n` and `root` */
  private branchBetween(n: ts.Node, root: ts.Node): ts.Node | null {
    let c = n;
    while (c !== root && c.parent) {
      const p = c.parent;
      if (this.host.isUnfolded(p)) return null;
      if (ts.isConditionalExpression(p) && c !== p.condition) return p;
      if (ts.isBinaryExpression(p) && c === p.right && isShortCircuit(p.operatorToken.kind)) return p;
      c = p;
    }
    return null;
  }

  /** an effect hoisting cannot place exactly: reported, and true */
  private misplaced(e: ts.Node, what: string): boolean {
    const root = fullExpression(e);
    const branch = this.branchBetween(e, root);
    if (branch) {
      const kind = ts.isConditionalExpression(branch) ? 'a branch of `? :`' : `the right operand of \`${(branch as ts.BinaryExpression).operatorToken.getText()}\``;
      this.host.err(e, `${what} in ${kind} is not supported (it runs only when that operand is evaluated)`, 'write an `if` statement around the assignment');
      return true;
    }
    const p = outer(root).parent;
    if (p && ts.isCaseClause(p)) {
      this.host.err(e, `${what} in a \`case\` test is not supported`, 'compute the value before the `switch`');
      return true;
    }
    if (p && ts.isParameter(p)) {
      this.host.err(e, `${what} in a parameter default is not supported`, 'assign it in the body');
      return true;
    }
    return false;
  }

  // ---------- effects inside expressions ----------

  /** `x = e`, `x op= e` inside an expression: hoisted; the expression reads the value assigned */
  assignment(e: ts.BinaryExpression, compound: BinOp | undefined): Expr | null {
    if (this.misplaced(e, 'an assignment inside an expression')) return null;
    const left = skip(e.left);
    if (ts.isArrayLiteralExpression(left) || ts.isObjectLiteralExpression(left))
      return this.host.err(e, 'a destructuring assignment is supported only as a statement', 'write `[a, b] = [b, a];` as its own statement');
    const st = compound ? this.compound(e, compound) : this.plain(e);
    if (!st) return null;
    if (st.target.k === 'var' || compound) {
      this.host.emit(st);
      return readOf(st.target);
    }
    // `a[i] = v` yields v: a constant or a variable is read again, anything else shares a temporary with the store
    if (isConstant(st.value) || st.value.k === 'var') {
      this.host.emit(st);
      return st.value;
    }
    const v = this.freeze(st.value, e.right);
    this.host.emit({ ...st, value: v });
    return v;
  }

  private plain(e: ts.BinaryExpression): Extract<Stmt, { k: 'assign' }> | null {
    const target = this.host.lvalue(e.left);
    const value = target && this.host.expr(e.right);
    if (!target || !value) return null;
    return { k: 'assign', target, value, loc: this.host.locOf(e) };
  }

  /**
   * `t op= e` as a statement whose right operand holds effects (or any compound assignment inside an
   * expression): the target's parts are evaluated once (an index that calls a function goes into a
   * temporary), and its old value is read before the right operand's effects, as JavaScript does.
   */
  compound(e: ts.BinaryExpression, op: BinOp): Extract<Stmt, { k: 'assign' }> | null {
    let target = this.host.lvalue(e.left, true);
    if (!target) return null;
    if (target.k === 'idx' && containsCallExpr(target.index)) target = { ...target, index: this.freeze(target.index, e.left) };
    let old: Expr = target;
    const inner = this.effects(fullExpression(e)).filter((x) => x.start >= e.right.getStart() && x.start < e.right.end);
    if (inner.length && !isStable(old, this.writesOf(inner))) old = this.freeze(old, e.left);
    const rhs = this.host.expr(e.right);
    if (!rhs) return null;
    const value: Expr = { k: 'bin', op, a: old, b: rhs, ty: op === '|' ? INT : NUM };
    // `t op= e` only while the value reads the target itself (printing `op=` drops the left operand)
    return { k: 'assign', target, value, ...(old === target ? { op } : {}), loc: this.host.locOf(e) };
  }

  /** whether a statement-level compound assignment needs `compound` (its right operand holds effects) */
  rhsHasEffects(e: ts.BinaryExpression): boolean {
    return this.active && this.effects(fullExpression(e)).some((x) => x.start >= e.right.getStart() && x.start < e.right.end);
  }

  /** `++x`, `x--` inside an expression: `x++` yields the old value (kept in a temporary), `++x` the new */
  increment(e: ts.PrefixUnaryExpression | ts.PostfixUnaryExpression): Expr | null {
    if (this.misplaced(e, 'an increment inside an expression')) return null;
    let target = this.host.lvalue(e.operand, true);
    if (!target) return null;
    if (target.k === 'idx' && containsCallExpr(target.index)) target = { ...target, index: this.freeze(target.index, e.operand) };
    const op: BinOp = e.operator === ts.SyntaxKind.PlusPlusToken ? '+' : '-';
    const read = readOf(target);
    const old = ts.isPostfixUnaryExpression(e) ? this.freeze(read, e) : null;
    this.host.emit({ k: 'assign', target, value: { k: 'bin', op, a: read, b: { k: 'num', v: 1 }, ty: NUM }, op, inc: true, loc: this.host.locOf(e) });
    return old ?? read;
  }

  /**
   * `a.pop()` inside an expression: its value is the last element, read into a temporary before the
   * pop; the pop is a statement of its own. The value is undefined for an empty array, so it is
   * nullable (tested, or given a default with `??`) unless the code asserts it present (`a.pop()!`).
   */
  popValue(e: ts.CallExpression, arr: Expr, pop: Stmt): Expr | null {
    if (this.misplaced(e, 'a `pop()` inside an expression')) return null;
    const at = tyOf(arr);
    if (at.k !== 'arr') return null;
    const last: Expr = { k: 'idx', obj: arr, index: { k: 'bin', op: '-', a: { k: 'len', obj: arr }, b: { k: 'num', v: 1 }, ty: INT }, ty: at.elem };
    const asserted = isAssertedPresent(e);
    const name = this.host.fresh(arr.k === 'var' ? `${arr.name}Last` : 'popped');
    const ty: Ty = asserted ? at.elem : { k: 'opt', base: at.elem, none: ['undefined'] };
    this.host.emit({ k: 'decl', name, ty, init: last, konst: true, loc: this.host.locOf(e) });
    this.host.emit(pop);
    return { k: 'var', name, ty };
  }

  /** `(a, b)` inside an expression: `a` runs as a statement, the value is `b`'s */
  comma(e: ts.BinaryExpression): Expr | null {
    if (this.misplaced(e, 'the comma operator')) return null;
    const st = this.host.exprStmt(e.left);
    if (!st) return null;
    this.host.emit(st);
    return this.host.expr(e.right);
  }

  // ---------- loops whose condition holds effects ----------

  /** `while (c)` whose condition needs statements `pre`: `while (true) { pre; if (!c) break; body }` */
  whileLoop(label: string | undefined, pre: Stmt[], c: Expr, body: Stmt[], loc: Loc): Stmt {
    if (!pre.length) return { k: 'while', label, cond: c, body, loc };
    return { k: 'while', label, cond: { k: 'bool', v: true }, body: [...pre, exitUnless(c, loc), ...body], loc };
  }

  /** `for (init; c; update)` likewise: the test moves to the top of the body, where `continue` reaches it after the update */
  forLoop(label: string | undefined, init: Stmt[], pre: Stmt[], c: Expr | null, update: Stmt[], body: Stmt[], loc: Loc): Stmt {
    if (!pre.length || !c) return settleForHeader({ k: 'for', label, init, cond: c, update, body, loc });
    return settleForHeader({ k: 'for', label, init, cond: null, update, body: [...pre, exitUnless(c, loc), ...body], loc });
  }

  /** `do body while (c)`: the statements go at the end of the body; a `continue` would skip them, so it is refused */
  doLoop(node: ts.DoStatement, label: string | undefined, body: Stmt[], pre: Stmt[], c: Expr, loc: Loc): Stmt | null {
    if (!pre.length) return { k: 'do', label, body, cond: c, loc };
    if (continuesTo(body, label)) return this.host.err(node.expression, 'a `do…while` condition with an assignment, in a loop that uses `continue`, is not supported', 'move the assignment into the loop body before the test');
    // (the condition reads the temporaries its statements declare: declared before the loop, assigned in it)
    const declared: Stmt[] = [];
    const tail = pre.map((x): Stmt => {
      if (x.k !== 'decl') return x;
      declared.push({ k: 'decl', name: x.name, ty: x.ty, init: null, konst: false, loc: x.loc });
      return { k: 'assign', target: { k: 'var', name: x.name, ty: x.ty }, value: x.init ?? { k: 'undef' }, loc: x.loc };
    });
    const loop: Stmt = { k: 'do', label, body: [...body, ...tail], cond: c, loc };
    return declared.length ? { k: 'block', body: [...declared, loop], loc } : loop;
  }
}

/** whether `e` is wrapped in a non-null assertion (`e!`, `(e)!`, in JavaScript `/** @type {number} *\/ (e)`) */
function isAssertedPresent(e: ts.Node): boolean {
  for (let p = e.parent; p && (ts.isParenthesizedExpression(p) || ts.isNonNullExpression(p) || ts.isAsExpression(p) || ts.isSatisfiesExpression(p)); p = p.parent)
    if (assertsPresent(p)) return true;
  return false;
}

function exitUnless(c: Expr, loc: Loc): Stmt {
  return { k: 'if', c: { k: 'un', op: '!', a: c, ty: { k: 'bool' } }, then: [{ k: 'break', loc }], else: [], loc };
}

/** whether a `continue` in `body` targets the loop whose body it is */
function continuesTo(body: Stmt[], label: string | undefined): boolean {
  const visit = (ss: Stmt[], nested: boolean): boolean =>
    ss.some((s) => {
      if (s.k === 'continue') return s.label ? s.label === label : !nested;
      if (s.k === 'if') return visit(s.then, nested) || visit(s.else, nested);
      if (s.k === 'for') return visit(s.update, true) || visit(s.body, true);
      if (s.k === 'while' || s.k === 'do') return visit(s.body, true);
      if (s.k === 'switch') return s.cases.some((c) => visit(c.body, nested));
      if (s.k === 'block') return visit(s.body, nested);
      return false;
    });
  return visit(body, false);
}

const isShortCircuit = (k: ts.SyntaxKind) =>
  k === ts.SyntaxKind.AmpersandAmpersandToken || k === ts.SyntaxKind.BarBarToken || k === ts.SyntaxKind.QuestionQuestionToken;

function skip(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return e;
}

function isMathCall(n: ts.CallExpression): boolean {
  const c = n.expression;
  return ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && (c.expression.text === 'Math' || c.expression.text === 'Number');
}

/** whether a function body holds an effect that is not a statement of its own (or a comma inside an expression) */
function containsNested(body: ts.Node): boolean {
  let found = false;
  const visit = (n: ts.Node) => {
    if (found) return;
    if ((isEffectNode(n) || isComma(n) || isCallbackCall(n as ts.Expression)) && !isStatementLevel(n)) {
      found = true;
      return;
    }
    n.forEachChild(visit);
  };
  visit(body);
  return found;
}

/**
 * What a method with a callback (`xs.reduce(…)`, lowered to a loop before its statement) may change:
 * the enclosing variables its callback assigns, and memory where the callback stores into an element
 * or a field or calls a helper.
 */
function callbackWrites(call: ts.Node, w: Writes, local: (id: ts.Identifier) => string | null): void {
  call.forEachChild(function visit(n: ts.Node): void {
    if (isEffectNode(n) && !isPopCall(n)) noteTarget(n, w, local);
    if (isPopCall(n) || (ts.isCallExpression(n) && !isMathCall(n) && !isCallbackCall(n))) w.memory = true;
    n.forEachChild(visit);
  });
}

/** what an assignment or increment writes: a local variable by name, anything else as memory */
function noteTarget(node: ts.Node, w: Writes, local: (id: ts.Identifier) => string | null): void {
  const target = skip(ts.isBinaryExpression(node) ? node.left : (node as ts.PrefixUnaryExpression).operand);
  if (!ts.isIdentifier(target)) w.memory = true;
  else {
    const name = local(target);
    if (name) w.vars.add(name);
  }
}

function readOf(t: LValue): Expr {
  return t;
}

export function isConstant(e: Expr): boolean {
  // (`null` is a raw literal)
  return e.k === 'num' || e.k === 'bool' || e.k === 'str' || e.k === 'undef' || e.k === 'global' || (e.k === 'raw' && e.text === 'null');
}

function containsCallExpr(e: Expr): boolean {
  switch (e.k) {
    case 'call':
      return true;
    case 'intr':
      return !e.fn.startsWith('Math.') || e.args.some(containsCallExpr);
    case 'bin':
      return containsCallExpr(e.a) || containsCallExpr(e.b);
    case 'un':
      return containsCallExpr(e.a);
    case 'cond':
      return containsCallExpr(e.c) || containsCallExpr(e.a) || containsCallExpr(e.b);
    case 'idx':
      return containsCallExpr(e.obj) || containsCallExpr(e.index);
    case 'field':
    case 'len':
      return containsCallExpr(e.obj);
    default:
      return false;
  }
}

/** whether `e` reads the same value before and after effects writing `w` */
export function isStable(e: Expr, w: Writes): boolean {
  switch (e.k) {
    case 'num':
    case 'bool':
    case 'str':
    case 'undef':
    case 'global':
      return true;
    case 'var':
      return !w.vars.has(e.name);
    case 'idx':
      return !w.memory && isStable(e.obj, w) && isStable(e.index, w);
    case 'field':
    case 'len':
      return !w.memory && isStable(e.obj, w);
    case 'bin':
      return isStable(e.a, w) && isStable(e.b, w);
    case 'un':
      return isStable(e.a, w);
    case 'cond':
      return isStable(e.c, w) && isStable(e.a, w) && isStable(e.b, w);
    case 'intr':
      // pure Math functions; the n-ary forms over an array (`Math.maxOf`) read its elements
      if (!e.fn.startsWith('Math.') && !e.fn.startsWith('Number.') && e.fn !== 'isFinite' && e.fn !== 'isNaN') return false;
      return (!e.fn.endsWith('Of') || !w.memory) && e.args.every((a) => isStable(a, w));
    default:
      return false;
  }
}
