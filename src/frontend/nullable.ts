// Nullable, optional and union-typed values, and JavaScript's `&&`, `||` and `??` on numbers.
//
// A value of type `T | null`, `T | undefined` or `T | false` is an IR `opt` type. Such a value is only
// ever *tested* (`=== null`, `== null`, `!== undefined`, `typeof x === 'number'`, `Array.isArray(x)`,
// `'f' in o`: passive properties, so the branch they steer is passive control flow) or *read where a
// test has narrowed it* (the TypeScript checker knows it is a `T` there): such a read is the same
// variable or field with its narrowed type and the `nn` mark (printed `x!`, so that derivative code,
// which moves reads out of the branch that narrowed them, stays `tsc --strict` clean).
//
// `a || b`, `a && b` and `a ?? b` on numbers are short circuits: each becomes a conditional expression
// (`!!a ? a : b`, `!!a ? b : a`, `a !== undefined ? a! : b`), the existing recorded branch: the chosen
// operand is differentiated, the other is not evaluated. The tested operand appears twice, so it must
// be a plain read (a variable or a field); anything else is refused with a hint to name it first.
import ts from 'typescript';
import type { Expr, NoneKind, Ty } from '../ir/types.js';
import { BOOL, WRITING_INTRINSICS, forEachExpr, tyOf } from '../ir/util.js';

/** What the lowering of one function lends to this module. */
export interface NullableHost {
  expr(e: ts.Expression): Expr | null;
  err(node: ts.Node, msg: string, hint?: string): null;
  typeAt(node: ts.Node): Ty | null;
  checker: ts.TypeChecker;
}

export const NULL: Expr = { k: 'raw', text: 'null', ty: { k: 'void' } };

/**
 * `T | null | undefined | false` as an `opt` type, or undefined when the union is not of that shape
 * (the caller then refuses it). Only numbers, arrays and objects can be nullable, and only at the top
 * of a parameter, result, variable or field type (an array of nullable numbers is refused).
 */
export function nullableUnion(parts: readonly ts.Type[], convert: (t: ts.Type) => Ty | null): Ty | null | undefined {
  const none: NoneKind[] = [];
  const rest: ts.Type[] = [];
  for (const p of parts) {
    if (p.flags & ts.TypeFlags.Null) none.push('null');
    else if (p.flags & ts.TypeFlags.Undefined) none.push('undefined');
    else if (p.flags & ts.TypeFlags.BooleanLiteral && (p as { intrinsicName?: string }).intrinsicName === 'false') none.push('false');
    else rest.push(p);
  }
  if (!none.length || !rest.length) return undefined;
  let base: Ty | null;
  // `boolean | undefined` is `true | false | undefined` to the checker: false is a value of the boolean here
  const isTrue = (p: ts.Type) => p.flags & ts.TypeFlags.BooleanLiteral && (p as { intrinsicName?: string }).intrinsicName === 'true';
  if (rest.length === 1 && isTrue(rest[0]) && none.includes('false') && none.length > 1)
    return { k: 'opt', base: BOOL, none: none.filter((n) => n !== 'false') };
  if (rest.every((p) => p.flags & (ts.TypeFlags.Number | ts.TypeFlags.NumberLiteral))) base = { k: 'num' };
  else if (rest.every((p) => p.flags & ts.TypeFlags.StringLiteral)) base = { k: 'str', lits: rest.map((p) => (p as ts.StringLiteralType).value) };
  else if (rest.length === 1) base = convert(rest[0]);
  else return undefined;
  // (an optional string-literal flag, `units?: 'km' | 'mi'`, is passive: only tested)
  if (!base || !(base.k === 'num' || base.k === 'arr' || base.k === 'obj' || base.k === 'tuple' || base.k === 'str')) return undefined;
  const order: NoneKind[] = ['null', 'undefined', 'false'];
  return { k: 'opt', base, none: order.filter((n) => none.includes(n)) };
}

/** Does a nullable type appear below the top of `t` (an array of `number | null`)? Such types are refused. */
export function nestedNullable(t: Ty): boolean {
  const inner = (x: Ty): boolean => x.k === 'opt' || nestedNullable(x);
  if (t.k === 'arr') return inner(t.elem);
  if (t.k === 'tuple') return t.elems.some(inner);
  if (t.k === 'obj') return t.fields.some((f) => (f.ty.k === 'opt' ? nestedNullable(f.ty.base) : nestedNullable(f.ty)));
  if (t.k === 'opt') return nestedNullable(t.base);
  return false;
}

/**
 * A read of a nullable variable or field at `node`: where a test has narrowed it (the checker's type
 * there is its base), the read is marked `nn` and typed by the base; where it is still nullable it
 * keeps the `opt` type (only tests, `??` and passing it on accept that).
 */
export function narrowRead<E extends Extract<Expr, { k: 'var' } | { k: 'field' }>>(h: NullableHost, node: ts.Expression, x: E): E | null {
  if (x.ty.k !== 'opt') return x;
  // (an assignment's target is written, not read: its declared type)
  if (ts.isBinaryExpression(node.parent) && node.parent.left === node && node.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) return x;
  // (where the checker knows it is absent, `let best: number | null = null; if (best === null …)`, the
  // read is of the nullable value, which is absent there)
  const flow = h.checker.getTypeAtLocation(node).flags;
  const absentHere = !!(flow & (ts.TypeFlags.Null | ts.TypeFlags.Undefined));
  // (a read the checker proves is never reached, `best === null || v < best` just after `best = null`:
  // the number, as TypeScript reads it there)
  if (flow & ts.TypeFlags.Never) return { ...x, ty: x.ty.base, nn: true };
  const here = h.typeAt(node);
  if (!here) return absentHere ? x : h.err(node, 'this read of a nullable value has a type tsad cannot follow', 'test it against null or undefined first, or give it a default with `??`');
  if (here.k === 'opt' || here.k === 'void') return x;
  if (here.k === 'bool' && x.ty.base.k !== 'num' && x.ty.base.k !== 'bool')
    return h.err(node, `'${node.getText()}' is always ${x.ty.none.join(' or ')} here`, 'write the literal instead');
  return { ...x, ty: x.ty.base, nn: true };
}

/** a plain read the short circuit may evaluate twice (test and value) */
export function isPlainRead(e: Expr): boolean {
  if (e.k === 'var' || e.k === 'global' || e.k === 'num') return true;
  return e.k === 'field' && isPlainRead(e.obj);
}

/** JavaScript truthiness of a number: false for 0, -0 and NaN (and null, undefined, false) */
export const truthy = (a: Expr): Extract<Expr, { k: 'un' }> => ({ k: 'un', op: '!', a: { k: 'un', op: '!', a, ty: BOOL }, ty: BOOL });

/** `a` present: `a !== null`, `a !== undefined`, both when both may be absent */
export function present(a: Expr, none: NoneKind[]): Expr {
  const tests: Expr[] = [];
  if (none.includes('null')) tests.push({ k: 'bin', op: '!==', a, b: NULL, ty: BOOL });
  if (none.includes('undefined')) tests.push({ k: 'bin', op: '!==', a, b: { k: 'undef' }, ty: BOOL });
  return tests.reduce((x, y) => ({ k: 'bin', op: '&&', a: x, b: y, ty: BOOL }));
}

const narrowed = (a: Expr): Expr => (a.k === 'var' || a.k === 'field') && a.ty.k === 'opt' ? { ...a, ty: a.ty.base, nn: true } : a;

/**
 * `a ?? b`, and `a || b`, `a && b` when they are not both booleans (booleans keep the IR's `&&`/`||`).
 * Returns undefined for boolean operands.
 */
export function shortCircuit(h: NullableHost, e: ts.BinaryExpression, op: '&&' | '||' | '??', a: Expr, b: Expr): Expr | null | undefined {
  const ta = tyOf(a), tb = tyOf(b);
  if (op !== '??' && ta.k === 'bool' && tb.k === 'bool') return undefined;
  const text = e.operatorToken.getText();
  if (op === '??' && ta.k === 'bool') return a; // never null: the fallback is never evaluated
  // `flag ?? true` on an optional boolean: the flag where it was given, else the fallback
  if (op === '??' && ta.k === 'opt' && ta.base.k === 'bool') {
    if (tb.k !== 'bool') return h.err(e.right, `the fallback of \`??\` on an optional boolean must be a boolean`, 'write `flag ?? false` or `flag ?? true`');
    if (!isPlainRead(a)) return h.err(e.left, 'the left operand of `??` must be a variable or a field (it is tested and then used)', 'name it first: `const v = …;` then `v ?? …`');
    return { k: 'cond', c: present(a, ta.none), a: narrowed(a), b, ty: BOOL, sc: op };
  }
  // `opts.on && x > 0`, `opts.on || fallback` with an optional boolean: a flag (or undefined)
  const flag = (t: Ty) => t.k === 'bool' || (t.k === 'opt' && t.base.k === 'bool');
  if (op !== '??' && flag(ta) && flag(tb)) {
    const ty = h.typeAt(e);
    if (!ty || !flag(ty)) return h.err(e, `the result of \`${text}\` here is not a boolean or an optional boolean`, 'compare explicitly and use `c ? a : b`');
    if (!isPlainRead(a)) return h.err(e.left, `the left operand of \`${text}\` must be a variable or a field (it is tested and then used)`, `name it first: \`const v = …;\` then \`v ${text} …\``);
    return op === '||' ? { k: 'cond', c: truthy(a), a: narrowed(a), b, ty, sc: op } : { k: 'cond', c: truthy(a), a: b, b: a, ty, sc: op };
  }
  const numeric = (t: Ty) => t.k === 'num' || t.k === 'int' || (t.k === 'opt' && t.base.k === 'num');
  if (!numeric(ta) || !(numeric(tb) || (op === '&&' && tb.k === 'bool')))
    return h.err(e, `\`${text}\` is supported on numbers (and \`&&\`, \`||\` on booleans) only`, 'compare explicitly and use `c ? a : b`');
  if (op === '??' && ta.k !== 'opt') return a; // never null: the fallback is never evaluated
  if (!isPlainRead(a))
    return h.err(e.left, `the left operand of \`${text}\` must be a variable or a field (it is tested and then used)`, `name it first: \`const v = …;\` then \`v ${text} …\``);
  if (ta.k === 'opt' && ta.none.includes('false') && op === '??')
    return h.err(e, '`??` on a value that may be `false` is not supported', 'test it with `=== false` and use `c ? a : b`');
  // TypeScript says `any` where an operand is read inside a closure (an untyped `var`, a narrowed
  // parameter): two numbers give a number, and so does `??` or `||` with a number as its fallback
  const plain = (t: Ty) => t.k === 'num' || t.k === 'int';
  const fallsBackToNumber = op === '&&' ? plain(ta) && plain(tb) : numeric(ta) && plain(tb);
  const ty = h.typeAt(e) ?? (fallsBackToNumber ? ({ k: 'num' } as Ty) : null);
  if (!ty || (ty.k !== 'num' && ty.k !== 'int' && !(ty.k === 'opt' && ty.base.k === 'num')))
    return h.err(e, `the result of \`${text}\` here is not a number or a nullable number`, 'compare explicitly and use `c ? a : b`');
  const resTy: Ty = ty.k === 'int' ? { k: 'num' } : ty;
  if (op === '??') return { k: 'cond', c: present(a, (ta as Extract<Ty, { k: 'opt' }>).none), a: narrowed(a), b, ty: resTy, sc: op };
  // `a || b`: a where a is truthy (a is then a number, so narrowed), else b; `a && b`: the other way round
  if (op === '||') return { k: 'cond', c: truthy(a), a: narrowed(a), b, ty: resTy, sc: op };
  return { k: 'cond', c: truthy(a), a: b, b: a, ty: resTy, sc: op };
}

/**
 * `u[i + 1] ?? 1`, `u[i - 1] || 0`: an element read of an array, typed a number, is undefined past
 * either end — what such a fallback is written for. The read is taken (and differentiated) only where
 * the index lies inside the array; elsewhere the value is the fallback. Null when `a` is no such read.
 */
export function pastEndFallback(h: NullableHost, e: ts.BinaryExpression, op: '||' | '??', a: Extract<Expr, { k: 'idx' }>, b: Expr): Expr | null {
  const tb = tyOf(b);
  if (tb.k !== 'num' && tb.k !== 'int') return h.err(e.right, `the fallback of \`${op}\` on an array element must be a number`, 'write a number, or test the index: `i + 1 < u.length ? u[i + 1] : …`');
  const inside = presentTest(a);
  // (`||` also falls back on 0 and NaN)
  const c: Expr = op === '??' ? inside : { k: 'bin', op: '&&', a: inside, b: truthy(a), ty: BOOL };
  return { k: 'cond', c, a, b, ty: { k: 'num' } };
}

/**
 * `u[k] === undefined`, `u[k] != null`: for an array of numbers, whether k lies past either end. A
 * number variable compared with undefined that holds such a read (`const r = u[i + 1]`) is refused:
 * its derivative would be taken at an element that does not exist. Undefined: not such a comparison.
 */
export function pastEndTest(h: NullableHost, e: ts.BinaryExpression, op: string, a: Expr, b: Expr): Expr | null | undefined {
  const loose = op === '==' || op === '!=';
  if (!loose && op !== '===' && op !== '!==') return undefined;
  const nothing = (x: Expr) => x.k === 'undef' || (loose && x.k === 'raw' && x.text === 'null');
  if (!nothing(a) && !nothing(b)) return undefined;
  const [x, node] = nothing(a) ? [b, e.right] : [a, e.left];
  const t = tyOf(x);
  // (a nullable variable TypeScript reads as a number: the comparison is the test it needs)
  if ((t.k !== 'num' && t.k !== 'int') || (x.k === 'var' && x.nn)) return undefined;
  if (mayBePastEnd(x)) {
    const inside = presentTest(x);
    return op === '!==' || op === '!=' ? inside : { k: 'un', op: '!', a: inside, ty: BOOL };
  }
  const held = heldElementRead(h, node);
  if (held) return h.err(node, `'${node.getText()}' holds \`${held}\`, which is undefined only past the end of the array: tsad does not follow that through a variable`, `test the read itself: \`${held} ?? 0\`, or the index: \`k < u.length\``);
  return undefined;
}

/**
 * `k >= 0 && k < a.length && a[k] !== undefined` for the element read `a[k]` (the first test left out
 * for a literal index; the last for a typed array): whether the element is there. The bounds alone are
 * not enough for an array with holes, `memo[i] === undefined` in a table filled out of order, or
 * `const k = []; k[3] = …; k[0] = …` (JavaScript reads undefined at a hole, inside the bounds); the
 * bounds come first so that no read goes past the end.
 */
function presentTest(a: Extract<Expr, { k: 'idx' }>): Expr {
  const index = a.index;
  const below: Expr = { k: 'bin', op: '<', a: index, b: { k: 'len', obj: a.obj }, ty: BOOL };
  const inside: Expr = index.k === 'num' && index.v >= 0 ? below : { k: 'bin', op: '&&', a: { k: 'bin', op: '>=', a: index, b: { k: 'num', v: 0 }, ty: BOOL }, b: below, ty: BOOL };
  const t = tyOf(a.obj);
  if (t.k === 'arr' && t.typed) return inside;
  return { k: 'bin', op: '&&', a: inside, b: { k: 'bin', op: '!==', a, b: { k: 'undef' }, ty: BOOL }, ty: BOOL };
}

/**
 * `const r = u[i + 1]` where `r` is later compared with undefined (`r === void 0 ? 0 : r`, as
 * down-levelled destructuring defaults read): the variable may hold undefined, so it becomes a
 * nullable one that holds the element only where the index lies inside the array. Null otherwise.
 */
export function pastEndBinding(h: NullableHost, name: ts.Identifier, init: Expr, ty: Ty): { init: Expr; ty: Ty } | null {
  if ((ty.k !== 'num' && ty.k !== 'int') || !mayBePastEnd(init) || !testedForAbsence(h.checker, name)) return null;
  return { init: { k: 'cond', c: presentTest(init), a: init, b: { k: 'undef' }, ty: { k: 'opt', base: ty, none: ['undefined'] } }, ty: { k: 'opt', base: ty, none: ['undefined'] } };
}

/** is the variable `name` declares compared with undefined or null, or given a `??` fallback, anywhere in its scope? */
function testedForAbsence(checker: ts.TypeChecker, name: ts.Identifier): boolean {
  const sym = checker.getSymbolAtLocation(name);
  if (!sym) return false;
  let scope: ts.Node = name;
  while (scope.parent && !ts.isFunctionLike(scope) && !ts.isSourceFile(scope)) scope = scope.parent;
  const nothing = (e: ts.Expression) => {
    const x = skipParensOf(e);
    return (ts.isIdentifier(x) && x.text === 'undefined') || x.kind === ts.SyntaxKind.NullKeyword || (ts.isVoidExpression(x) && ts.isNumericLiteral(skipParensOf(x.expression)));
  };
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isIdentifier(n) && n !== name && checker.getSymbolAtLocation(n) === sym) {
      let at: ts.Node = n;
      while (at.parent && ts.isParenthesizedExpression(at.parent)) at = at.parent;
      const p = at.parent;
      if (p && ts.isBinaryExpression(p)) {
        const k = p.operatorToken.kind;
        const eq = k === ts.SyntaxKind.EqualsEqualsEqualsToken || k === ts.SyntaxKind.ExclamationEqualsEqualsToken || k === ts.SyntaxKind.EqualsEqualsToken || k === ts.SyntaxKind.ExclamationEqualsToken;
        if (eq && nothing(p.left === at ? p.right : p.left)) found = true;
        if (k === ts.SyntaxKind.QuestionQuestionToken && p.left === at) found = true;
      }
    }
    n.forEachChild(visit);
  };
  visit(scope);
  return found;
}

function skipParensOf(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  return e;
}

/** the element read (its source text) a variable was declared with, if it was */
function heldElementRead(h: NullableHost, node: ts.Expression): string | null {
  while (ts.isParenthesizedExpression(node)) node = node.expression;
  if (!ts.isIdentifier(node)) return null;
  const decl = h.checker.getSymbolAtLocation(node)?.valueDeclaration;
  if (!decl || !ts.isVariableDeclaration(decl) || !decl.initializer) return null;
  let init = decl.initializer;
  while (ts.isParenthesizedExpression(init) || ts.isAsExpression(init) || ts.isNonNullExpression(init)) init = init.expression;
  return ts.isElementAccessExpression(init) ? init.getText() : null;
}

/** an element of an array (not a tuple) read at an index with no call in it (read twice, safely) */
export function mayBePastEnd(a: Expr): a is Extract<Expr, { k: 'idx' }> {
  if (a.k !== 'idx') return false;
  const t = tyOf(a.obj);
  if (t.k !== 'arr' || (t.elem.k !== 'num' && t.elem.k !== 'int')) return false;
  let call = false;
  forEachExpr(a, (x) => {
    if (x.k === 'call' || (x.k === 'intr' && WRITING_INTRINSICS.has(x.fn))) call = true;
  });
  return !call;
}

/** `typeof x` (compared to a string literal by the caller): a passive test of a nullable value */
export function typeofTest(h: NullableHost, e: ts.TypeOfExpression): Expr | null {
  const x = h.expr(e.expression);
  if (!x) return null;
  if (!isPlainRead(x)) return h.err(e, '`typeof` is supported on variables and fields only', 'name the value first: `const v = …;`');
  return { k: 'intr', fn: 'typeof', args: [x], ty: { k: 'str', lits: ['bigint', 'boolean', 'function', 'number', 'object', 'string', 'symbol', 'undefined'] } };
}

/** `'f' in o` on an object with optional fields: a passive test */
export function inTest(h: NullableHost, e: ts.BinaryExpression): Expr | null {
  if (!ts.isStringLiteral(e.left)) return h.err(e.left, '`in` is supported with a field name written as a string literal', "write `'name' in obj`");
  const o = h.expr(e.right);
  if (!o) return null;
  const ot = tyOf(o);
  if (ot.k !== 'obj') return h.err(e, '`in` is supported on objects only', 'test the field against undefined instead');
  return { k: 'intr', fn: 'in', args: [{ k: 'str', v: e.left.text }, o], ty: BOOL };
}

/** `Array.isArray(x)`: a passive test of a nullable array */
export function isArrayTest(h: NullableHost, e: ts.CallExpression): Expr | null {
  if (e.arguments.length !== 1) return h.err(e, '`Array.isArray` takes one argument');
  const x = h.expr(e.arguments[0]);
  if (!x) return null;
  if (!isPlainRead(x)) return h.err(e, '`Array.isArray` is supported on variables and fields only', 'name the value first: `const v = …;`');
  return { k: 'intr', fn: 'Array.isArray', args: [x], ty: BOOL };
}

/** Which nullable values a statement may not write (they are read-only: derivative code never records one). */
export function assignsNullable(h: NullableHost, node: ts.Node, declared: Ty, name: string): null | true {
  if (declared.k !== 'opt') return true;
  return h.err(node, `'${name}' is nullable and cannot be reassigned in differentiated code`, `give the new value its own name: \`const ${name}2 = …\` (for a default: \`const ${name}2 = ${name} ?? …\`)`);
}
