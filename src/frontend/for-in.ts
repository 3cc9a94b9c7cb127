// `for (const k in xs)` over an array: a counted loop over its indices.
//
// JavaScript gives the keys as strings ("0", "1", …), so the loop is an index loop only where the key is
// used as one: as an element index (`xs[k]`, `ys[k]`), or converted with `Number(k)`, `parseInt(k)` or
// `+k`. Any other use would see a string (`k + 1` is "01", `k === 0` is false): refused, with the use
// located. Keys of objects are not iterated (tsad's objects have no dynamic keys); an array whose length
// the body may change is refused too (the keys are those the array had when the loop began).
import ts from 'typescript';

export type ForInProblem = { node: ts.Node; message: string; hint: string };

/** the first use of the key `key` in `body` that is not an index use, or a length change in the body */
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
    const resized = lengthChange(n);
    if (resized) {
      found = { node: n, message: `\`${resized}\` inside a \`for…in\` loop changes an array's length while its keys are walked`, hint: 'write an indexed `for` loop, with the bound you mean' };
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

const RESIZING = new Set(['push', 'pop', 'shift', 'unshift', 'splice']);

/** a call that changes an array's length, or a store into `.length` */
function lengthChange(n: ts.Node): string | null {
  if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && RESIZING.has(n.expression.name.text)) return `.${n.expression.name.text}(…)`;
  if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left) && n.left.name.text === 'length') return '.length = …';
  return null;
}
