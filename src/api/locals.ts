// Types for the local declarations of plain JavaScript that TypeScript types too loosely: a bare `let y;`
// (assigned in the branches of a switch or an if) gets the one type of the values assigned to it, and a
// `const args = [a, b, t]` used only as `f(...args)` the tuple type its literal has (TypeScript says
// `number[]`, which a call cannot spread into fixed parameters). TypeScript types such a variable by
// flow only (its declaration is `any`), which the strict front end cannot take as it is; annotated
// `let y: number;`, the strict front end checks every assignment and every read (a read before it is
// assigned is its located error), so a wrong guess is a type error, never a wrong derivative.
import ts from 'typescript';
import { createProgram } from '../frontend/lower.js';

/** `let y;` or `var y;`: a declaration with neither a type nor a value (not a `for…of` or `for…in` head) */
function isBare(d: ts.VariableDeclaration): boolean {
  const head = d.parent.parent;
  return ts.isIdentifier(d.name) && !d.type && !d.initializer && !ts.isForOfStatement(head) && !ts.isForInStatement(head);
}

function declarations(sf: ts.SourceFile, which: (d: ts.VariableDeclaration) => boolean): ts.VariableDeclaration[] {
  const out: ts.VariableDeclaration[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isVariableDeclaration(n) && which(n)) out.push(n);
    n.forEachChild(visit);
  };
  visit(sf);
  return out;
}

/** `let best = null;` or `let prev = undefined;`: a variable that starts absent and is given numbers later */
function isNullish(d: ts.VariableDeclaration): boolean {
  const init = d.initializer;
  return ts.isIdentifier(d.name) && !d.type && !!init && nothing(init) !== null && !(d.parent.flags & ts.NodeFlags.Const);
}

/** `null`, `undefined` or `void 0` */
function nothing(e: ts.Expression): 'null' | 'undefined' | null {
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  if (e.kind === ts.SyntaxKind.NullKeyword) return 'null';
  return (ts.isIdentifier(e) && e.text === 'undefined') || ts.isVoidExpression(e) ? 'undefined' : null;
}

/** `const xs = [];` with no annotation (TypeScript's evolving array), or `new Array(n)` (`any[]` to TypeScript) */
function isEmptyArray(d: ts.VariableDeclaration): boolean {
  let init = d.initializer;
  while (init && ts.isParenthesizedExpression(init)) init = init.expression;
  const holes = !!init && (ts.isNewExpression(init) || ts.isCallExpression(init)) && ts.isIdentifier(init.expression) && init.expression.text === 'Array' && init.arguments?.length === 1;
  return ts.isIdentifier(d.name) && !d.type && !!init && ((ts.isArrayLiteralExpression(init) && init.elements.length === 0) || holes);
}

/**
 * `let R = A.map((r, i) => r.map((_, j) => (i === j ? 1 : 0)))`: a variable whose value comes out of a
 * call, where TypeScript's inference of a generic result keeps literal types (`(0 | 1)[][]`) that the
 * declaration widens only at its top level; plain JavaScript has no such types, and `R = matmul(R, B)`
 * is valid there (not in a `for…of` or `for…in` head, which takes no annotation).
 */
function isCallInitialised(d: ts.VariableDeclaration): boolean {
  const head = d.parent.parent;
  if (!ts.isIdentifier(d.name) || d.type || !d.initializer || ts.isForOfStatement(head) || ts.isForInStatement(head)) return false;
  // (those the passes below annotate get no second annotation)
  if (isNullish(d) || isArrayLiteralConst(d) || isEmptyArray(d)) return false;
  let call = false;
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n)) call = true;
    else if (!call) n.forEachChild(visit);
  };
  visit(d.initializer);
  return call;
}

const bareDeclarations = (sf: ts.SourceFile) => declarations(sf, (d) => isBare(d) || isNullish(d));
const spreadTuples = (sf: ts.SourceFile) => declarations(sf, isArrayLiteralConst);
const emptyArrays = (sf: ts.SourceFile) => declarations(sf, isEmptyArray);
const callInitialised = (sf: ts.SourceFile) => declarations(sf, isCallInitialised);
const candidates = (sf: ts.SourceFile) => declarations(sf, (d) => isBare(d) || isNullish(d) || isArrayLiteralConst(d) || isEmptyArray(d) || isCallInitialised(d));

/**
 * The text of `t` with its literal types widened at every depth (`(0 | 1)[][]` is `number[][]`), for a
 * type made of numbers, strings, booleans, null, undefined, unions of them and (mutable) arrays of
 * them; null for anything else (objects, tuples, functions: left as TypeScript types them).
 */
export function widenedText(checker: ts.TypeChecker, t: ts.Type): string | null {
  const F = ts.TypeFlags;
  // (boolean is itself the union true | false: its flag is tested before unions)
  if (t.flags & (F.Number | F.NumberLiteral)) return 'number';
  if (t.flags & (F.String | F.StringLiteral)) return 'string';
  if (t.flags & (F.Boolean | F.BooleanLiteral)) return 'boolean';
  if (t.flags & F.Undefined) return 'undefined';
  if (t.flags & F.Null) return 'null';
  if (t.isUnion()) {
    const parts: string[] = [];
    for (const u of t.types) {
      const w = widenedText(checker, u);
      if (w === null) return null;
      if (!parts.includes(w)) parts.push(w);
    }
    return parts.join(' | ');
  }
  if (checker.isArrayType(t) && !checker.typeToString(t).startsWith('readonly')) {
    const e = widenedText(checker, checker.getTypeArguments(t as ts.TypeReference)[0]);
    return e === null ? null : e.includes(' | ') ? `(${e})[]` : `${e}[]`;
  }
  return null;
}

/**
 * The type of an empty array literal TypeScript evolves only from pushes (`const counts = []` written
 * by index, `const K = []` given empty rows by `K.push([])` that `K[i].push(x)` fills): from the values
 * stored into it and into its rows, when those are of one definite type; else null.
 */
function emptyArrayType(sf: ts.SourceFile, d: ts.VariableDeclaration, checker: ts.TypeChecker): string | null {
  const sym = checker.getSymbolAtLocation(d.name);
  if (!sym) return null;
  // (a value reading the array itself, `(counts[k] || 0) + x`, is `any` to TypeScript: arithmetic
  // gives a number, which the strict front end checks once the array is annotated)
  const ARITH = new Set([ts.SyntaxKind.MinusToken, ts.SyntaxKind.AsteriskToken, ts.SyntaxKind.SlashToken, ts.SyntaxKind.PercentToken, ts.SyntaxKind.AsteriskAsteriskToken, ts.SyntaxKind.PlusToken]);
  const typeOf = (e: ts.Expression): string => {
    const t = checker.typeToString(checker.getBaseTypeOfLiteralType(checker.getTypeAtLocation(e)));
    let x = e;
    while (ts.isParenthesizedExpression(x)) x = x.expression;
    const numeric = (y: ts.Expression) => /^number$/.test(checker.typeToString(checker.getBaseTypeOfLiteralType(checker.getTypeAtLocation(y))));
    if (t === 'any' && ts.isBinaryExpression(x) && ARITH.has(x.operatorToken.kind) && (x.operatorToken.kind !== ts.SyntaxKind.PlusToken || numeric(x.left) || numeric(x.right))) return 'number';
    return t;
  };
  const isEmpty = (e: ts.Expression) => ts.isArrayLiteralExpression(e) && e.elements.length === 0;
  const elems = new Set<string>();
  const inner = new Set<string>();
  let rows = false;
  /** what is stored at `at` (an element of the array, or of one of its rows when `depth` is 1) */
  const stores = (at: ts.Expression, depth: number): void => {
    let p = at.parent;
    while (ts.isParenthesizedExpression(p)) p = p.parent;
    const into = depth === 0 ? elems : inner;
    if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && p.left === at) {
      if (depth === 0 && isEmpty(p.right)) rows = true;
      else into.add(typeOf(p.right));
    } else if (depth === 0 && ts.isElementAccessExpression(p) && p.expression === at) stores(p, 1);
    else if (ts.isPropertyAccessExpression(p) && p.expression === at && p.name.text === 'push' && ts.isCallExpression(p.parent)) {
      for (const a of p.parent.arguments) {
        if (depth === 0 && isEmpty(a)) rows = true;
        else into.add(typeOf(a));
      }
    }
  };
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && n !== d.name && checker.getSymbolAtLocation(n) === sym) {
      const p = n.parent;
      if (ts.isElementAccessExpression(p) && p.expression === n) {
        // `X[i] = v`, `X[i][j] = v`, `X[i].push(v)` (anything else with an element is a read)
        const q = p.parent;
        if (ts.isElementAccessExpression(q) && q.expression === p) stores(q, 1);
        else if (ts.isPropertyAccessExpression(q) && q.expression === p) stores(p, 1);
        else stores(p, 0);
      } else if (ts.isPropertyAccessExpression(p) && p.expression === n) stores(n, 0);
    }
    n.forEachChild(visit);
  };
  visit(sf);
  if (rows) return !elems.size && inner.size === 1 && DEFINITE([...inner][0]) ? `${[...inner][0]}[][]` : null;
  return elems.size === 1 && DEFINITE([...elems][0]) ? `${[...elems][0]}[]` : null;
}

/**
 * What a variable may hold besides its values: null where it starts or is set null, undefined where
 * it starts undefined or unassigned and is compared with undefined or null (`prev !== undefined`,
 * `prev ?? 0`, `typeof prev === 'number'`) or set undefined; null if neither.
 */
function absence(sf: ts.SourceFile, d: ts.VariableDeclaration, values: readonly ts.Expression[], checker: ts.TypeChecker): 'null' | 'undefined' | 'both' | null {
  const kinds = new Set(values.map(nothing).filter((k) => k !== null));
  if (d.initializer) kinds.add(nothing(d.initializer)!);
  else if (testedForAbsence(sf, d, checker)) kinds.add('undefined');
  return kinds.size === 2 ? 'both' : kinds.size === 1 ? [...kinds][0] : null;
}

/** is the variable compared with null or undefined, given a `??` fallback or tested with typeof? */
function testedForAbsence(sf: ts.SourceFile, d: ts.VariableDeclaration, checker: ts.TypeChecker): boolean {
  const sym = checker.getSymbolAtLocation(d.name);
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isIdentifier(n) && n !== d.name && sym && checker.getSymbolAtLocation(n) === sym) {
      let at: ts.Node = n;
      while (ts.isParenthesizedExpression(at.parent)) at = at.parent;
      const p = at.parent;
      if (ts.isTypeOfExpression(p)) found = true;
      if (ts.isBinaryExpression(p)) {
        const k = p.operatorToken.kind;
        const eq = k === ts.SyntaxKind.EqualsEqualsEqualsToken || k === ts.SyntaxKind.ExclamationEqualsEqualsToken || k === ts.SyntaxKind.EqualsEqualsToken || k === ts.SyntaxKind.ExclamationEqualsToken;
        if ((eq && nothing(p.left === at ? p.right : p.left)) || (k === ts.SyntaxKind.QuestionQuestionToken && p.left === at)) found = true;
      }
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return found;
}

/** the right-hand sides of `name = e` for the variable `d` declares, anywhere in the file */
function assignedValues(sf: ts.SourceFile, d: ts.VariableDeclaration, checker: ts.TypeChecker): ts.Expression[] {
  const sym = checker.getSymbolAtLocation(d.name);
  const out: ts.Expression[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      let left: ts.Expression = n.left;
      while (ts.isParenthesizedExpression(left)) left = left.expression;
      if (ts.isIdentifier(left) && sym && checker.getSymbolAtLocation(left) === sym) out.push(n.right);
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return out;
}

/** `const xs = [a, b, c]` with no annotation, of two or more elements, none of them spread */
function isArrayLiteralConst(d: ts.VariableDeclaration): boolean {
  const init = d.initializer;
  return ts.isIdentifier(d.name) && !d.type && !!init && ts.isArrayLiteralExpression(init) && init.elements.length > 1 && !init.elements.some(ts.isSpreadElement) && !!(d.parent.flags & ts.NodeFlags.Const);
}

/** every use of the variable `d` declares is a spread argument of a call (`f(...xs)`): it is never written */
function onlySpread(sf: ts.SourceFile, d: ts.VariableDeclaration, checker: ts.TypeChecker): boolean {
  const sym = checker.getSymbolAtLocation(d.name);
  let uses = 0;
  let other = false;
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && n !== d.name && sym && checker.getSymbolAtLocation(n) === sym) {
      uses++;
      if (!(ts.isSpreadElement(n.parent) && ts.isCallExpression(n.parent.parent))) other = true;
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return uses > 0 && !other;
}

/** a type that says what a value holds (not `any`, `never`, `undefined`, `null` or a union with them) */
const DEFINITE = (t: string) => !/\b(any|never|undefined|null|void|unknown)\b/.test(t);

/**
 * The module text with each bare local declaration annotated with the one type of the values assigned
 * to it. Declarations with no assignment, or assigned values of different or indefinite types, are left
 * as they are (the front end then refuses them, located).
 */
export function annotateLocals(text: string): string {
  // most functions declare neither: they cost no program
  if (!candidates(ts.createSourceFile('m.ts', text, ts.ScriptTarget.ES2020, true)).length) return text;
  // (an array filled from another one annotated in this round, `x[j] = dp[j]`, is typed in the next)
  for (let round = 0; round < 3; round++) {
    const next = annotateOnce(text);
    if (next === text) break;
    text = next;
  }
  return text;
}

function annotateOnce(text: string): string {
  const program = createProgram(new Map([['m.ts', text]]), { strict: false, noImplicitAny: true, strictNullChecks: true });
  const sf = program.getSourceFile('/m.ts')!;
  const checker = program.getTypeChecker();
  const edits: { at: number; type: string }[] = [];
  for (const d of bareDeclarations(sf)) {
    const values = assignedValues(sf, d, checker);
    // (null and undefined assigned say what it may lack, not what it holds)
    const types = new Set(values.filter((v) => !nothing(v)).map((v) => checker.typeToString(checker.getBaseTypeOfLiteralType(checker.getTypeAtLocation(v)))));
    const [type] = types;
    const lacks = absence(sf, d, values, checker);
    // (both null and undefined: left unannotated, the front end says what it cannot take)
    if (types.size === 1 && DEFINITE(type) && lacks !== 'both') edits.push({ at: d.name.end, type: lacks ? `${type} | ${lacks}` : type });
  }
  for (const d of spreadTuples(sf)) {
    if (!onlySpread(sf, d, checker)) continue;
    const elems = (d.initializer as ts.ArrayLiteralExpression).elements.map((e) => checker.typeToString(checker.getBaseTypeOfLiteralType(checker.getTypeAtLocation(e))));
    if (elems.every(DEFINITE)) edits.push({ at: d.name.end, type: `[${elems.join(', ')}]` });
  }
  for (const d of emptyArrays(sf)) {
    // (only where TypeScript itself leaves it evolving: `any[]` at the declaration)
    if (checker.typeToString(checker.getTypeAtLocation(d.name)) !== 'any[]') continue;
    const t = emptyArrayType(sf, d, checker);
    if (t) edits.push({ at: d.name.end, type: t });
  }
  for (const d of callInitialised(sf)) {
    const t = checker.getTypeAtLocation(d.name);
    // (a `const k = pick()` of a literal type is never reassigned: only what an array holds is widened)
    if (d.parent.flags & ts.NodeFlags.Const && !checker.isArrayType(t)) continue;
    const w = widenedText(checker, t);
    if (w !== null && w !== checker.typeToString(t)) edits.push({ at: d.name.end, type: w });
  }
  // from the back, so that earlier offsets stay valid
  let out = text;
  for (const e of edits.sort((a, b) => b.at - a.at)) out = out.slice(0, e.at) + `: ${e.type}` + out.slice(e.at);
  return out;
}

/**
 * Plain JavaScript reads an element taken off or picked from an array (`const v = q.shift()`,
 * `xs.pop()`, `xs.at(-1)`) as the number it holds; TypeScript types it `T | undefined`, which the strict
 * front end refuses in arithmetic. Where the value is not tested for absence, the call gets the `!` a
 * TypeScript programmer would write: it changes no value (an empty array still gives undefined, and
 * the arithmetic NaN, as in JavaScript), only the type.
 */
export function assertTakenElements(text: string): string {
  if (!/\.(pop|shift|at)\(/.test(text)) return text;
  const program = createProgram(new Map([['m.ts', text]]), { strict: false, noImplicitAny: true, strictNullChecks: true });
  const sf = program.getSourceFile('/m.ts')!;
  const checker = program.getTypeChecker();
  const edits: number[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && ['pop', 'shift', 'at'].includes(n.expression.name.text) && !ts.isNonNullExpression(n.parent)) {
      const recv = checker.getTypeAtLocation(n.expression.expression);
      const mayLack = !!(checker.getTypeAtLocation(n).flags & ts.TypeFlags.Union);
      let p: ts.Node = n.parent;
      while (ts.isParenthesizedExpression(p)) p = p.parent;
      const tested = ts.isVariableDeclaration(p) ? testedForAbsence(sf, p, checker) : ts.isBinaryExpression(p) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken].includes(p.operatorToken.kind);
      if ((checker.isArrayType(recv) || checker.isTupleType(recv)) && mayLack && !tested && !ts.isExpressionStatement(p)) edits.push(n.end);
    }
    n.forEachChild(visit);
  };
  visit(sf);
  let out = text;
  for (const at of edits.sort((a, b) => b - a)) out = out.slice(0, at) + '!' + out.slice(at);
  return out;
}
