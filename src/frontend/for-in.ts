// `for (const k in xs)` over an array: a counted loop over its indices.
//
// JavaScript gives the keys as strings ("0", "1", …), so the loop is an index loop only where the key is
// used as one: as an element index (`xs[k]`, `ys[k]`), or converted with `Number(k)`, `parseInt(k)` or
// `+k`. Any other use would see a string (`k + 1` is "01", `k === 0` is false): refused, with the use
// located. Keys of objects are not iterated (tsad's objects have no dynamic keys).
//
// A body that may change the array's length: the keys are those the array had when the loop began
// (V8 does not visit keys added during the loop; the language leaves it open), and a key deleted
// before its turn is skipped. So the loop runs below both the starting length and the current one.
import ts from 'typescript';

export type ForInProblem = { node: ts.Node; message: string; hint: string };

/** the first use of the key `key` in `body` that is not an index use */
export function forInProblem(key: ts.Identifier, body: ts.Statement, checker: ts.TypeChecker): ForInProblem | null {
  const sym = checker.getSymbolAtLocation(key);
  let found: ForInProblem | null = null;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isIdentifier(n) && n.text === key.text && checker.getSymbolAtLocation(n) === sym) {
      if (!isIndexUse(n))
        found = {
          node: n,
          message: `the key '${key.text}' of a \`for…in\` is a string ("0", "1", …): tsad takes it only as an element index`,
          hint: `use it as \`xs[${key.text}]\`, or convert it first: \`const i = Number(${key.text});\` (or write \`for (let i = 0; i < xs.length; i++)\`)`,
        };
      return;
    }
    n.forEachChild(visit);
  };
  visit(body);
  return found;
}

/** `xs[k]`, `Number(k)`, `parseInt(k)`, `parseInt(k, 10)`, `+k` */
function isIndexUse(id: ts.Identifier): boolean {
  let n: ts.Node = id;
  while (ts.isParenthesizedExpression(n.parent)) n = n.parent;
  const p = n.parent;
  if (ts.isElementAccessExpression(p) && p.argumentExpression === n) return true;
  if (ts.isPrefixUnaryExpression(p) && p.operator === ts.SyntaxKind.PlusToken) return true;
  if (ts.isCallExpression(p) && p.arguments[0] === n && ts.isIdentifier(p.expression)) {
    const f = p.expression.text;
    if (f === 'Number' && p.arguments.length === 1) return true;
    if (f === 'parseInt' && (p.arguments.length === 1 || (p.arguments.length === 2 && ts.isNumericLiteral(p.arguments[1]) && p.arguments[1].text === '10'))) return true;
  }
  return false;
}

/** whether `body` may change an array's length: a resizing method, a store into `.length`, or any other call */
export function mayResize(body: ts.Statement): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(n)) {
      const c = n.expression;
      const pure = ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && (c.expression.text === 'Math' || c.expression.text === 'Number');
      if (!pure && !(ts.isIdentifier(c) && (c.text === 'Number' || c.text === 'parseInt'))) found = true;
    }
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left) && n.left.name.text === 'length') found = true;
    n.forEachChild(visit);
  };
  visit(body);
  return found;
}
