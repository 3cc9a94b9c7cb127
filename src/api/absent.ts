// Types for what an argument's value does not show: an argument passed as `undefined` (an optional one
// left out) and the fields of an object argument that the body reads but the value lacks (`opts.tol ??
// 1e-10` called with `{ scale: 2 }`). Those are typed from how the function's source uses them; they are
// absent from every call these shapes compile for (the runtime API compiles per argument shapes), so
// only the paths that test for them run, and a guess the uses contradict is a located type error of the
// strict front end, never a wrong derivative.
import ts from 'typescript';
import { tyOfValue, typeText } from './shapes.js';
import type { FunctionSource } from './source.js';

const skipParens = (e: ts.Node): ts.Node => (ts.isParenthesizedExpression(e) ? skipParens(e.expression) : e);

/** the expression an occurrence is part of, past parentheses and non-null assertions (`(p!).f`) */
function outer(e: ts.Node): ts.Node {
  let n = e;
  while (ts.isParenthesizedExpression(n.parent) || ts.isNonNullExpression(n.parent)) n = n.parent;
  return n;
}

/** The occurrences of a parameter in the body (by name: a nested function's own `p` is another variable). */
function occurrences(fn: FunctionSource, name: string): ts.Node[] {
  const out: ts.Node[] = [];
  const visit = (n: ts.Node, shadowed: boolean): void => {
    if (ts.isFunctionLike(n) && n !== fn.node) {
      const own = n.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === name);
      n.forEachChild((c) => visit(c, shadowed || own));
      return;
    }
    if (!shadowed && ts.isIdentifier(n) && n.text === name) {
      const p = n.parent;
      const isPropertyName = (ts.isPropertyAccessExpression(p) && p.name === n) || (ts.isPropertyAssignment(p) && p.name === n);
      if (!isPropertyName && !ts.isParameter(p)) out.push(n);
    }
    n.forEachChild((c) => visit(c, shadowed));
  };
  visit(fn.node.body, false);
  return out;
}

/** field name → its occurrences (`p.f`, `p?.f`, `p['f']`), and `'f' in p` tests (a field with no read) */
function fieldUses(occ: readonly ts.Node[]): Map<string, ts.Node[]> {
  const fields = new Map<string, ts.Node[]>();
  const add = (k: string, at: ts.Node | null) => {
    const list = fields.get(k) ?? [];
    fields.set(k, list);
    if (at) list.push(at);
  };
  for (const o of occ) {
    const e = outer(o);
    const p = e.parent;
    if (ts.isPropertyAccessExpression(p) && p.expression === e) add(p.name.text, p);
    else if (ts.isElementAccessExpression(p) && p.expression === e && ts.isStringLiteral(p.argumentExpression)) add(p.argumentExpression.text, p);
    else if (ts.isBinaryExpression(p) && p.right === e && p.operatorToken.kind === ts.SyntaxKind.InKeyword && ts.isStringLiteral(skipParens(p.left))) add((skipParens(p.left) as ts.StringLiteral).text, null);
    // `const { delta = 1, reduction = 'mean' } = opts`: each field bound, read where its name is
    else if (ts.isVariableDeclaration(p) && p.initializer === e && ts.isObjectBindingPattern(p.name))
      for (const el of p.name.elements) {
        const key = el.propertyName ?? el.name;
        if (!el.dotDotDotToken && (ts.isIdentifier(key) || ts.isStringLiteral(key))) add(key.text, el);
      }
  }
  return fields;
}

/** the occurrences indexed by a number (`p[i]`): the elements of an array */
function elementUses(occ: readonly ts.Node[]): ts.Node[] {
  return occ.flatMap((o) => {
    const e = outer(o);
    const p = e.parent;
    return ts.isElementAccessExpression(p) && p.expression === e && !ts.isStringLiteral(p.argumentExpression) ? [p] : [];
  });
}

/**
 * The type of a value the source shows only by its uses: an object of the fields it reads, an array if it
 * is indexed (or only its length is read), else a number (what tsad differentiates; a string or a function
 * read here is a type error of the strict front end, located).
 */
function typeOfUses(occ0: readonly ts.Node[], defaulted: Set<string> | null = null): string {
  // (a field bound by a pattern with a default, `{ reduction = 'mean' }`, has the default's type)
  const bound = occ0.find((o): o is ts.BindingElement => ts.isBindingElement(o) && !!o.initializer);
  if (bound) {
    const d = skipParens(bound.initializer!);
    if (ts.isStringLiteral(d)) return 'string';
    if (d.kind === ts.SyntaxKind.TrueKeyword || d.kind === ts.SyntaxKind.FalseKeyword) return 'boolean';
  }
  const occ = [...occ0, ...occ0.flatMap(constUses)];
  const fields = fieldUses(occ);
  const elements = elementUses(occ);
  const named = [...fields.keys()].filter((k) => k !== 'length');
  // (a field bound with a default, `{ delta = 1 } = opts`, may be left out)
  const optional = (k: string) => (defaulted !== null && !defaulted.has(k)) || fields.get(k)!.some((o) => ts.isBindingElement(o) && !!o.initializer);
  if (named.length) return `{ ${named.map((k) => `${k}${optional(k) ? '?' : ''}: ${typeOfUses(fields.get(k)!)}`).join('; ')} }`;
  if (elements.length || fields.has('length')) {
    const el = typeOfUses(elements);
    return /[ |{]/.test(el) ? `(${el})[]` : `${el}[]`;
  }
  if (occ.some(stringishUse)) return 'string';
  return occ.some(boolishUse) ? 'boolean' : 'number';
}

/**
 * The type of a field a destructuring pattern binds (`{ scale = 2, shift = x * 0.5, log } = {}`) that
 * no literal default types: typed by the uses of the name it binds, as an absent value is.
 */
export function boundFieldType(fn: FunctionSource, name: string): string {
  return typeOfUses(occurrences(fn, name));
}

/**
 * `const w = options.weights`: the uses of w, in the function around it, are uses of the value too (a
 * field absent from the argument is typed by how its copy is used: `w ? w[i] : 1` makes it an array).
 */
function constUses(at: ts.Node): ts.Node[] {
  const e = outer(at);
  const d = e.parent;
  if (!ts.isVariableDeclaration(d) || d.initializer !== e || !ts.isIdentifier(d.name) || !(ts.getCombinedNodeFlags(d) & ts.NodeFlags.Const)) return [];
  let fn: ts.Node = d;
  while (fn.parent && !ts.isFunctionLike(fn)) fn = fn.parent;
  const name = d.name.text;
  const out: ts.Node[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && n.text === name && n !== d.name) {
      const p = n.parent;
      if (!((ts.isPropertyAccessExpression(p) && p.name === n) || (ts.isPropertyAssignment(p) && p.name === n))) out.push(n);
    }
    n.forEachChild(visit);
  };
  visit(fn);
  return out;
}

const isBooleanLiteral = (n: ts.Node) => n.kind === ts.SyntaxKind.TrueKeyword || n.kind === ts.SyntaxKind.FalseKeyword;
const BOOLISH = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken, ts.SyntaxKind.QuestionQuestionToken]);

const EQUALITY = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken]);
const isStringLiteral = (n: ts.Node) => ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n);

/** a use that says the value is a string: compared with a string literal (`which === 'minus'`), or switched on over string cases */
function stringishUse(at: ts.Node): boolean {
  const e = outer(at);
  const p = e.parent;
  if (ts.isSwitchStatement(p) && p.expression === e) return p.caseBlock.clauses.some((c) => ts.isCaseClause(c) && isStringLiteral(skipParens(c.expression)));
  if (!ts.isBinaryExpression(p) || !EQUALITY.has(p.operatorToken.kind)) return false;
  return isStringLiteral(skipParens(p.left === e ? p.right : p.left));
}

/** a use that says the value is a flag: compared with `true`/`false`, or `?? true` */
function boolishUse(at: ts.Node): boolean {
  const e = outer(at);
  const p = e.parent;
  if (!ts.isBinaryExpression(p) || !BOOLISH.has(p.operatorToken.kind)) return false;
  const other = p.left === e ? p.right : p.left;
  return isBooleanLiteral(skipParens(other));
}

/**
 * The type of an argument given its value and the occurrences of what holds it: the value's type, with
 * the fields read but absent from an object added as optional fields typed by their uses; an absent
 * value (`undefined`) is typed by its uses, `| undefined`. Null for a value of no usable shape.
 */
function typeOf(v: unknown, occ: readonly ts.Node[], literal: ts.ObjectLiteralExpression | null = null): string | null {
  // (an object defaulted to a literal, `opts = {}` in the parameter list or `opts = opts || { tol: 1e-8 }`
  // in the body, may lack the fields the literal lacks)
  const defaulted = literal ? literalFields(literal) : defaultLiteralFields(occ);
  if (v === undefined) return `${typeOfUses(occ, defaulted)} | undefined`;
  if (typeof v !== 'object' || v === null || Array.isArray(v) || ArrayBuffer.isView(v)) {
    const t = tyOfValue(v);
    return t ? typeText(t) : null;
  }
  const uses = fieldUses(occ);
  const own = Object.keys(v);
  const parts: string[] = [];
  for (const k of own) {
    const x = (v as Record<string, unknown>)[k];
    // a field holding `undefined` is refused as before: `'k' in o` tells it from an absent one
    const t = x === undefined ? null : typeOf(x, uses.get(k) ?? []);
    if (!t) return null;
    parts.push(`${k}${defaulted && !defaulted.has(k) ? '?' : ''}: ${t}`);
  }
  for (const [k, at] of uses) if (!own.includes(k) && k !== 'length') parts.push(`${k}?: ${typeOfUses(at)}`);
  return `{ ${parts.join('; ')} }`;
}

/**
 * The fields of the object literal a parameter is defaulted to in the body (`p = p || { … }`, `p ??=
 * { … }`, `if (!p) p = { … }`), or null where it is not.
 */
function defaultLiteralFields(occ: readonly ts.Node[]): Set<string> | null {
  for (const o of occ) {
    const e = outer(o);
    const a = e.parent;
    if (!ts.isBinaryExpression(a) || a.left !== e) continue;
    const op = a.operatorToken.kind;
    if (op !== ts.SyntaxKind.EqualsToken && op !== ts.SyntaxKind.BarBarEqualsToken && op !== ts.SyntaxKind.QuestionQuestionEqualsToken) continue;
    let r = skipParens(a.right);
    if (ts.isBinaryExpression(r) && (r.operatorToken.kind === ts.SyntaxKind.BarBarToken || r.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken)) r = skipParens(r.right);
    if (ts.isObjectLiteralExpression(r)) return literalFields(r);
  }
  return null;
}

function literalFields(r: ts.ObjectLiteralExpression): Set<string> {
  return new Set(r.properties.flatMap((p) => (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? [p.name.text] : [])));
}

/**
 * The type of argument `i` of `fn` with value `v`: its value's type, completed from the uses of its
 * parameter where the value is absent (see typeOf). Null for a value of no usable shape.
 */
export function argumentType(fn: FunctionSource, i: number, v: unknown): string | null {
  const p = fn.params[i];
  const occ = p && ts.isIdentifier(p.name) ? occurrences(fn, p.name.text) : [];
  return typeOf(v, occ, p?.initializer && ts.isObjectLiteralExpression(p.initializer) ? p.initializer : null);
}

/**
 * The fields parameter `i` of `fn` reads (`o.tol`, `'rest' in o`) that `present` lacks, as optional fields
 * typed by their uses (`tol?: number`): an object a helper is passed, whose type (from the values of the
 * call) does not have them because the value does not.
 */
export function missingFieldsRead(fn: FunctionSource, i: number, present: readonly string[]): string[] {
  const p = fn.params[i];
  if (!p || !ts.isIdentifier(p.name)) return [];
  const uses = fieldUses(occurrences(fn, p.name.text));
  return [...uses].filter(([k]) => k !== 'length' && !present.includes(k)).map(([k, at]) => `${k}?: ${typeOfUses(at)}`);
}

/**
 * Whether the body of `fn` allows parameter `i` to be left out: it tests it (`p === undefined`, `p ==
 * null`, `p ?? d`, `typeof p`, `if (p)`, `!p`, `p ? a : b`, `p && …`, `p || …`, or compares it with a
 * string, `p === 'minus'`, a flag that is simply not that string when left out). A parameter read
 * without a test is a missing argument, reported as such.
 */
export function testsForAbsence(fn: FunctionSource, i: number): boolean {
  const p = fn.params[i];
  if (!p || !ts.isIdentifier(p.name)) return false;
  return occurrences(fn, p.name.text).some((o) => {
    const e = outer(o);
    const parent = e.parent;
    if (ts.isTypeOfExpression(parent) || (ts.isPrefixUnaryExpression(parent) && parent.operator === ts.SyntaxKind.ExclamationToken)) return true;
    if ((ts.isIfStatement(parent) || ts.isWhileStatement(parent)) && parent.expression === e) return true;
    if (stringishUse(o)) return true;
    if (ts.isConditionalExpression(parent) && parent.condition === e) return true;
    if (!ts.isBinaryExpression(parent)) return false;
    const op = parent.operatorToken.kind;
    if (op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken) return parent.left === e;
    if (!BOOLISH.has(op)) return false;
    const other = skipParens(parent.left === e ? parent.right : parent.left);
    return other.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(other) && other.text === 'undefined') || ts.isVoidExpression(other);
  });
}
