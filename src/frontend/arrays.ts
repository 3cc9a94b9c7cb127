// Arrays as JavaScript programs write them (issue 16): untyped arrays typed from their use (`const out
// = []` then pushes, `new Array(n)` filled by the loop after it), spread in array literals, `slice(a, b)`,
// `concat`, `fill`/`reverse` used as values, `indexOf`/`includes`. Each lowers to forms the rest of
// tsad already differentiates under the reference model: a fresh array built by pushes (its adjoint
// pops them back into the sources), in-place loops of element stores or row swaps (returning the same
// object, so `const r = a.reverse()` makes r and a one object), passive intrinsics. What cannot be typed
// or proved free of holes is refused with a located diagnostic.
import ts from 'typescript';
import type { Expr, Loc, Stmt, Ty } from '../ir/types.js';
import { BOOL, INT, NUM, VOID, containsCall, isRef, tyOf } from '../ir/util.js';

/** The source forms this module lowers, for coverage accounting (test/fuzz/coverage.ts reads `origin`). */
export const ARRAY_FORMS = [
  'array.evolving', // `const out = []` typed from its uses (TypeScript's evolving array), then pushes
  'array.unfilled', // `new Array(n)` / `Array(n)` filled by the counted loop right after it
  'array.spread', // `[...x]`, `[...a, ...b]`, `[x0, ...rest]`, `Array.from(x)`
  'array.slice', // `a.slice(from, to)` (a fresh copy of a range)
  'array.concat', // `a.concat(b, …)`
  'array.fill', // `a.fill(v)` used as a value (the array itself)
  'array.reverse', // `a.reverse()` (in place, the array itself)
  'array.search', // `a.indexOf(v)`, `a.includes(v)` (passive)
  'array.set', // `t.set(src, offset)` on a typed array (element stores, in place)
  'array.rest', // a rest parameter's array (`function sum(...xs: number[])`), built at each call from its trailing arguments
  'array.pushmany', // `out.push(a, b, …)`: one push per value, the values evaluated first
  'array.pushspread', // `out.push(...xs)` of numbers: the count taken first, then a push per element
  'array.flat', // `rows.flat()`: a fresh array of the rows' elements, in order (depth 1)
  'array.sort', // `xs.sort((a, b) => a - b)`, objects or rows by a key (`(a, b) => a.v - b.v`): in place, through a passive order (`sortOrder`) and a copy
  'array.argsort', // indices sorted by another array's values (`order.sort((i, j) => xs[i] - xs[j])`): the same order and moves
  'array.keys', // `Array.from(xs.keys())`, `Int32Array.from(xs.keys())`, `[...xs.keys()]`: the indices 0, 1, … as a fresh array
  'array.splice', // `a.splice(start, count, ...items)`, `a.unshift(...items)`: in place, the elements from start on set aside, cut off and pushed back around the items
  'array.with', // `a.with(i, v)` (ES2023): a copy with one element replaced (a RangeError outside the array)
] as const;
export type ArrayForm = (typeof ARRAY_FORMS)[number];

type ArrTy = Extract<Ty, { k: 'arr' }>;

/** What the lowering of a function lends this module. */
export interface ArrayHost {
  checker: ts.TypeChecker;
  convert(t: ts.Type, at: ts.Node): Ty | null;
  typeAt(n: ts.Node): Ty | null;
  locOf(n: ts.Node): Loc;
  expr(e: ts.Expression): Expr | null;
  err(n: ts.Node, msg: string, hint?: string): null;
  fresh(base: string): string;
  declareVar(node: ts.Node, name: string, ty: Ty): string;
  /** the type a local variable was given by this lowering (null: not a local) */
  varTy(id: ts.Identifier): Ty | null;
  /** appends a statement to those evaluated before the expression being lowered */
  emit(s: Stmt): void;
  /** inside `&&`, `||`, `? :` or a loop condition: statements emitted before would run unconditionally */
  inCondition(): boolean;
}

const ANNOTATE = 'annotate the variable, e.g. `const out: number[] = []`';

function v(name: string, ty: Ty): Extract<Expr, { k: 'var' }> {
  return { k: 'var', name, ty };
}
function int(n: number): Expr {
  return { k: 'num', v: n };
}
function tag(s: Stmt, form: ArrayForm, loc: Loc): Stmt {
  s.loc = loc;
  s.origin = form;
  return s;
}
/** `for (let k = from; k < to; k++) body` */
function countUp(k: string, from: Expr, to: Expr, body: Stmt[]): Stmt {
  const kv = v(k, INT);
  return {
    k: 'for',
    init: [{ k: 'decl', name: k, ty: INT, init: from, konst: false }],
    cond: { k: 'bin', op: '<', a: kv, b: to, ty: BOOL },
    update: [{ k: 'assign', target: kv, value: { k: 'bin', op: '+', a: kv, b: int(1), ty: INT }, op: '+', inc: true }],
    body,
  };
}
const push = (arr: Expr, x: Expr): Stmt => ({ k: 'expr', e: { k: 'intr', fn: 'push', args: [arr, x], ty: { k: 'void' } } });
/** the element type an array gets from a stored value: integers are numbers once stored */
const storedTy = (t: Ty): Ty => (t.k === 'int' ? NUM : t);
export const arrOf = (elem: Ty): ArrTy => ({ k: 'arr', elem: storedTy(elem), typed: false, ro: false });

function isArrayCtor(e: ts.Expression): e is ts.NewExpression | ts.CallExpression {
  return (ts.isNewExpression(e) || ts.isCallExpression(e)) && ts.isIdentifier(e.expression) && e.expression.text === 'Array';
}

/** `Array(n)` / `new Array(n)` (one length argument, no element list) */
export function isArrayOfLength(e: ts.Expression): e is ts.NewExpression | ts.CallExpression {
  return isArrayCtor(e) && e.arguments?.length === 1 && !ts.isSpreadElement(e.arguments[0]);
}

/** `new Array(n).fill(v)` / `Array(n).fill(v)` */
export function isArrayFill(e: ts.Expression): e is ts.CallExpression {
  return ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === 'fill' && isArrayCtor(skip(e.expression.expression));
}

function skip(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return e;
}

// ------------------------------------------------------------------------------------------------
// Declarations of untyped arrays
// ------------------------------------------------------------------------------------------------

/**
 * `const out = []`, `const a = new Array(n)` (or `Array(n)`) and `new Array(n).fill(v)` without an
 * annotation: TypeScript types them `any[]` (an evolving array for `[]`), which tsad cannot take as it
 * is. Returns the declaration statements when this function lowers `d`, or undefined when it is not one
 * of these (or is annotated, which types it). Errors are reported and give an empty list.
 */
export function untypedArrayDecl(h: ArrayHost, d: ts.VariableDeclaration, konst: boolean): Stmt[] | undefined {
  if (!ts.isIdentifier(d.name) || !d.initializer) return undefined;
  const init = skip(d.initializer);
  const isEmpty = ts.isArrayLiteralExpression(init) && init.elements.length === 0;
  const unfilled = isArrayOfLength(init);
  if (!isEmpty && !unfilled && !isArrayFill(init)) return undefined;
  const declared = h.typeAt(d.name);
  // annotated (or typed by `new Array<number>(n)`): the declared type holds, unless holes are at stake
  if (declared && !(unfilled && declared.k === 'arr' && !isRef(declared.elem))) return undefined;
  const loc = h.locOf(d);
  if (isEmpty) {
    const ty = declared ?? evolvedType(h, d.name);
    if (!ty) return refused(h, d);
    const name = h.declareVar(d, d.name.text, ty);
    return [tag({ k: 'decl', name, ty, init: { k: 'arrlit', elems: [], ty }, konst }, 'array.evolving', loc)];
  }
  if (!unfilled) {
    // `new Array(n).fill(v)`: the element type is the fill value's
    const x = h.expr(d.initializer);
    if (!x) return [];
    const name = h.declareVar(d, d.name.text, tyOf(x));
    return [{ k: 'decl', name, ty: tyOf(x), init: x, konst, loc }];
  }
  return unfilledDecl(h, d, init as ts.NewExpression | ts.CallExpression, declared, konst, loc);
}

/** After a refusal (already reported), the name is still declared, so that its uses report nothing more. */
function refused(h: ArrayHost, d: ts.VariableDeclaration): Stmt[] {
  h.declareVar(d, (d.name as ts.Identifier).text, arrOf(NUM));
  return [];
}

/**
 * The element type of an evolving `const out = []`: what the checker says the array is where it is read
 * (it evolves with every push and element store before that point), else the type of the values pushed
 * or stored into it. Conflicting or missing evidence is refused.
 */
function evolvedType(h: ArrayHost, name: ts.Identifier): Ty | null {
  const sym = h.checker.getSymbolAtLocation(name);
  const scope = enclosingFunction(name);
  const seen: Ty[] = [];
  const stored: Ty[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && n !== name && sym && h.checker.getSymbolAtLocation(n) === sym) {
      const t = h.convert(h.checker.getTypeAtLocation(n), n);
      if (t && t.k === 'arr') seen.push(t);
      const p = n.parent;
      // `out.push(x)`, `out[i] = x`: evidence of the element type (a value the checker types `any` is
      // none: it is computed from the array's own elements, `st.push(st.pop() * x)`, which TypeScript
      // cannot type; its lowering gives it its real type)
      const evidence = (v: ts.Expression) => {
        if (!(h.checker.getTypeAtLocation(v).flags & ts.TypeFlags.Any)) stored.push(h.typeAt(v) ?? { k: 'void' });
      };
      if (ts.isPropertyAccessExpression(p) && p.name.text === 'push' && ts.isCallExpression(p.parent) && p.parent.expression === p)
        for (const a of p.parent.arguments) if (!ts.isSpreadElement(a)) evidence(a);
      if (ts.isElementAccessExpression(p) && p.expression === n && ts.isBinaryExpression(p.parent) && p.parent.left === p && p.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken)
        evidence(p.parent.right);
    }
    n.forEachChild(visit);
  };
  if (scope) visit(scope);
  const key = (t: Ty) => JSON.stringify(t);
  const pick = (ts_: Ty[]): Ty | null | 'conflict' => {
    if (!ts_.length) return null;
    return ts_.every((t) => key(t) === key(ts_[0])) ? ts_[0] : 'conflict';
  };
  const fromReads = pick(seen);
  const fromStores = pick(stored.map(storedTy));
  if (fromReads && fromReads !== 'conflict') return fromReads;
  if (fromStores && fromStores !== 'conflict' && fromStores.k !== 'void') return arrOf(fromStores);
  return h.err(name, `cannot determine the element type of '${name.text}' (an empty array literal is typed by what is pushed into it${fromReads === 'conflict' || fromStores === 'conflict' ? ', and values of different types are' : ''})`, ANNOTATE);
}

function enclosingFunction(n: ts.Node): ts.Node | undefined {
  let p: ts.Node | undefined = n.parent;
  while (p && !ts.isFunctionLike(p) && !ts.isSourceFile(p)) p = p.parent;
  return p;
}

/**
 * `const a = new Array(n)` of numbers: its elements are holes (`undefined`) until written. Accepted
 * only when the next statement (past declarations that do not mention `a`) is a counted loop over
 * `0 … n-1` (or `a.length`) whose body stores `a[i]` unconditionally, reads no element before that
 * store and only `a[i]` after it, and does not skip the store, leave early or change the bound (statements
 * that do not mention `a` may stand between, the filling of other arrays too): then
 * every element is written before anything can read it, and allocating it zero-filled computes the
 * same values.
 */
function unfilledDecl(h: ArrayHost, d: ts.VariableDeclaration, init: ts.NewExpression | ts.CallExpression, declared: Ty | null, konst: boolean, loc: Loc): Stmt[] {
  const name = (d.name as ts.Identifier).text;
  const nNode = init.arguments![0];
  const proof = fillingLoop(d, name, nNode);
  if (typeof proof === 'string') {
    h.err(init, `'${name}' is created with holes (\`${init.getText()}\` has no elements) and ${proof}`, `write \`new Array(${nNode.getText()}).fill(0)\`, or fill it in the loop right after it: \`for (let i = 0; i < ${nNode.getText()}; i++) ${name}[i] = …;\``);
    return refused(h, d);
  }
  let ty = declared;
  if (!ty) {
    const st = h.typeAt(proof.value);
    if (!st) {
      h.err(proof.value, `cannot determine the element type of '${name}' from this value`, ANNOTATE);
      return refused(h, d);
    }
    ty = arrOf(st);
  }
  if (ty.k !== 'arr') {
    h.err(d, `cannot type '${name}'`, ANNOTATE);
    return refused(h, d);
  }
  const len = h.expr(nNode);
  if (!len) return [];
  const vn = h.declareVar(d, name, ty);
  // every element is written by the loop before any read: the zero fill is never observed
  const fill = ty.elem.k === 'num' ? int(0) : null;
  return [tag({ k: 'decl', name: vn, ty, init: { k: 'alloc', len, fill, ty }, konst }, 'array.unfilled', loc)];
}

/**
 * The first store of the statements that fill every element, or why there are none. Filled means:
 * a counted loop stores `a[i]` in each pass, up from 0 to the length, or down from the last index to
 * 0 (`for (let i = n - 1; i >= 0; i--)`), after the declaration (past statements not mentioning `a`); before the loop, stores of the
 * first elements (`a[0] = …`, going up) or of the last ones (`a[n - 1] = …`, going down) may start a
 * recurrence, the loop then starting past them. The loop reads `a[i]` after its store, and elements
 * already written: `a[i - k]` going up, `a[i + k]` going down (k ≥ 1: an index outside the array reads
 * undefined either way).
 */
function fillingLoop(d: ts.VariableDeclaration, name: string, nNode: ts.Expression): { value: ts.Expression } | string {
  const vs = d.parent.parent;
  const list = ts.isVariableStatement(vs) && (ts.isBlock(vs.parent) || ts.isSourceFile(vs.parent) || ts.isCaseClause(vs.parent) || ts.isDefaultClause(vs.parent)) ? vs.parent.statements : null;
  // (statements in between that do not mention it, `let mx = -Infinity;`, the filling of another array,
  // cannot read it: nothing else holds it yet)
  let k = list ? list.indexOf(vs) + 1 : -1;
  const mentions = (n: ts.Node): boolean => (ts.isIdentifier(n) && n.text === name) || !!n.forEachChild(mentions);
  const skipOthers = () => {
    while (list && k < list.length && !mentions(list[k])) k++;
  };
  skipOthers();
  const noLoop = `is not filled by a counted loop right after it (reading a hole gives undefined)`;
  // (`var a = new Array(n), b = new Array(n)`: the other declarations must not read it)
  if ((d.parent as ts.VariableDeclarationList).declarations.some((o) => o !== d && mentions(o)) || !list) return noLoop;
  if (!pureLength(nNode)) return 'its length is not a plain name, literal or `.length`';
  const n = squash(nNode.getText());
  const isLength = (e: ts.Expression) => squash(e.getText()) === n || squash(e.getText()) === `${name}.length`;
  // (a length written `m + 1`: the last index is `m`, and `m - j` the one j before it)
  const base = n.endsWith('+1') ? n.slice(0, -2) : null;
  const lengthMinus = (e: ts.Expression, j: number): boolean => {
    e = skip(e);
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.MinusToken && isLength(e.left) && ts.isNumericLiteral(e.right) && Number(e.right.text) === j) return true;
    if (base === null) return false;
    if (j === 1) return squash(e.getText()) === base;
    return ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.MinusToken && squash(e.left.getText()) === base && ts.isNumericLiteral(e.right) && Number(e.right.text) === j - 1;
  };
  // `a[j] = e` for the first elements in order (up), or `a[n - 1 - j] = e` for the last (down), e not reading `a`
  const preStore = (st: ts.Statement, j: number): { up: boolean; value: ts.Expression } | null => {
    const e = ts.isExpressionStatement(st) && ts.isBinaryExpression(st.expression) && st.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken ? st.expression : null;
    const t = e && ts.isElementAccessExpression(e.left) && ts.isIdentifier(e.left.expression) && e.left.expression.text === name ? e.left : null;
    if (!e || !t || mentions(e.right)) return null;
    const ix = skip(t.argumentExpression);
    if (ts.isNumericLiteral(ix) && Number(ix.text) === j) return { up: true, value: e.right };
    return lengthMinus(ix, j + 1) ? { up: false, value: e.right } : null;
  };
  const pre: { up: boolean; value: ts.Expression }[] = [];
  while (k < list.length) {
    const p = preStore(list[k], pre.length);
    if (!p || (pre.length && p.up !== pre[0].up)) break;
    pre.push(p);
    k++;
    skipOthers();
  }
  const next = list[k];
  if (!next || !ts.isForStatement(next)) return noLoop;
  const up = pre.length ? pre[0].up : !isCountdown(next);
  const fi = next.initializer;
  if (!fi || !ts.isVariableDeclarationList(fi) || fi.declarations.length !== 1) return noLoop;
  const iv = fi.declarations[0];
  if (!ts.isIdentifier(iv.name) || !iv.initializer) return noLoop;
  const i = iv.name.text;
  const start = skip(iv.initializer);
  if (up) {
    // for (let i = p; i < n; i++), p the stores before it
    if (!ts.isNumericLiteral(start) || Number(start.text) !== pre.length) return pre.length ? `the loop after it does not start at ${pre.length}, past the elements stored before it` : 'the loop after it does not start at 0';
    const c = next.condition;
    const test = c && ts.isBinaryExpression(c) && ts.isIdentifier(c.left) && c.left.text === i ? c : null;
    // (`i < n`, or `i <= n - 1`: up to the last index)
    const below = test && test.operatorToken.kind === ts.SyntaxKind.LessThanToken && isLength(test.right);
    const upTo = test && test.operatorToken.kind === ts.SyntaxKind.LessThanEqualsToken && lengthMinus(test.right, 1);
    if (!below && !upTo) return `the loop after it does not run \`${i}\` up to its length`;
    if (!stepsBy(next.incrementor, i, ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.PlusEqualsToken)) return `the loop after it does not step \`${i}\` by 1`;
  } else {
    // for (let i = n - 1 - p; i >= 0; i--)
    if (!lengthMinus(start, pre.length + 1)) return `the loop after it does not start at the last index not yet stored (\`${n} - ${pre.length + 1}\`)`;
    const c = next.condition;
    const toZero = c && ts.isBinaryExpression(c) && ts.isIdentifier(c.left) && c.left.text === i && ts.isNumericLiteral(skip(c.right)) && ((c.operatorToken.kind === ts.SyntaxKind.GreaterThanEqualsToken && (skip(c.right) as ts.NumericLiteral).text === '0'));
    if (!toZero) return `the loop after it does not run \`${i}\` down to 0`;
    if (!stepsBy(next.incrementor, i, ts.SyntaxKind.MinusMinusToken, ts.SyntaxKind.MinusEqualsToken)) return `the loop after it does not step \`${i}\` down by 1`;
  }
  const body = ts.isBlock(next.statement) ? next.statement.statements : [next.statement];
  // the store `a[i] = …`: a statement of the body itself (not inside a branch), anywhere in it
  const storeOf = (st: ts.Statement) => {
    const e = ts.isExpressionStatement(st) && ts.isBinaryExpression(st.expression) && st.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken ? st.expression : null;
    const t = e && ts.isElementAccessExpression(e.left) ? e.left : null;
    return e && t && ts.isIdentifier(t.expression) && t.expression.text === name && ts.isIdentifier(t.argumentExpression) && t.argumentExpression.text === i ? { store: e, target: t } : null;
  };
  const at = body.findIndex((st) => storeOf(st) !== null);
  if (at < 0) return `the loop after it does not store \`${name}[${i}] = …\` in its body (outside any branch)`;
  const { store, target } = storeOf(body[at])!;
  // an element written before this pass: `a[i - k]` going up, `a[i + k]` going down (k a literal ≥ 1)
  const written = (ix: ts.Expression): boolean => {
    ix = skip(ix);
    const op = up ? ts.SyntaxKind.MinusToken : ts.SyntaxKind.PlusToken;
    return ts.isBinaryExpression(ix) && ix.operatorToken.kind === op && ts.isIdentifier(ix.left) && ix.left.text === i && ts.isNumericLiteral(ix.right) && Number(ix.right.text) >= 1 && Number.isInteger(Number(ix.right.text));
  };
  // before the store nothing reads `a` but elements already written, or skips the store; after it,
  // `a[i]` too; nowhere does the loop stop early or change `i` or the bound
  const guarded = new Set([i, ...namesIn(nNode)]);
  let bad: string | null = null;
  const visit = (n: ts.Node, inner: boolean, after: boolean): void => {
    if (bad) return;
    if (ts.isIdentifier(n) && n.text === name && n !== target.expression) {
      const p = n.parent;
      const element = ts.isElementAccessExpression(p) && p.expression === n;
      const own = element && after && ts.isIdentifier(p.argumentExpression) && p.argumentExpression.text === i;
      if (!own && !(element && written(p.argumentExpression)))
        bad = `the loop after it reads '${name}' ${after ? `at another index than \`${i}\`` : `before it stores \`${name}[${i}]\``}${up ? ` or \`${i} - 1\`, …` : ` or \`${i} + 1\`, …`} (an element may still be a hole)`;
    } else if (ts.isReturnStatement(n) || ts.isThrowStatement(n) || (ts.isBreakStatement(n) && (!inner || n.label)) || (ts.isContinueStatement(n) && n.label))
      bad = 'the loop after it may stop before the last element';
    else if (!after && ts.isContinueStatement(n) && !inner) bad = `the loop after it may skip its store \`${name}[${i}] = …\``;
    else if (writes(n, guarded)) bad = `the loop after it changes \`${i}\` or the length`;
    const nested = inner || ts.isIterationStatement(n, false) || ts.isSwitchStatement(n);
    n.forEachChild((ch) => visit(ch, nested, after));
  };
  body.forEach((st, j) => visit(st, false, j > at));
  return bad ?? { value: pre[0]?.value ?? store.right };
}

/** is this loop counting down (`i--`, `--i`, `i -= 1`)? */
function isCountdown(loop: ts.ForStatement): boolean {
  const inc = loop.incrementor;
  return !!inc && (((ts.isPostfixUnaryExpression(inc) || ts.isPrefixUnaryExpression(inc)) && inc.operator === ts.SyntaxKind.MinusMinusToken) || (ts.isBinaryExpression(inc) && inc.operatorToken.kind === ts.SyntaxKind.MinusEqualsToken));
}

/** `i++`/`++i`/`i += 1` (or the decrements): the loop's update steps `i` by one */
function stepsBy(inc: ts.Expression | undefined, i: string, unary: ts.SyntaxKind, compound: ts.SyntaxKind): boolean {
  if (!inc) return false;
  if ((ts.isPostfixUnaryExpression(inc) || ts.isPrefixUnaryExpression(inc)) && inc.operator === unary) return ts.isIdentifier(inc.operand) && inc.operand.text === i;
  return ts.isBinaryExpression(inc) && inc.operatorToken.kind === compound && ts.isIdentifier(inc.left) && inc.left.text === i && ts.isNumericLiteral(inc.right) && inc.right.text === '1';
}

const squash = (s: string) => s.replace(/\s+/g, '');

/** a length expression evaluated the same wherever it is written: names, fields, literals, `.length`, arithmetic */
function pureLength(e: ts.Expression): boolean {
  e = skip(e);
  if (ts.isIdentifier(e) || ts.isNumericLiteral(e) || e.kind === ts.SyntaxKind.ThisKeyword) return true;
  // fields and `.length` (plain data in the subset: no getters)
  if (ts.isPropertyAccessExpression(e)) return pureLength(e.expression);
  if (ts.isBinaryExpression(e)) return [ts.SyntaxKind.PlusToken, ts.SyntaxKind.MinusToken, ts.SyntaxKind.AsteriskToken].includes(e.operatorToken.kind) && pureLength(e.left) && pureLength(e.right);
  return false;
}

function namesIn(e: ts.Node): string[] {
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isIdentifier(n)) out.push(n.text);
    n.forEachChild(visit);
  };
  visit(e);
  return out;
}

/** does `n` assign one of `names` (or push/pop/splice it, or set its length)? */
function writes(n: ts.Node, names: Set<string>): boolean {
  const root = (e: ts.Expression): string | null => {
    e = skip(e);
    while (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) e = skip(e.expression);
    return ts.isIdentifier(e) ? e.text : null;
  };
  if (ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment) {
    const l = skip(n.left);
    if (ts.isIdentifier(l)) return names.has(l.text);
    if (ts.isPropertyAccessExpression(l) && l.name.text === 'length') return names.has(root(l) ?? '');
  }
  if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken))
    return ts.isIdentifier(skip(n.operand)) && names.has((skip(n.operand) as ts.Identifier).text);
  if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && ['push', 'pop', 'splice', 'shift', 'unshift'].includes(n.expression.name.text))
    return names.has(root(n.expression.expression) ?? '');
  return false;
}

/**
 * A variable declared from an element of an untyped array (`for (const v of a)`, `const v = a[i]` after
 * `const a = new Array(n)`) is `any` to the checker, and one declared from a copy of it (`[0, ...a]`)
 * `any[]`; the lowered value has the type the array was given here. Only for unannotated declarations (an explicit `any` stays refused).
 */
export function untypedReadType(h: ArrayHost, name: ts.Identifier, init: Expr): Ty | null {
  const d = name.parent;
  if ((ts.isVariableDeclaration(d) || ts.isParameter(d)) && d.type) return null;
  const tt = h.checker.getTypeAtLocation(name);
  const anyElem = h.checker.isArrayType(tt) && !!(h.checker.getTypeArguments(tt as ts.TypeReference)[0]?.flags & ts.TypeFlags.Any);
  if (!(tt.flags & ts.TypeFlags.Any) && !anyElem) return null;
  const t = tyOf(init);
  if (t.k === 'int') return NUM;
  return t.k === 'num' || t.k === 'bool' || isRef(t) ? t : null;
}

/** The type of `[]` assigned to an existing variable (`out = []`) or a branch of a conditional, which TypeScript types `never[]`. */
export function emptyLiteralType(h: ArrayHost, e: ts.ArrayLiteralExpression, varTy: (id: ts.Identifier) => Ty | null): Ty | null {
  const p = e.parent;
  if (ts.isBinaryExpression(p) && p.right === e && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(skip(p.left))) {
    const t = varTy(skip(p.left) as ts.Identifier);
    if (t && t.k === 'arr') return t;
  }
  // `c ? xs.map(…) : []`: the conditional's type (TypeScript gives the empty branch `never[]`)
  let at: ts.Node = e;
  while (ts.isParenthesizedExpression(at.parent)) at = at.parent;
  const c = at.parent;
  if (ts.isConditionalExpression(c) && (c.whenTrue === at || c.whenFalse === at)) {
    const t = h.typeAt(c);
    if (t && t.k === 'arr') return t;
  }
  return null;
}

// ------------------------------------------------------------------------------------------------
// Fresh arrays built from parts: spread literals, concat
// ------------------------------------------------------------------------------------------------

interface Part {
  spread: boolean;
  node: ts.Expression;
  /** already lowered (the receiver of `concat`) */
  pre?: Expr;
}

/**
 * A fresh `number[]` (or array of rows) built by pushing each part in source order, every element of a
 * spread part: `const parts = []; parts.push(x0); for (…) parts.push(rest[k]);`. Parts are lowered one
 * at a time, so their evaluation keeps JavaScript's order.
 */
function buildByPush(h: ArrayHost, at: ts.Node, ty: ArrTy, parts: Part[], form: ArrayForm, base: string): Expr | null {
  if (h.inCondition()) return h.err(at, 'building an array inside a condition is not supported', 'assign it to a variable first');
  const loc = h.locOf(at);
  const t = h.fresh(base);
  const tv = v(t, ty);
  h.emit(tag({ k: 'decl', name: t, ty, init: { k: 'arrlit', elems: [], ty }, konst: true }, form, loc));
  for (const p of parts) {
    let x = p.pre ?? h.expr(p.node);
    if (!x) return null;
    if (!p.spread) {
      h.emit(tag(push(tv, x), form, loc));
      continue;
    }
    const xt = tyOf(x);
    if (xt.k !== 'arr' && xt.k !== 'tuple') return h.err(p.node, 'only arrays can be spread here', 'spread an array');
    if (x.k !== 'var' && x.k !== 'global') {
      const s = h.fresh('src');
      h.emit({ k: 'decl', name: s, ty: xt, init: x, konst: true, loc });
      x = v(s, xt);
    }
    const k = h.fresh('k');
    const el: Expr = { k: 'idx', obj: x, index: v(k, INT), ty: xt.k === 'arr' ? xt.elem : (xt.elems[0] ?? NUM) };
    if (xt.k === 'tuple' && !xt.elems.every((e) => JSON.stringify(e) === JSON.stringify(xt.elems[0]))) return h.err(p.node, 'spreading a tuple of mixed types is not supported', 'list its elements');
    h.emit(tag(countUp(k, int(0), { k: 'len', obj: x }, [push(tv, el)]), form, loc));
  }
  return tv;
}

/**
 * The array a rest parameter receives: `sum(a, ...b, c)` passes one fresh array (named for the
 * parameter), built by pushes from the trailing arguments in order, before the call.
 */
export function restArgument(h: ArrayHost, at: ts.Node, ty: Ty, name: string, nodes: readonly ts.Expression[]): Expr | null {
  if (ty.k !== 'arr' || ty.typed) return h.err(at, `the rest parameter '${name}' must be an array (\`...${name}: number[]\`)`, 'declare it as an array of numbers, arrays or objects');
  const parts = nodes.map((n): Part => (ts.isSpreadElement(n) ? { spread: true, node: n.expression } : { spread: false, node: n }));
  return buildByPush(h, at, { ...ty, ro: false }, parts, 'array.rest', name);
}

/**
 * `a.concat(b, g(a))` evaluates every argument before it reads any array: a call among the arguments
 * may write the arrays (or what the other arguments read). Each argument is then evaluated in order
 * into a constant, unless it is a name or a literal; the arrays' contents are read after all of them.
 */
function argumentsFirst(h: ArrayHost, parts: Part[], loc: Loc): Part[] | null {
  const values = parts.map((p) => p.pre ?? h.expr(p.node));
  if (values.some((x) => !x)) return null;
  if (!values.some((x) => containsCall(x!))) return parts.map((p, i) => ({ ...p, pre: values[i]! }));
  return parts.map((p, i) => {
    const x = values[i]!;
    if (x.k === 'var' || x.k === 'global' || x.k === 'num') return { ...p, pre: x };
    const t = h.fresh(p.spread ? 'src' : 'item');
    h.emit({ k: 'decl', name: t, ty: tyOf(x), init: x, konst: true, loc });
    return { ...p, pre: v(t, tyOf(x)) };
  });
}

/** `[a, ...b, c]` */
export function spreadLiteral(h: ArrayHost, e: ts.ArrayLiteralExpression): Expr | null {
  const ctxTy = h.checker.getContextualType(e);
  let ty = (ctxTy && h.convert(ctxTy, e)) || h.typeAt(e);
  const only = e.elements.length === 1 && ts.isSpreadElement(e.elements[0]) ? keysCall(e.elements[0].expression) : null;
  if (only) return indexRange(h, e, only, ty);
  if (ty && ty.k !== 'arr') ty = null;
  // parts read from untyped arrays (`any[]` to the checker): the element type is what they were given here
  ty ??= partsType(h, e);
  if (!ty) return h.err(e, 'cannot determine the element type of this array literal', 'annotate the variable, e.g. `const a: number[] = [...b]`');
  if (ty.k !== 'arr' || ty.typed) return h.err(e, 'spread is supported in array literals of type number[] (or arrays of arrays and objects) only', 'build the array with push');
  return buildByPush(h, e, { ...ty, ro: false }, e.elements.map((el) => (ts.isSpreadElement(el) ? { spread: true, node: el.expression } : { spread: false, node: el })), 'array.spread', 'parts');
}

/** `Array.from(xs)` without a callback: a fresh array of xs's elements in order, as `[...xs]` (a typed array's too) */
export function arrayFromCopy(h: ArrayHost, call: ts.CallExpression, src: ts.Expression): Expr | null {
  const ty = h.typeAt(call);
  const st = h.typeAt(src);
  if (!ty || ty.k !== 'arr' || ty.typed || !st || st.k !== 'arr') return h.err(call, '`Array.from(xs)` is supported where xs is an array and the result an array (number[], rows or objects)', 'copy with `xs.slice()` or `[...xs]`');
  return buildByPush(h, call, { ...ty, ro: false }, [{ spread: true, node: src }], 'array.spread', 'parts');
}

/** the array type a spread literal's parts agree on, from their lowered types */
function partsType(h: ArrayHost, e: ts.ArrayLiteralExpression): ArrTy | null {
  const elems: Ty[] = [];
  for (const el of e.elements) {
    const node = ts.isSpreadElement(el) ? el.expression : el;
    const t = (ts.isIdentifier(node) ? h.varTy(node) : null) ?? h.typeAt(node);
    if (!t) return null;
    if (ts.isSpreadElement(el)) {
      if (t.k !== 'arr') return null;
      elems.push(storedTy(t.elem));
    } else elems.push(storedTy(t));
  }
  if (!elems.length || !elems.every((t) => JSON.stringify(t) === JSON.stringify(elems[0]))) return null;
  return arrOf(elems[0]);
}

/** nesting depth of arrays (number[] is 1, number[][] is 2); tuples count as arrays */
function depth(t: Ty): number {
  if (t.k === 'arr') return 1 + depth(t.elem);
  if (t.k === 'tuple') return 1 + (t.elems[0] ? depth(t.elems[0]) : 0);
  return 0;
}

// ------------------------------------------------------------------------------------------------
// Array methods
// ------------------------------------------------------------------------------------------------

/**
 * `slice(a, b)`, `concat(…)`, `fill(v)` and `reverse()` as values, `indexOf(v)`, `includes(v)`.
 * Returns undefined when `m` is none of these (the caller reports the method), null on an error.
 */
export function arrayMethod(h: ArrayHost, e: ts.CallExpression, m: string, obj0: Expr): Expr | null | undefined {
  const ot = tyOf(obj0);
  if (ot.k !== 'arr') return undefined;
  const loc = h.locOf(e);
  const args = e.arguments;
  if (args.some((a) => ts.isSpreadElement(a))) return ['concat', 'slice', 'fill', 'reverse', 'indexOf', 'includes', 'splice', 'unshift', 'with'].includes(m) ? h.err(e, `spread arguments to '.${m}()' are not supported`, m === 'splice' || m === 'unshift' ? 'insert the values themselves, or push them in a loop' : 'pass the values themselves') : undefined;
  // the receiver is evaluated once: a name, or a constant bound to it
  const named = (): Expr => {
    if (obj0.k === 'var' || obj0.k === 'global') return obj0;
    const t = h.fresh('arr');
    h.emit({ k: 'decl', name: t, ty: ot, init: obj0, konst: true, loc });
    return v(t, ot);
  };
  switch (m) {
    case 'slice': {
      if (args.length > 2) return h.err(e, '`slice` takes at most two arguments');
      const from = args[0] ? h.expr(args[0]) : int(0);
      const to = args[1] ? h.expr(args[1]) : null;
      if (!from || (args[1] && !to)) return null;
      for (const [a, x] of [[args[0], from], [args[1], to]] as const)
        if (a && x && tyOf(x).k !== 'int' && (tyOf(x).k !== 'num' || containsCall(x))) return h.err(a, '`slice` bounds must be numbers computed without calls here', 'compute the bound into a variable first');
      const fresh = { ...ot, ro: false };
      if (ot.typed) {
        // the typed array's own view of the range (same clamping as slice), copied
        return { k: 'intr', fn: 'copy', args: [{ k: 'sub', obj: obj0, start: from, end: to, ty: { ...ot, ro: false } }], ty: fresh };
      }
      if (h.inCondition()) return h.err(e, '`slice(from, to)` inside a condition is not supported', 'assign it to a variable first');
      const src = named();
      const len: Expr = { k: 'len', obj: src };
      const lo = h.fresh('from');
      const hi = h.fresh('to');
      h.emit(tag({ k: 'decl', name: lo, ty: INT, init: clamp(integer(from), len), konst: true }, 'array.slice', loc));
      h.emit(tag({ k: 'decl', name: hi, ty: INT, init: to ? clamp(integer(to), len) : len, konst: true }, 'array.slice', loc));
      const t = h.fresh('part');
      const tv = v(t, fresh);
      h.emit(tag({ k: 'decl', name: t, ty: fresh, init: { k: 'arrlit', elems: [], ty: fresh }, konst: true }, 'array.slice', loc));
      const k = h.fresh('k');
      h.emit(tag(countUp(k, v(lo, INT), v(hi, INT), [push(tv, { k: 'idx', obj: src, index: v(k, INT), ty: ot.elem })]), 'array.slice', loc));
      return tv;
    }
    case 'flat': {
      const row = ot.elem;
      if (row.k !== 'arr' || row.typed) return h.err(e, '`flat()` is supported on an array of plain arrays only', 'flatten with two loops and `push`');
      if (args.length > 1 || (args[0] && !(ts.isNumericLiteral(args[0]) && args[0].text === '1'))) return h.err(e, '`flat()` is supported with depth 1 only', 'flatten deeper levels with loops and `push`');
      if (h.inCondition()) return h.err(e, '`flat()` inside a condition is not supported', 'assign it to a variable first');
      const src = named();
      const fresh: ArrTy = { k: 'arr', elem: row.elem, typed: false, ro: false };
      const t = h.fresh('flat');
      const tv = v(t, fresh);
      h.emit(tag({ k: 'decl', name: t, ty: fresh, init: { k: 'arrlit', elems: [], ty: fresh }, konst: true }, 'array.flat', loc));
      const r = h.fresh('r');
      const k = h.fresh('k');
      const rowOf: Expr = { k: 'idx', obj: src, index: v(r, INT), ty: row };
      const inner = countUp(k, int(0), { k: 'len', obj: rowOf }, [push(tv, { k: 'idx', obj: rowOf, index: v(k, INT), ty: row.elem })]);
      h.emit(tag(countUp(r, int(0), { k: 'len', obj: src }, [inner]), 'array.flat', loc));
      return tv;
    }
    case 'concat': {
      if (ot.typed) return undefined;
      const d = depth(ot);
      const parts: Part[] = [{ spread: true, node: e.expression, pre: obj0 }];
      for (const a of args) {
        // (`xs.concat([])`, a copy: an empty literal adds nothing, and has no type of its own to check)
        if (ts.isArrayLiteralExpression(a) && a.elements.length === 0) continue;
        // an untyped array (`Array(n)` filled later) has the type its variable was given from its use
        const read = !h.typeAt(a) && ts.isIdentifier(a) ? h.expr(a) : null;
        const at = h.typeAt(a) ?? (read ? tyOf(read) : null);
        if (!at) return h.err(a, 'cannot type this argument of `concat`');
        // an array of the receiver's depth is spread (JavaScript spreads arrays); one level less is an element
        if (depth(at) === d) parts.push({ spread: true, node: a });
        else if (depth(at) === d - 1) parts.push({ spread: false, node: a });
        else return h.err(a, 'this argument of `concat` is neither an array of the same kind nor one element', 'concatenate arrays of the same type');
      }
      const evaluated = argumentsFirst(h, parts, loc);
      return evaluated && buildByPush(h, e, { ...ot, ro: false }, evaluated, 'array.concat', 'joined');
    }
    case 'fill': {
      if (args.length < 1 || args.length > 3) return h.err(e, args.length ? '`fill` takes a value, a start and an end' : '`fill` needs a value', 'write a loop');
      if (h.inCondition()) return h.err(e, '`fill` inside a condition is not supported', 'fill the array in a statement first');
      const arr = named();
      const val = h.expr(args[0]);
      if (!val) return null;
      if (isRef(tyOf(val))) return h.err(e, '`fill` with an array or object would share one value between all elements', 'write a loop storing a fresh value in each element');
      // (`fill(v, start, end)`: bounds relative and clamped as `slice`'s are)
      const from = args[1] ? h.expr(args[1]) : null;
      const to = args[2] ? h.expr(args[2]) : null;
      if ((args[1] && !from) || (args[2] && !to)) return null;
      for (const [a, x] of [[args[1], from], [args[2], to]] as const)
        if (a && x && tyOf(x).k !== 'int' && (tyOf(x).k !== 'num' || containsCall(x))) return h.err(a, '`fill` bounds must be numbers computed without calls here', 'compute the bound into a variable first');
      const len: Expr = { k: 'len', obj: arr };
      const range = from ? { from: clamp(integer(from), len), to: to ? clamp(integer(to), len) : len } : undefined;
      for (const s of fillLoop(h, arr, val, loc, range)) h.emit(tag(s, 'array.fill', loc));
      return arr;
    }
    case 'toSorted':
    case 'toReversed': {
      // (ES2023's copying forms: a copy, sorted or reversed in place as `sort` and `reverse` do)
      if (h.inCondition()) return h.err(e, `\`${m}\` inside a condition is not supported`, 'assign it to a variable first');
      const fresh = { ...ot, ro: false };
      const copy = h.fresh(m === 'toSorted' ? 'sorted' : 'reversed');
      const src = isRef(ot.elem) ? named() : obj0;
      const [made, ...filled] = shallowCopy(h, copy, src, fresh);
      h.emit(tag(made, m === 'toSorted' ? 'array.sort' : 'array.reverse', loc));
      for (const st of filled) h.emit({ ...st, loc });
      return arrayMethod(h, e, m === 'toSorted' ? 'sort' : 'reverse', v(copy, fresh));
    }
    case 'reverse': {
      if (args.length) return h.err(e, '`reverse` takes no arguments');
      if (h.inCondition()) return h.err(e, '`reverse` inside a condition is not supported', 'reverse the array in a statement first');
      const arr = named();
      h.emit(tag(reverseLoop(h, arr, loc), 'array.reverse', loc));
      return arr;
    }
    case 'set': {
      if (!ot.typed) return undefined;
      if (args.length < 1 || args.length > 2) return h.err(e, '`set` takes a source and an offset');
      if (h.inCondition()) return h.err(e, '`set` inside a condition is not supported', 'copy in a statement first');
      const arr = named();
      const src0 = h.expr(args[0]);
      const off0 = args[1] ? h.expr(args[1]) : int(0);
      if (!src0 || !off0) return null;
      const st = tyOf(src0);
      const numeric = (t: Ty) => t.k === 'num' || t.k === 'int';
      if (!(st.k === 'arr' && numeric(st.elem)) && !(st.k === 'tuple' && st.elems.every(numeric))) return h.err(args[0], '`set` copies from an array of numbers here', 'copy with a loop');
      if (off0.k === 'num' && !(Number.isInteger(off0.v) && off0.v >= 0)) return h.err(args[1], "`set`'s offset is not a whole number ≥ 0", 'JavaScript truncates it, or throws a RangeError when negative: write the offset it means');
      // JavaScript truncates the offset to an integer (a loop counter is a float to TypeScript)
      const off = tyOf(off0).k === 'int' || off0.k === 'num' ? off0 : ({ k: 'intr', fn: 'Math.trunc', args: [off0], ty: INT } as Expr);
      for (const s of setLoop(h, arr, src0, off, loc)) h.emit(tag(s, 'array.set', loc));
      return { k: 'undef' };
    }
    case 'sort': {
      // numbers sorted in place by a numeric comparator: the order (passive indices, `sortOrder`) is
      // taken first, then the elements are moved into it from a copy; the array itself is the value
      // (objects or rows by a numeric key, `(a, b) => a.v - b.v`: the order of their keys, the same moves)
      const byKey = args.length === 1 ? comparatorKey(args[0]) : null;
      // (indices sorted by what they index, `(i, j) => xs[i] - xs[j]`: an argsort)
      const indexed = byKey?.outer && (ot.elem.k === 'num' || ot.elem.k === 'int') ? byKey : null;
      const keyed = indexed ?? (isRef(ot.elem) && !ot.typed && byKey && byKey.path.length ? byKey : null);
      if (ot.elem.k !== 'num' && ot.elem.k !== 'int' && !keyed)
        return h.err(isRef(ot.elem) && args.length === 1 ? args[0] : e, '`sort` is supported on arrays of numbers, and on arrays of objects or rows by a numeric key', 'sort by `(a, b) => a.key - b.key` (or `b.key - a.key`), a field or a constant index of each element');
      if (keyed) {
        if (h.inCondition()) return h.err(e, '`sort` inside a condition is not supported', 'sort in a statement of its own');
        const src = named();
        const keysTy: ArrTy = { k: 'arr', elem: NUM, typed: true, ro: false };
        const keys = h.fresh('keys');
        const k0 = h.fresh('k');
        let key: Expr = { k: 'idx', obj: src, index: v(k0, INT), ty: ot.elem };
        if (keyed.outer) {
          const outer = h.expr(keyed.outer);
          if (!outer) return null;
          const outerTy = tyOf(outer);
          if (outerTy.k !== 'arr') return h.err(keyed.outer, 'the comparator indexes something that is not an array', 'sort indices by an array\'s values: `(i, j) => xs[i] - xs[j]`');
          key = { k: 'idx', obj: outer, index: key, ty: outerTy.elem };
        }
        for (const step of keyed.path) {
          const t = tyOf(key);
          const next: Ty | null = typeof step === 'string' ? (t.k === 'obj' ? (t.fields.find((f) => f.name === step && !f.optional)?.ty ?? null) : null) : t.k === 'arr' ? t.elem : t.k === 'tuple' ? (t.elems[step] ?? null) : null;
          if (!next) return h.err(args[0], 'the key of this comparator is not a number every element has', 'sort by a numeric field or a constant index of each element');
          key = typeof step === 'string' ? { k: 'field', obj: key, name: step, ty: next } : { k: 'idx', obj: key, index: int(step), ty: next };
        }
        if (tyOf(key).k !== 'num' && tyOf(key).k !== 'int') return h.err(args[0], 'the key of this comparator is not a number', 'sort by a numeric field or a constant index of each element');
        h.emit(tag({ k: 'decl', name: keys, ty: keysTy, init: { k: 'alloc', len: { k: 'len', obj: src }, fill: null, ty: keysTy }, konst: true }, indexed ? 'array.argsort' : 'array.sort', loc));
        h.emit(tag(countUp(k0, int(0), { k: 'len', obj: src }, [{ k: 'assign', target: { k: 'idx', obj: v(keys, keysTy), index: v(k0, INT), ty: NUM }, value: key }]), 'array.sort', loc));
        // (the copy of the references is the sort's own, not a copy the program makes)
        return moveIntoOrder(h, src, ot, v(keys, keysTy), keyed.dir, loc, true);
      }
      const numeric = args.length ? comparatorKey(args[0]) : null;
      const dir = args.length === 0 ? (ot.typed ? 1 : null) : numeric && !numeric.path.length ? numeric.dir : null;
      if (dir === null)
        return args.length === 0
          ? h.err(e, '`sort()` without a comparator sorts numbers as strings (`[10, 9].sort()` is `[10, 9]`)', 'write `sort((a, b) => a - b)`')
          : h.err(args[0], 'this comparator is not supported: tsad sorts numbers by `(a, b) => a - b` (ascending) or `(a, b) => b - a` (descending)', 'sort by one of those');
      if (h.inCondition()) return h.err(e, '`sort` inside a condition is not supported', 'sort in a statement of its own');
      const src = named();
      return moveIntoOrder(h, src, ot, src, dir, loc, false);
    }
    case 'shift': {
      // the first element taken off: read, the others moved down one place, the last slot popped
      // (moves and a pop, which the adjoint undoes as any; an empty array gives undefined, as JavaScript's)
      if (args.length) return h.err(e, '`shift` takes no arguments');
      if (ot.typed || ot.ro) return h.err(e, '`shift` is supported on arrays (`number[]`, arrays of rows or of objects) only', 'keep an index of the first element in use instead');
      if (h.inCondition()) return h.err(e, '`shift` inside a condition is not supported', 'shift in a statement of its own');
      const src = named();
      const first = h.fresh('first');
      h.emit({ k: 'decl', name: first, ty: ot.elem, init: { k: 'idx', obj: src, index: int(0), ty: ot.elem }, konst: true, loc });
      const k = h.fresh('k');
      const kv = v(k, INT);
      const prev: Expr = { k: 'bin', op: '-', a: kv, b: int(1), ty: INT };
      h.emit(countUp(k, int(1), { k: 'len', obj: src }, [{ k: 'assign', target: { k: 'idx', obj: src, index: prev, ty: ot.elem }, value: { k: 'idx', obj: src, index: kv, ty: ot.elem }, loc }]));
      h.emit({ k: 'if', c: { k: 'bin', op: '>', a: { k: 'len', obj: src }, b: int(0), ty: BOOL }, then: [{ k: 'expr', e: { k: 'intr', fn: 'pop', args: [src], ty: VOID }, loc }], else: [], loc });
      return v(first, ot.elem);
    }
    case 'unshift':
    case 'splice': {
      if (ot.typed || ot.ro) return h.err(e, `\`${m}\` is supported on arrays (\`number[]\`, arrays of rows or of objects) only`, 'build a new array instead');
      if (h.inCondition()) return h.err(e, `\`${m}\` inside a condition is not supported`, `call \`${m}\` in a statement of its own`);
      if (m === 'splice' && args.length === 0) return h.err(e, '`splice` needs a start index');
      const src = named();
      // JavaScript evaluates every argument before it moves anything (an item may read the array)
      const values: Expr[] = [];
      for (const a of args) {
        const x = h.expr(a);
        if (!x) return null;
        values.push(x.k === 'num' || x.k === 'var' ? x : constant(h, x, 'item', loc));
      }
      const bounds = m === 'splice' ? values.slice(0, 2) : [];
      for (const [k, x] of bounds.entries())
        if (tyOf(x).k !== 'int' && tyOf(x).k !== 'num') return h.err(args[k], `\`splice\`'s ${k ? 'count' : 'start'} must be a number`);
      const len: Expr = { k: 'len', obj: src };
      const named0 = (x: Expr, base: string): Expr => (x.k === 'num' ? x : constant(h, x, base, loc));
      const start = m === 'splice' ? named0(clamp(integer(bounds[0]), len), 'start') : int(0);
      // (a count left out removes everything from the start on; one given is clamped to what is there:
      // a literal one ≤ 0 removes nothing)
      const rest: Expr = start.k === 'num' && start.v === 0 ? len : { k: 'bin', op: '-', a: len, b: start, ty: INT };
      const given = bounds[1] && integer(bounds[1]);
      const atLeast0: Expr | undefined = given && (given.k === 'num' ? int(Math.max(Math.trunc(given.v) || 0, 0)) : { k: 'intr', fn: 'Math.max', args: [given, int(0)], ty: INT });
      const count = m === 'unshift' || (atLeast0?.k === 'num' && atLeast0.v === 0) ? int(0) : named0(atLeast0 ? { k: 'intr', fn: 'Math.min', args: [atLeast0, rest], ty: INT } : rest, 'count');
      const items = m === 'splice' ? values.slice(2) : values;
      const value = isStatementLevelCall(e) ? null : m;
      return replaceRange(h, src, ot, start, count, items, value, loc);
    }
    case 'with': {
      // (ES2023's copying store: a copy with the element at a relative index replaced)
      if (args.length !== 2) return h.err(e, '`with` takes an index and a value');
      if (h.inCondition()) return h.err(e, '`with` inside a condition is not supported', 'assign it to a variable first');
      // (the receiver evaluated before the arguments, as JavaScript does)
      const src = named();
      const i0 = h.expr(args[0]);
      const x0 = i0 && h.expr(args[1]);
      if (!i0 || !x0) return null;
      if (tyOf(i0).k !== 'int' && tyOf(i0).k !== 'num') return h.err(args[0], '`with`\'s index must be a number');
      // (the index truncated as JavaScript's ToIntegerOrInfinity does, named unless a literal or an integer name)
      const rel = i0.k === 'num' ? int(Math.trunc(i0.v) || 0) : tyOf(i0).k === 'int' && i0.k === 'var' ? i0 : constant(h, integer(i0), 'at', loc);
      const x = x0.k === 'num' || x0.k === 'var' ? x0 : constant(h, x0, 'value', loc);
      const len: Expr = { k: 'len', obj: src };
      const index: Expr = rel.k === 'num' ? (rel.v < 0 ? { k: 'bin', op: '-', a: len, b: int(-rel.v), ty: INT } : rel) : constant(h, { k: 'cond', c: { k: 'bin', op: '<', a: rel, b: int(0), ty: BOOL }, a: { k: 'bin', op: '+', a: len, b: rel, ty: INT }, b: rel, ty: INT }, 'index', loc);
      const outside: Expr = rel.k === 'num'
        ? rel.v < 0 ? { k: 'bin', op: '>', a: int(-rel.v), b: len, ty: BOOL } : { k: 'bin', op: '>=', a: rel, b: len, ty: BOOL }
        : { k: 'bin', op: '||', a: { k: 'bin', op: '<', a: index, b: int(0), ty: BOOL }, b: { k: 'bin', op: '>=', a: index, b: len, ty: BOOL }, ty: BOOL };
      h.emit(tag({ k: 'if', c: outside, then: [{ k: 'throw', e: { k: 'raw', text: "new RangeError('Invalid index')", ty: VOID }, loc }], else: [] }, 'array.with', loc));
      const fresh: ArrTy = { ...ot, ro: false };
      const copy = isRef(ot.elem) ? copyFrom(h, src, fresh, int(0), 'copy', loc) : v(h.fresh('copy'), fresh);
      if (!isRef(ot.elem)) h.emit({ k: 'decl', name: copy.name, ty: fresh, init: { k: 'intr', fn: 'copy', args: [src], ty: fresh }, konst: true, loc });
      h.emit(tag({ k: 'assign', target: { k: 'idx', obj: copy, index, ty: ot.elem }, value: x }, 'array.with', loc));
      return copy;
    }
    case 'at': {
      // `xs.at(-1)`: the element at a relative index (counted from the end when negative), undefined outside
      if (args.length !== 1) return h.err(e, '`at` takes one index');
      const i0 = h.expr(args[0]);
      if (!i0) return null;
      if ((tyOf(i0).k !== 'int' && tyOf(i0).k !== 'num') || containsCall(i0)) return h.err(args[0], '`at`\'s index must be a number computed without calls here', 'compute the index into a variable first');
      const src = named();
      let i = integer(i0);
      if (i.k === 'num') {
        const index: Expr = i.v < 0 ? { k: 'bin', op: '-', a: { k: 'len', obj: src }, b: int(-i.v), ty: INT } : i;
        return { k: 'idx', obj: src, index, ty: ot.elem };
      }
      // (a computed index is named once, where the read may be named)
      if (i.k !== 'var' && !h.inCondition()) {
        const t = h.fresh('at');
        h.emit({ k: 'decl', name: t, ty: INT, init: i, konst: true, loc });
        i = v(t, INT);
      }
      const fromEnd: Expr = { k: 'bin', op: '+', a: { k: 'len', obj: src }, b: i, ty: INT };
      const index: Expr = { k: 'cond', c: { k: 'bin', op: '<', a: i, b: int(0), ty: BOOL }, a: fromEnd, b: i, ty: INT };
      return { k: 'idx', obj: src, index, ty: ot.elem };
    }
    case 'indexOf':
    case 'includes': {
      if (args.length !== 1) return h.err(e, `\`${m}\` with a start index is not supported`, 'search a range with a loop');
      const x = h.expr(args[0]);
      if (!x) return null;
      return { k: 'intr', fn: m, args: [obj0, x], ty: m === 'indexOf' ? INT : BOOL, loc };
    }
  }
  return undefined;
}

/** `x` named by a constant (evaluated here, once) */
function constant(h: ArrayHost, x: Expr, base: string, loc: Loc): Extract<Expr, { k: 'var' }> {
  const t = h.fresh(base);
  h.emit({ k: 'decl', name: t, ty: tyOf(x), init: x, konst: true, loc });
  return v(t, tyOf(x));
}

/** a call whose value is not used: the statement itself (`a.unshift(v);`) */
function isStatementLevelCall(e: ts.CallExpression): boolean {
  let n: ts.Node = e;
  while (ts.isParenthesizedExpression(n.parent) || ts.isNonNullExpression(n.parent)) n = n.parent;
  return ts.isExpressionStatement(n.parent);
}

/** a fresh array of `src`'s elements from `from` on (`src.slice(from)`: rows and objects shared, as JavaScript does) */
function copyFrom(h: ArrayHost, src: Expr, ty: ArrTy, from: Expr, base: string, loc: Loc, to?: Expr): Extract<Expr, { k: 'var' }> {
  const t = v(h.fresh(base), ty);
  h.emit({ k: 'decl', name: t.name, ty, init: { k: 'arrlit', elems: [], ty }, konst: true, loc });
  const k = h.fresh('k');
  h.emit({ ...countUp(k, from, to ?? { k: 'len', obj: src }, [push(t, { k: 'idx', obj: src, index: v(k, INT), ty: ty.elem })]), loc });
  return t;
}

/**
 * `a.splice(start, count, ...items)` (and `a.unshift(...items)`, a splice at 0 removing nothing) in
 * place, `start` and `count` already clamped: the elements after the removed ones are set aside, the
 * array is cut back to `start` by pops, then the items and the elements set aside are pushed. Every name
 * of the array sees it, and the adjoint undoes pops and pushes as it does anywhere (rows and objects
 * leave and come back with their shadows). The value: the removed elements (a fresh array), the new
 * length for `unshift`, nothing where the call is a statement.
 */
function replaceRange(h: ArrayHost, src: Expr, ot: ArrTy, start: Expr, count: Expr, items: Expr[], value: 'splice' | 'unshift' | null, loc: Loc): Expr {
  const fresh: ArrTy = { ...ot, ro: false };
  const end: Expr = count.k === 'num' && count.v === 0 ? start : start.k === 'num' && start.v === 0 ? count : { k: 'bin', op: '+', a: start, b: count, ty: INT };
  const removed = value === 'splice' ? copyFrom(h, src, fresh, start, 'removed', loc, end) : null;
  const after = copyFrom(h, src, fresh, end, 'after', loc);
  const len: Expr = { k: 'len', obj: src };
  h.emit(tag({ k: 'while', cond: { k: 'bin', op: '>', a: len, b: start, ty: BOOL }, body: [{ k: 'expr', e: { k: 'intr', fn: 'pop', args: [src], ty: VOID }, loc }] }, 'array.splice', loc));
  for (const x of items) h.emit({ ...push(src, x), loc });
  const k = h.fresh('k');
  h.emit({ ...countUp(k, int(0), { k: 'len', obj: after }, [push(src, { k: 'idx', obj: after, index: v(k, INT), ty: ot.elem })]), loc });
  if (value === 'unshift') return constant(h, len, 'newLength', loc);
  return removed ?? { k: 'undef' };
}

/**
 * A comparator `(a, b) => key(a) - key(b)` (ascending, dir 1) or `key(b) - key(a)` (descending, -1),
 * the key the parameter itself (`a - b`: path []) or a field chain or constant indices of it
 * (`a.pos.x`, `a[0]`, `a.p[1]`), the same on both sides; or the same of the element of another array
 * the parameter indexes (`xs[a]`, `pts[a].x`: `outer`, an argsort), that array named without calls
 * and not by a parameter. Null for any other comparator.
 */
function comparatorKey(c: ts.Expression): { path: (string | number)[]; dir: number; outer?: ts.Expression } | null {
  while (ts.isParenthesizedExpression(c)) c = c.expression;
  if (!(ts.isArrowFunction(c) || ts.isFunctionExpression(c)) || c.parameters.length !== 2) return null;
  const [a, b] = c.parameters.map((p) => (ts.isIdentifier(p.name) && !p.initializer && !p.dotDotDotToken ? p.name.text : null));
  if (!a || !b) return null;
  let body: ts.Node = c.body;
  if (ts.isBlock(body)) {
    const only = body.statements.length === 1 ? body.statements[0] : null;
    if (!only || !ts.isReturnStatement(only) || !only.expression) return null;
    body = only.expression;
  }
  while (ts.isParenthesizedExpression(body as ts.Expression)) body = (body as ts.ParenthesizedExpression).expression;
  if (!ts.isBinaryExpression(body) || body.operatorToken.kind !== ts.SyntaxKind.MinusToken) return null;
  type KeyPath = { root: string; path: (string | number)[]; outer?: ts.Expression };
  const pathOf = (e: ts.Expression): KeyPath | null => {
    while (ts.isParenthesizedExpression(e)) e = e.expression;
    if (ts.isIdentifier(e)) return { root: e.text, path: [] };
    if (ts.isPropertyAccessExpression(e) && !e.questionDotToken && ts.isIdentifier(e.name)) {
      const inner = pathOf(e.expression);
      return inner && { ...inner, path: [...inner.path, e.name.text] };
    }
    if (ts.isElementAccessExpression(e) && !e.questionDotToken && ts.isNumericLiteral(e.argumentExpression) && Number.isInteger(Number(e.argumentExpression.text))) {
      const inner = pathOf(e.expression);
      return inner && { ...inner, path: [...inner.path, Number(e.argumentExpression.text)] };
    }
    if (ts.isElementAccessExpression(e) && !e.questionDotToken) {
      const arg = skipParensOf(e.argumentExpression);
      if (ts.isIdentifier(arg) && (arg.text === a || arg.text === b) && isPlainName(e.expression, [a, b])) return { root: arg.text, path: [], outer: e.expression };
    }
    return null;
  };
  const l = pathOf(body.left), r = pathOf(body.right);
  if (!l || !r || JSON.stringify(l.path) !== JSON.stringify(r.path)) return null;
  if (!!l.outer !== !!r.outer || (l.outer && l.outer.getText() !== r.outer!.getText())) return null;
  const outer = l.outer ? { outer: l.outer } : {};
  if (l.root === a && r.root === b) return { path: l.path, dir: 1, ...outer };
  if (l.root === b && r.root === a) return { path: l.path, dir: -1, ...outer };
  return null;
}

function skipParensOf(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  return e;
}

/** a name or a chain of fields of one (`xs`, `this.values`, `s.pts`), naming none of `params` */
function isPlainName(e: ts.Expression, params: string[]): boolean {
  e = skipParensOf(e);
  if (ts.isIdentifier(e)) return !params.includes(e.text);
  if (e.kind === ts.SyntaxKind.ThisKeyword) return true;
  return ts.isPropertyAccessExpression(e) && !e.questionDotToken && isPlainName(e.expression, params);
}

/**
 * The elements of `src` moved, in place, into the order of `keys` (`sortOrder`: passive indices,
 * stable as JavaScript's sort) from a copy taken first; the array itself is the value. `ownCopy`: the
 * copy is counted as the sort's, not as one the program makes (coverage).
 */
function moveIntoOrder(h: ArrayHost, src: Expr, ot: ArrTy, keys: Expr, dir: number, loc: Loc, ownCopy: boolean): Expr {
  const orderTy: ArrTy = { k: 'arr', elem: INT, typed: true, ro: false, ctor: 'Int32Array' };
  const order = h.fresh('order');
  h.emit(tag({ k: 'decl', name: order, ty: orderTy, init: { k: 'intr', fn: 'sortOrder', args: [keys, int(dir)], ty: orderTy }, konst: true }, 'array.sort', loc));
  const prev = h.fresh('unsorted');
  const prevTy: ArrTy = { ...ot, ro: false };
  const [made, ...filled] = shallowCopy(h, prev, src, prevTy);
  if (ownCopy && made.k === 'decl' && made.init?.k === 'intr') made.init.origin = 'array.sort';
  h.emit(tag(made, 'array.sort', loc));
  for (const st of filled) h.emit({ ...st, loc });
  const k = h.fresh('k');
  const at: Expr = { k: 'idx', obj: v(order, orderTy), index: v(k, INT), ty: INT };
  h.emit(tag(countUp(k, int(0), { k: 'len', obj: src }, [{ k: 'assign', target: { k: 'idx', obj: src, index: v(k, INT), ty: ot.elem }, value: { k: 'idx', obj: v(prev, prevTy), index: at, ty: ot.elem } }]), 'array.sort', loc));
  return src;
}

/**
 * `const name = <a copy of src>` (src named), its declaration first: numbers by `copy`; objects or rows
 * by pushes of the same references into `[]`, since a JavaScript copy shares them. Every analysis and transform takes `copy`
 * for fresh storage (its shadow fresh, its adjoint added back into the source's at the end), which a
 * write through the source or another copy of a shared element would escape.
 */
function shallowCopy(h: ArrayHost, name: string, src: Expr, ty: ArrTy): Stmt[] {
  if (!isRef(ty.elem)) return [{ k: 'decl', name, ty, init: { k: 'intr', fn: 'copy', args: [src], ty }, konst: true }];
  const copy = v(name, ty);
  const k = h.fresh('k');
  return [
    { k: 'decl', name, ty, init: { k: 'arrlit', elems: [], ty }, konst: true },
    countUp(k, int(0), { k: 'len', obj: src }, [push(copy, { k: 'idx', obj: src, index: v(k, INT), ty: ty.elem })]),
  ];
}

/** JavaScript's ToIntegerOrInfinity of a bound: truncated, NaN is 0 (an integer bound as it is) */
function integer(x: Expr): Expr {
  if (tyOf(x).k === 'int') return x;
  return { k: 'cond', c: { k: 'intr', fn: 'Number.isNaN', args: [x], ty: BOOL }, a: int(0), b: { k: 'intr', fn: 'Math.trunc', args: [x], ty: INT }, ty: INT };
}

/** JavaScript's relative index: `r < 0 ? max(len + r, 0) : min(r, len)` (a literal needs only one side) */
function clamp(r: Expr, len: Expr): Expr {
  const min: Expr = { k: 'intr', fn: 'Math.min', args: [r, len], ty: INT };
  if (r.k === 'num' && r.v >= 0) return r.v === 0 ? r : min;
  const max: Expr = { k: 'intr', fn: 'Math.max', args: [{ k: 'bin', op: '+', a: len, b: r, ty: INT }, int(0)], ty: INT };
  if (r.k === 'num') return { ...max, args: [{ k: 'bin', op: '-', a: len, b: int(-r.v), ty: INT }, int(0)] };
  return { k: 'cond', c: { k: 'bin', op: '<', a: r, b: int(0), ty: BOOL }, a: max, b: min, ty: INT };
}

/**
 * `a.fill(v)`: a loop of element stores. A value that is not a literal or a name is computed once into a
 * constant first (JavaScript evaluates the argument once).
 */
export function fillLoop(h: ArrayHost, arr: Expr, val: Expr, loc: Loc, range?: { from: Expr; to: Expr }): Stmt[] {
  const out: Stmt[] = [];
  let x = val;
  if (x.k !== 'num' && x.k !== 'var' && x.k !== 'global' && x.k !== 'bool') {
    const t = h.fresh('value');
    out.push({ k: 'decl', name: t, ty: tyOf(x), init: x, konst: true, loc });
    x = v(t, tyOf(x));
  }
  const i = h.fresh('i');
  const et = tyOf(arr).k === 'arr' ? (tyOf(arr) as ArrTy).elem : NUM;
  let from: Expr = int(0);
  let to: Expr = { k: 'len', obj: arr };
  if (range) {
    // (the bounds evaluated once, before the value: JavaScript's order of the arguments is value, start, end,
    // each an expression without calls here, so only the naming matters)
    const lo = h.fresh('from');
    const hi = h.fresh('to');
    out.push({ k: 'decl', name: lo, ty: INT, init: range.from, konst: true, loc }, { k: 'decl', name: hi, ty: INT, init: range.to, konst: true, loc });
    from = v(lo, INT);
    to = v(hi, INT);
  }
  out.push({ ...countUp(i, from, to, [{ k: 'assign', target: { k: 'idx', obj: arr, index: v(i, INT), ty: et }, value: x }]), loc });
  return out;
}

/**
 * `t.set(src, off)`: JavaScript throws a RangeError when the source does not fit, then copies as if
 * through a buffer: a source that may share `t`'s storage (`t` itself, a view of it) is copied first;
 * a literal is fresh.
 */
function setLoop(h: ArrayHost, arr: Expr, src0: Expr, off0: Expr, loc: Loc): Stmt[] {
  const out: Stmt[] = [];
  const once = (x: Expr, base: string): Expr => {
    if (x.k === 'var' || x.k === 'global' || x.k === 'num') return x;
    const t = h.fresh(base);
    out.push({ k: 'decl', name: t, ty: tyOf(x), init: x, konst: true, loc });
    return v(t, tyOf(x));
  };
  const st = tyOf(src0);
  const src = src0.k === 'arrlit' ? once(src0, 'src') : once({ k: 'intr', fn: 'copy', args: [src0], ty: st.k === 'arr' ? { ...st, ro: false } : st }, 'src');
  const off = once(off0, 'offset');
  const et = (tyOf(arr) as ArrTy).elem;
  const literal = off.k === 'num';
  const end: Expr = literal && off.v === 0 ? { k: 'len', obj: src } : { k: 'bin', op: '+', a: off, b: { k: 'len', obj: src }, ty: INT };
  const tooLong: Expr = { k: 'bin', op: '>', a: end, b: { k: 'len', obj: arr }, ty: BOOL };
  const misfit: Expr = literal ? tooLong : { k: 'bin', op: '||', a: { k: 'bin', op: '<', a: off, b: int(0), ty: BOOL }, b: tooLong, ty: BOOL };
  out.push({ k: 'if', c: misfit, then: [{ k: 'throw', e: { k: 'raw', text: "new RangeError('offset is out of bounds')", ty: VOID }, loc }], else: [], loc });
  const k = h.fresh('k');
  const kv = v(k, INT);
  const store: Stmt = { k: 'assign', target: { k: 'idx', obj: arr, index: literal && off.v === 0 ? kv : { k: 'bin', op: '+', a: off, b: kv, ty: INT }, ty: et }, value: { k: 'idx', obj: src, index: kv, ty: tyOf(src).k === 'arr' ? (tyOf(src) as ArrTy).elem : NUM } };
  out.push({ ...countUp(k, int(0), { k: 'len', obj: src }, [store]), loc });
  return out;
}

/** `a.reverse()`: swaps a[k] and a[n-1-k] for k < n/2 (element stores, or row swaps by reference) */
function reverseLoop(h: ArrayHost, arr: Expr, loc: Loc): Stmt {
  const at = tyOf(arr) as ArrTy;
  const k = h.fresh('k');
  const j = h.fresh('j');
  const t = h.fresh('t');
  const kv = v(k, INT), jv = v(j, INT);
  const len: Expr = { k: 'len', obj: arr };
  const half: Expr = { k: 'bin', op: '>>', a: len, b: int(1), ty: INT };
  const el = (i: Expr): Extract<Expr, { k: 'idx' }> => ({ k: 'idx', obj: arr, index: i, ty: at.elem });
  const body: Stmt[] = [
    { k: 'decl', name: j, ty: INT, init: { k: 'bin', op: '-', a: { k: 'bin', op: '-', a: len, b: int(1), ty: INT }, b: kv, ty: INT }, konst: true },
    { k: 'decl', name: t, ty: at.elem, init: el(kv), konst: true },
    { k: 'assign', target: el(kv), value: el(jv) },
    { k: 'assign', target: el(jv), value: v(t, at.elem) },
  ];
  return { ...countUp(k, int(0), half, body), loc };
}

/** `xs.keys()` written as the source of an array (`Array.from(xs.keys())`, `[...xs.keys()]`) */
export function keysCall(e: ts.Expression): ts.Expression | null {
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  if (!ts.isCallExpression(e) || e.arguments.length || !ts.isPropertyAccessExpression(e.expression) || e.expression.questionDotToken) return null;
  return e.expression.name.text === 'keys' ? e.expression.expression : null;
}

/**
 * The indices of an array as a fresh array of type `ty` (`Array.from(xs.keys())`, `Int32Array.from(xs.keys())`,
 * `[...xs.keys()]`): 0, 1, … up to its length, the start of an argsort.
 */
export function indexRange(h: ArrayHost, whole: ts.Node, arrNode: ts.Expression, ty: Ty | null, declare?: (ty: Ty) => string): Expr | null {
  const arr = h.expr(arrNode);
  if (!arr) return null;
  const at = tyOf(arr);
  if (at.k !== 'arr') return h.err(arrNode, '`keys()` is supported on arrays only', 'loop over the indices: `for (let i = 0; i < xs.length; i++)`');
  if (!ty || ty.k !== 'arr' || (ty.elem.k !== 'num' && ty.elem.k !== 'int')) return h.err(whole, 'the indices of an array are supported as an array of numbers only', 'annotate the variable, e.g. `const order: number[] = Array.from(xs.keys())`');
  if (h.inCondition()) return h.err(whole, 'the indices of an array inside a condition are not supported', 'assign them to a variable first');
  const loc = h.locOf(whole);
  const fresh: ArrTy = { ...ty, ro: false };
  const t = declare ? declare(fresh) : h.fresh('indices');
  const tv = v(t, fresh);
  h.emit(tag({ k: 'decl', name: t, ty: fresh, init: { k: 'alloc', len: { k: 'len', obj: arr }, fill: fresh.typed ? null : int(0), ty: fresh }, konst: true }, 'array.keys', loc));
  const k = h.fresh('k');
  h.emit(tag(countUp(k, int(0), { k: 'len', obj: tv }, [{ k: 'assign', target: { k: 'idx', obj: tv, index: v(k, INT), ty: fresh.elem }, value: v(k, INT) }]), 'array.keys', loc));
  return tv;
}
