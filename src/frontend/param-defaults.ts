// Defaults written in the body, JavaScript's way before default parameters: `opts = opts || {};`,
// `y = y ?? 2;`, `y ??= 2;`, `if (y === undefined) y = 2;`, `if (!opts) opts = {};` in a function
// whose parameter may be left out.
//
// Such a statement, in the body's own statement list (it runs once) with nothing before it naming the
// parameter, is the parameter's default: the parameter keeps its name and type (callers and `wrt` use
// them), and from there the body reads a local `yValue`, declared where the statement stands as `y`
// where it is present (truthy, for `||` and `!y`) and the fallback elsewhere. That is the lowering of
// `const yValue = y ?? 2`, whose derivative is the argument's where one is given and the fallback's
// otherwise.
//
// Each parameter is taken at most once, and only where nothing else in the body assigns it; anything
// else keeps the existing rule (a nullable parameter is not reassigned). A nested function's read,
// which TypeScript does not narrow, reads the local too.
import ts from 'typescript';

/** How a body default tests the parameter: present (`??`, `=== undefined`, `== null`) or truthy (`||`, `!y`). */
export type DefaultTest = 'present' | 'truthy';

export interface BodyDefault {
  /** the statement the default replaces (skipped when the body is lowered) */
  stmt: ts.Statement;
  fallback: ts.Expression;
  test: DefaultTest;
  /** the absences a `present` test covers (`=== undefined` covers undefined only) */
  covers: ('null' | 'undefined')[];
}

/** The body defaults of `params` among the leading statements of `body`, by parameter declaration. */
export function bodyDefaults(body: ts.Block, params: readonly ts.ParameterDeclaration[], checker: ts.TypeChecker): Map<ts.ParameterDeclaration, BodyDefault> {
  const found = new Map<ts.ParameterDeclaration, BodyDefault>();
  const bySymbol = new Map<ts.Symbol, ts.ParameterDeclaration>();
  for (const p of params) {
    if (!ts.isIdentifier(p.name) || p.initializer || p.dotDotDotToken) continue;
    const sym = checker.getSymbolAtLocation(p.name);
    if (sym) bySymbol.set(sym, p);
  }
  const paramOf = (e: ts.Expression): ts.ParameterDeclaration | undefined => {
    const x = skipParens(e);
    if (!ts.isIdentifier(x)) return undefined;
    const sym = checker.getSymbolAtLocation(x);
    return sym ? bySymbol.get(sym) : undefined;
  };
  if (!bySymbol.size) return found;
  // (a statement of the body's own list runs once; before it, nothing may read the parameter)
  const mentioned = new Set<ts.ParameterDeclaration>();
  const names = new Set([...bySymbol.values()].map((p) => (p.name as ts.Identifier).text));
  for (const s of body.statements) {
    const d = defaultStatement(s, paramOf);
    if (d && !mentioned.has(d.param)) found.set(d.param, d.def);
    for (const p of mentions(s, names, bySymbol, checker)) mentioned.add(p);
  }
  // (a parameter assigned again, or read by a nested function, keeps the existing rule)
  for (const [p, def] of [...found]) if (usedOtherwise(body, p, def.stmt, checker)) found.delete(p);
  return found;
}

/**
 * the parameters a statement names (anywhere in it, nested functions included); only identifiers
 * spelt as one of `names` are resolved (an identifier with another text cannot denote the parameter)
 */
function mentions(s: ts.Node, names: ReadonlySet<string>, bySymbol: ReadonlyMap<ts.Symbol, ts.ParameterDeclaration>, checker: ts.TypeChecker): ts.ParameterDeclaration[] {
  const out: ts.ParameterDeclaration[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n)) {
      if (!names.has(n.text)) return;
      const sym = checker.getSymbolAtLocation(n);
      const p = sym && bySymbol.get(sym);
      if (p) out.push(p);
    }
    ts.forEachChild(n, visit);
  };
  visit(s);
  return out;
}

/** `p = p || E`, `p = p ?? E`, `p ||= E`, `p ??= E`, or `if (<p absent>) p = E` (braces or not) */
function defaultStatement(s: ts.Statement, paramOf: (e: ts.Expression) => ts.ParameterDeclaration | undefined): { param: ts.ParameterDeclaration; def: BodyDefault } | null {
  if (ts.isExpressionStatement(s) && ts.isBinaryExpression(s.expression)) {
    const a = s.expression;
    const p = paramOf(a.left);
    if (!p) return null;
    const op = a.operatorToken.kind;
    if (op === ts.SyntaxKind.BarBarEqualsToken) return { param: p, def: { stmt: s, fallback: a.right, test: 'truthy', covers: [] } };
    if (op === ts.SyntaxKind.QuestionQuestionEqualsToken) return { param: p, def: { stmt: s, fallback: a.right, test: 'present', covers: ['null', 'undefined'] } };
    const r = skipParens(a.right);
    if (op !== ts.SyntaxKind.EqualsToken || !ts.isBinaryExpression(r) || paramOf(r.left) !== p) return null;
    if (r.operatorToken.kind === ts.SyntaxKind.BarBarToken) return { param: p, def: { stmt: s, fallback: r.right, test: 'truthy', covers: [] } };
    if (r.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) return { param: p, def: { stmt: s, fallback: r.right, test: 'present', covers: ['null', 'undefined'] } };
    return null;
  }
  if (ts.isIfStatement(s) && !s.elseStatement) {
    const then = ts.isBlock(s.thenStatement) ? (s.thenStatement.statements.length === 1 ? s.thenStatement.statements[0] : null) : s.thenStatement;
    if (!then || !ts.isExpressionStatement(then) || !ts.isBinaryExpression(then.expression) || then.expression.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return null;
    const p = paramOf(then.expression.left);
    if (!p) return null;
    const test = absenceTest(s.expression, p, paramOf);
    return test ? { param: p, def: { stmt: s, fallback: then.expression.right, ...test } } : null;
  }
  return null;
}

/** `!p`, `p === undefined`, `p == null`, `typeof p === 'undefined'`, `p === undefined || p === null` */
function absenceTest(c: ts.Expression, p: ts.ParameterDeclaration, paramOf: (e: ts.Expression) => ts.ParameterDeclaration | undefined): Pick<BodyDefault, 'test' | 'covers'> | null {
  const e = skipParens(c);
  if (ts.isPrefixUnaryExpression(e) && e.operator === ts.SyntaxKind.ExclamationToken) return paramOf(e.operand) === p ? { test: 'truthy', covers: [] } : null;
  if (!ts.isBinaryExpression(e)) return null;
  const op = e.operatorToken.kind;
  if (op === ts.SyntaxKind.BarBarToken) {
    const l = absenceTest(e.left, p, paramOf), r = absenceTest(e.right, p, paramOf);
    return l?.test === 'present' && r?.test === 'present' ? { test: 'present', covers: [...new Set([...l.covers, ...r.covers])] } : null;
  }
  const loose = op === ts.SyntaxKind.EqualsEqualsToken;
  if (!loose && op !== ts.SyntaxKind.EqualsEqualsEqualsToken) return null;
  const [x, y] = paramOf(e.left) === p ? [e.left, e.right] : [e.right, e.left];
  const absent = nothing(y);
  if (paramOf(x) === p && absent) return { test: 'present', covers: loose ? ['null', 'undefined'] : [absent] };
  // `typeof p === 'undefined'`
  const t = skipParens(x);
  if (ts.isTypeOfExpression(t) && paramOf(t.expression) === p && ts.isStringLiteral(skipParens(y)) && (skipParens(y) as ts.StringLiteral).text === 'undefined') return { test: 'present', covers: ['undefined'] };
  return null;
}

function nothing(e: ts.Expression): 'null' | 'undefined' | null {
  const x = skipParens(e);
  if (x.kind === ts.SyntaxKind.NullKeyword) return 'null';
  if ((ts.isIdentifier(x) && x.text === 'undefined') || ts.isVoidExpression(x)) return 'undefined';
  return null;
}

/**
 * whether the body assigns `p` anywhere but in `def` (a nested function reading it reads the local: it
 * runs after the leading statements, and nothing assigns the parameter again)
 */
function usedOtherwise(body: ts.Block, p: ts.ParameterDeclaration, def: ts.Statement, checker: ts.TypeChecker): boolean {
  const sym = checker.getSymbolAtLocation(p.name);
  let used = false;
  const visit = (n: ts.Node): void => {
    if (used || n === def) return;
    if (ts.isIdentifier(n) && checker.getSymbolAtLocation(n) === sym) {
      if (isWritten(n)) used = true;
      return;
    }
    ts.forEachChild(n, visit);
  };
  visit(body);
  return used;
}

function isWritten(id: ts.Identifier): boolean {
  let n: ts.Node = id;
  while (ts.isParenthesizedExpression(n.parent)) n = n.parent;
  const p = n.parent;
  if (ts.isBinaryExpression(p) && p.left === n && p.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && p.operatorToken.kind <= ts.SyntaxKind.LastAssignment) return true;
  if ((ts.isPrefixUnaryExpression(p) || ts.isPostfixUnaryExpression(p)) && (p.operator === ts.SyntaxKind.PlusPlusToken || p.operator === ts.SyntaxKind.MinusMinusToken)) return true;
  // (a destructuring assignment's target, `[p, q] = …`, `({ p } = …)`)
  let top: ts.Node = n;
  while (ts.isArrayLiteralExpression(top.parent) || ts.isObjectLiteralExpression(top.parent) || ts.isShorthandPropertyAssignment(top.parent) || ts.isPropertyAssignment(top.parent) || ts.isSpreadElement(top.parent) || ts.isParenthesizedExpression(top.parent)) top = top.parent;
  return top !== n && ts.isBinaryExpression(top.parent) && top.parent.left === top && top.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken;
}

function skipParens(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  return e;
}
