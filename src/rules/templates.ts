// Rule templates are TypeScript expressions; they are parsed once into IR and instantiated by
// substituting IR expressions for their argument names.
import ts from 'typescript';
import type { BinOp, Expr } from '../ir/types.js';
import { BOOL, NUM, forEachExpr, mapExpr } from '../ir/util.js';
import { ruleFor, type Rule } from './table.js';

const cache = new Map<string, Expr>();

const OPS: Partial<Record<ts.SyntaxKind, BinOp>> = {
  [ts.SyntaxKind.PlusToken]: '+', [ts.SyntaxKind.MinusToken]: '-', [ts.SyntaxKind.AsteriskToken]: '*',
  [ts.SyntaxKind.SlashToken]: '/', [ts.SyntaxKind.AsteriskAsteriskToken]: '**', [ts.SyntaxKind.PercentToken]: '%',
  [ts.SyntaxKind.LessThanToken]: '<', [ts.SyntaxKind.LessThanEqualsToken]: '<=', [ts.SyntaxKind.GreaterThanToken]: '>',
  [ts.SyntaxKind.GreaterThanEqualsToken]: '>=', [ts.SyntaxKind.EqualsEqualsEqualsToken]: '===',
};

function convert(n: ts.Expression): Expr {
  if (ts.isParenthesizedExpression(n)) return convert(n.expression);
  if (ts.isNumericLiteral(n)) return { k: 'num', v: Number(n.text) };
  if (ts.isIdentifier(n)) return { k: 'var', name: n.text, ty: NUM };
  if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'Math')
    return { k: 'num', v: (Math as unknown as Record<string, number>)[n.name.text], raw: `Math.${n.name.text}` };
  if (ts.isPrefixUnaryExpression(n) && n.operator === ts.SyntaxKind.MinusToken) {
    const a = convert(n.operand);
    if (a.k === 'num' && a.raw === undefined) return { k: 'num', v: -a.v };
    return { k: 'un', op: '-', a, ty: NUM };
  }
  if (ts.isBinaryExpression(n)) {
    const op = OPS[n.operatorToken.kind];
    if (!op) throw new Error(`template operator ${n.operatorToken.getText()}`);
    const cmp = op === '<' || op === '<=' || op === '>' || op === '>=' || op === '===';
    return { k: 'bin', op, a: convert(n.left), b: convert(n.right), ty: cmp ? BOOL : NUM };
  }
  if (ts.isConditionalExpression(n)) return { k: 'cond', c: convert(n.condition), a: convert(n.whenTrue), b: convert(n.whenFalse), ty: NUM };
  if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
    return { k: 'intr', fn: n.expression.getText(), args: n.arguments.map(convert), ty: NUM };
  }
  throw new Error(`unsupported template syntax: ${n.getText()}`);
}

export function parseTemplate(text: string): Expr {
  let e = cache.get(text);
  if (!e) {
    const sf = ts.createSourceFile('rule.ts', `(${text});`, ts.ScriptTarget.ES2020, true);
    const st = sf.statements[0] as ts.ExpressionStatement;
    e = convert(st.expression);
    cache.set(text, e);
  }
  return e;
}

/** The partial derivative of `rule` with respect to argument `i`, with arguments and result bound. */
export function partial(rule: Rule, i: number, args: Expr[], result: () => Expr): Expr {
  const tpl = parseTemplate(rule.variadic ? rule.partials[0] : rule.partials[i]);
  const names = rule.variadic ? [rule.args[0]] : rule.args;
  const bound = rule.variadic ? [args[i]] : args;
  const inst = mapExpr(tpl, (x) => {
    if (x.k !== 'var') return x;
    if (x.name === 'r') return result();
    const j = names.indexOf(x.name);
    if (j < 0) throw new Error(`unbound template name ${x.name}`);
    return bound[j];
  });
  return fold(inst);
}

const plain = (n: Extract<Expr, { k: 'num' }>) => n.raw === undefined || /^-?[0-9.]/.test(n.raw);

/** Folds literal arithmetic and decided conditions: `3 === 0 ? 0 : 3 * x ** (3 - 1)` → `3 * x ** 2`. */
export function fold(e: Expr): Expr {
  return mapExpr(e, (x) => {
    if (x.k === 'bin' && x.a.k === 'num' && x.b.k === 'num' && plain(x.a) && plain(x.b)) {
      const a = x.a.v, b = x.b.v;
      switch (x.op) {
        case '+': return { k: 'num', v: a + b };
        case '-': return { k: 'num', v: a - b };
        case '*': return { k: 'num', v: a * b };
        case '===': return { k: 'bool', v: a === b };
        case '>': return { k: 'bool', v: a > b };
        case '<': return { k: 'bool', v: a < b };
        case '>=': return { k: 'bool', v: a >= b };
        case '<=': return { k: 'bool', v: a <= b };
        default: return x;
      }
    }
    if (x.k === 'cond' && x.c.k === 'bool') return x.c.v ? x.a : x.b;
    return x;
  });
}

/** the names each template text refers to, found once per text */
const usesOfTemplate = new Map<string, ReadonlySet<string>>();

/** Which names a partial refers to: decides what must be evaluated once into a temporary. */
export function templateUses(rule: Rule, i: number): ReadonlySet<string> {
  const text = rule.variadic ? rule.partials[0] : rule.partials[i];
  let s = usesOfTemplate.get(text);
  if (!s) {
    const names = new Set<string>();
    forEachExpr(parseTemplate(text), (x) => {
      if (x.k === 'var') names.add(x.name);
    });
    usesOfTemplate.set(text, (s = names));
  }
  return s;
}

export { ruleFor };
