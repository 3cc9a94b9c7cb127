// Structural comparison of generated functions with hand-written golden translations.
//
// Both sides are parsed with the TypeScript compiler API and reduced to a normalized tree; two functions
// are equal when their normalized trees are identical. The normalization ignores exactly:
//  (a) formatting: whitespace, comments, parentheses (the tree already encodes precedence), the spelling
//      of numeric literals (2.0 = 2), type annotations, `export`, definite-assignment `!`, and the
//      sugar of assignments: `x op= e` is read as `x = x op (e)` and a statement `x++` / `x--` as
//      `x = x + 1` / `x = x - 1`;
//  (b) the names of fresh identifiers: every identifier outside a fixed set of user names (the names of the
//      input, their derivative names and the runtime's names) is renamed canonically by order of first
//      occurrence (parameters first), so temp/tempb/result1/branch/FResult… compare up to a consistent
//      renaming (alpha-equivalence). Property names (`.pushF`, `{ d: … }`) are never renamed;
//  (c) declaration placement: leading pure declarations of the function body (`let x = 0;`, `let x!: T;`,
//      `let x: T;`, `const xd = new Float64Array(nbdirs);`) are dropped, and any other declaration
//      `let|const x = e` (in a statement or a for-loop initializer) is read as the assignment `x = e`.
// Nothing else: operand order, association, temporaries that are not in the other side, extra
// statements all make the trees differ. An optional `commutative` mode additionally orders the two
// operands of `*` and `+` canonically (exact in IEEE arithmetic) — used only to tell a difference of
// operand order from a deeper one.
import ts from 'typescript';

export interface CompareOptions {
  /** identifiers that are never renamed */
  userNames: ReadonlySet<string>;
  /** also compare modulo the order of the operands of `*` and `+` */
  commutative?: boolean;
}

export interface CompareResult {
  equal: boolean;
  /** first difference: a path in the normalized tree and the source text of both sides there */
  difference?: string;
  /** the normalized trees, one line per statement, for reading */
  expectedNormalized: string;
  actualNormalized: string;
}

/** A normalized tree node: a kind, an optional value (identifier name, literal value), children. */
interface N {
  k: string;
  v?: string;
  c: N[];
  /** original node, for messages */
  src?: ts.Node;
  /** an identifier that may be renamed */
  fresh?: boolean;
}

const RUNTIME_NAMES = [
  'Math', 'Number', 'Infinity', 'NaN', 'undefined', 'Array', 'Float64Array', 'Tape', 'tape', 'nbdirs',
  'snapshot', 'restoreInto', 'zerosLike', 'zeroFill', 'addInto', 'zerosAgain', 'float64Again', 'zeroedFor', 'isFinite', 'isNaN',
];

/** The user names of an input module: its identifiers, their derivative names, and the runtime's names. */
export function userNamesOf(inputSource: string, extra: string[] = []): Set<string> {
  const sf = ts.createSourceFile('input.ts', inputSource, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const names = new Set<string>([...RUNTIME_NAMES, ...extra]);
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n)) names.add(n.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  for (const n of [...names]) {
    for (const s of ['d', 'b', '_d', '_dv', '_b', '_fwd', '_bwd']) names.add(n + s);
  }
  return names;
}

export function findFunction(source: string, name: string, file = 'x.ts'): ts.FunctionDeclaration {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  for (const s of sf.statements) if (ts.isFunctionDeclaration(s) && s.name?.text === name && s.body) return s;
  throw new Error(`function ${name} not found in ${file}`);
}

const COMPOUND: Partial<Record<ts.SyntaxKind, ts.SyntaxKind>> = {
  [ts.SyntaxKind.PlusEqualsToken]: ts.SyntaxKind.PlusToken,
  [ts.SyntaxKind.MinusEqualsToken]: ts.SyntaxKind.MinusToken,
  [ts.SyntaxKind.AsteriskEqualsToken]: ts.SyntaxKind.AsteriskToken,
  [ts.SyntaxKind.SlashEqualsToken]: ts.SyntaxKind.SlashToken,
  [ts.SyntaxKind.PercentEqualsToken]: ts.SyntaxKind.PercentToken,
  [ts.SyntaxKind.AsteriskAsteriskEqualsToken]: ts.SyntaxKind.AsteriskAsteriskToken,
};

const kindName = (k: ts.SyntaxKind): string => ts.SyntaxKind[k];
/** an operator token, by its spelling (SyntaxKind names have aliases such as FirstBinaryOperator) */
const tok = (k: ts.SyntaxKind): N => ({ k: 'Op', v: ts.tokenToString(k) ?? kindName(k), c: [] });
const assign = (lhs: N, rhs: N, src?: ts.Node): N => ({ k: 'Assign', c: [lhs, rhs], src });
const stmt = (e: N, src?: ts.Node): N => ({ k: 'ExprStmt', c: [e], src });

function isPureDeclaration(s: ts.Statement): boolean {
  if (!ts.isVariableStatement(s)) return false;
  return s.declarationList.declarations.every((d) => {
    if (!ts.isIdentifier(d.name)) return false;
    const init = d.initializer;
    if (!init) return true;
    if (ts.isNumericLiteral(init) && Number(init.text) === 0) return true;
    // derivative storage of vector mode, the analogue of a Fortran declaration `REAL xd(nbdirsmax)`
    return ts.isNewExpression(init) && init.expression.getText() === 'Float64Array' && init.arguments?.length === 1 && init.arguments[0].getText() === 'nbdirs';
  });
}

class Normalizer {
  constructor(private user: ReadonlySet<string>) {}

  id(n: ts.Identifier): N {
    return { k: 'Id', v: n.text, c: [], src: n, fresh: !this.user.has(n.text) };
  }

  /** statements, with declarations read as assignments (a list: one declaration may give several) */
  stmts(list: readonly ts.Statement[]): N[] {
    return list.flatMap((s) => this.stmt(s));
  }

  stmt(s: ts.Statement): N[] {
    if (ts.isVariableStatement(s)) return this.declList(s.declarationList).map((e) => stmt(e, s));
    if (ts.isBlock(s)) return [{ k: 'Block', c: this.stmts(s.statements), src: s }];
    if (ts.isExpressionStatement(s)) return [stmt(this.exprStmt(s.expression), s)];
    if (ts.isForStatement(s)) {
      const init = s.initializer === undefined ? [] : ts.isVariableDeclarationList(s.initializer) ? this.declList(s.initializer) : [this.exprStmt(s.initializer)];
      return [{
        k: 'For',
        c: [{ k: 'Init', c: init }, s.condition ? this.expr(s.condition) : tok(ts.SyntaxKind.TrueKeyword), { k: 'Step', c: s.incrementor ? [this.exprStmt(s.incrementor)] : [] }, this.body(s.statement)],
        src: s,
      }];
    }
    if (ts.isIfStatement(s)) {
      return [{ k: 'If', c: [this.expr(s.expression), this.body(s.thenStatement), ...(s.elseStatement ? [this.body(s.elseStatement)] : [])], src: s }];
    }
    return [this.generic(s)];
  }

  /** a branch or loop body as a block, whether or not it is braced */
  body(s: ts.Statement): N {
    return { k: 'Block', c: ts.isBlock(s) ? this.stmts(s.statements) : this.stmt(s), src: s };
  }

  declList(l: ts.VariableDeclarationList): N[] {
    return l.declarations.filter((d) => d.initializer).map((d) => assign(this.bindingName(d.name), this.expr(d.initializer!), d));
  }

  bindingName(b: ts.BindingName): N {
    if (ts.isIdentifier(b)) return this.id(b);
    if (ts.isArrayBindingPattern(b)) {
      return { k: 'ArrayLiteralExpression', c: b.elements.map((e) => (ts.isOmittedExpression(e) ? tok(ts.SyntaxKind.OmittedExpression) : this.bindingName(e.name))), src: b };
    }
    return { k: 'ObjectBinding', c: b.elements.map((e) => ({ k: 'Bind', c: [e.propertyName ? this.key(e.propertyName) : { k: 'Key', v: (e.name as ts.Identifier).text, c: [] }, this.bindingName(e.name)] })), src: b };
  }

  key(n: ts.PropertyName): N {
    return { k: 'Key', v: ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n) ? n.text : n.getText(), c: [], src: n };
  }

  /** an expression whose value is unused: `x++` is `x = x + 1` */
  exprStmt(e: ts.Expression): N {
    const inner = this.stripParens(e);
    if ((ts.isPostfixUnaryExpression(inner) || ts.isPrefixUnaryExpression(inner)) && (inner.operator === ts.SyntaxKind.PlusPlusToken || inner.operator === ts.SyntaxKind.MinusMinusToken)) {
      const x = this.expr(inner.operand);
      const op = inner.operator === ts.SyntaxKind.PlusPlusToken ? ts.SyntaxKind.PlusToken : ts.SyntaxKind.MinusToken;
      return assign(x, { k: 'Binary', c: [x, tok(op), { k: 'Num', v: '1', c: [] }] }, e);
    }
    return this.expr(e);
  }

  stripParens(e: ts.Expression): ts.Expression {
    while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isTypeAssertionExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
    return e;
  }

  expr(e0: ts.Expression): N {
    const e = this.stripParens(e0);
    if (ts.isIdentifier(e)) return this.id(e);
    if (ts.isNumericLiteral(e)) return { k: 'Num', v: String(Number(e.text)), c: [], src: e };
    if (ts.isBinaryExpression(e)) {
      const op = e.operatorToken.kind;
      const lhs = this.expr(e.left);
      const rhs = this.expr(e.right);
      if (op === ts.SyntaxKind.EqualsToken) return assign(lhs, rhs, e);
      const base = COMPOUND[op];
      if (base !== undefined) return assign(lhs, { k: 'Binary', c: [lhs, tok(base), rhs], src: e }, e);
      return { k: 'Binary', c: [lhs, tok(op), rhs], src: e };
    }
    if (ts.isPrefixUnaryExpression(e)) return { k: 'Prefix', v: ts.tokenToString(e.operator), c: [this.expr(e.operand)], src: e };
    if (ts.isPostfixUnaryExpression(e)) return { k: 'Postfix', v: ts.tokenToString(e.operator), c: [this.expr(e.operand)], src: e };
    if (ts.isPropertyAccessExpression(e)) return { k: 'Prop', v: e.name.text, c: [this.expr(e.expression)], src: e };
    if (ts.isElementAccessExpression(e)) return { k: 'Index', c: [this.expr(e.expression), this.expr(e.argumentExpression)], src: e };
    if (ts.isCallExpression(e)) return { k: 'Call', c: [this.expr(e.expression), ...e.arguments.map((a) => this.expr(a))], src: e };
    if (ts.isNewExpression(e)) return { k: 'New', c: [this.expr(e.expression), ...(e.arguments ?? []).map((a) => this.expr(a))], src: e };
    if (ts.isArrayLiteralExpression(e)) return { k: 'ArrayLiteralExpression', c: e.elements.map((x) => this.expr(x)), src: e };
    if (ts.isObjectLiteralExpression(e)) {
      return {
        k: 'Object',
        c: e.properties.map((p) => {
          if (ts.isShorthandPropertyAssignment(p)) return { k: 'Field', c: [{ k: 'Key', v: p.name.text, c: [] }, this.id(p.name)], src: p };
          if (ts.isPropertyAssignment(p)) return { k: 'Field', c: [this.key(p.name), this.expr(p.initializer)], src: p };
          return this.generic(p);
        }),
        src: e,
      };
    }
    if (ts.isConditionalExpression(e)) return { k: 'Cond', c: [this.expr(e.condition), this.expr(e.whenTrue), this.expr(e.whenFalse)], src: e };
    return this.generic(e);
  }

  /** any other node: its kind and its children, type nodes and modifiers left out */
  generic(n: ts.Node): N {
    const c: N[] = [];
    ts.forEachChild(n, (ch) => {
      if (ts.isTypeNode(ch) || ts.isModifier(ch) || ch.kind === ts.SyntaxKind.ExclamationToken) return;
      if (ts.isIdentifier(ch)) c.push(this.id(ch));
      else if (ts.isStatement(ch)) c.push(...this.stmt(ch));
      else if (ts.isExpression(ch)) c.push(this.expr(ch));
      else c.push(this.generic(ch));
    });
    const k = kindName(n.kind);
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return { k, v: n.text, c, src: n };
    return { k, c, src: n };
  }

  func(f: ts.FunctionDeclaration): N {
    const body = f.body!.statements;
    let start = 0;
    while (start < body.length && isPureDeclaration(body[start])) start++;
    return {
      k: 'Function',
      c: [{ k: 'Params', c: f.parameters.map((p) => this.bindingName(p.name)) }, { k: 'Block', c: this.stmts(body.slice(start)), src: f.body }],
      src: f,
    };
  }
}

/** key of a subtree with fresh names blanked (independent of the renaming) */
function shapeKey(n: N): string {
  const v = n.fresh ? '?' : n.v;
  return `${n.k}${v === undefined ? '' : `:${v}`}(${n.c.map(shapeKey).join(',')})`;
}

/** orders the operands of * and + canonically (bottom-up), without looking at fresh names */
function commute(n: N): N {
  const c = n.c.map(commute);
  if (n.k === 'Binary' && (c[1].v === '*' || c[1].v === '+')) {
    const [l, op, r] = c;
    if (shapeKey(l) > shapeKey(r)) return { ...n, c: [r, op, l] };
  }
  return { ...n, c };
}

/** canonical renaming of fresh identifiers by order of first occurrence */
function rename(n: N, map: Map<string, string> = new Map()): N {
  if (n.k === 'Id' && n.fresh) {
    let r = map.get(n.v!);
    if (r === undefined) map.set(n.v!, (r = `$${map.size}`));
    return { ...n, v: r, c: [] };
  }
  return { ...n, c: n.c.map((x) => rename(x, map)) };
}

export function normalizeFunction(source: string, name: string, opts: CompareOptions, file = 'x.ts'): N {
  let t = new Normalizer(opts.userNames).func(findFunction(source, name, file));
  if (opts.commutative) t = commute(t);
  return rename(t);
}

/** compact text of a normalized tree (the comparison key) */
export function show(n: N): string {
  const v = n.v === undefined ? '' : n.v;
  switch (n.k) {
    case 'Id':
    case 'Num':
      return v;
    case 'Key':
      return v;
    case 'Binary':
      return `(${show(n.c[0])} ${n.c[1].v} ${show(n.c[2])})`;
    case 'Assign':
      return `${show(n.c[0])} = ${show(n.c[1])}`;
    case 'ExprStmt':
      return `${show(n.c[0])};`;
    case 'Prop':
      return `${show(n.c[0])}.${v}`;
    case 'Index':
      return `${show(n.c[0])}[${show(n.c[1])}]`;
    case 'Call':
      return `${show(n.c[0])}(${n.c.slice(1).map(show).join(', ')})`;
    case 'New':
      return `new ${show(n.c[0])}(${n.c.slice(1).map(show).join(', ')})`;
    case 'ArrayLiteralExpression':
      return `[${n.c.map(show).join(', ')}]`;
    case 'Object':
      return `{ ${n.c.map(show).join(', ')} }`;
    case 'Field':
      return `${show(n.c[0])}: ${show(n.c[1])}`;
    case 'Block':
      return `{ ${n.c.map(show).join(' ')} }`;
    case 'If':
      return `if (${show(n.c[0])}) ${show(n.c[1])}${n.c[2] ? ` else ${show(n.c[2])}` : ''}`;
    case 'For':
      return `for (${n.c[0].c.map(show).join(', ')}; ${show(n.c[1])}; ${n.c[2].c.map(show).join(', ')}) ${show(n.c[3])}`;
    case 'ReturnStatement':
      return `return${n.c.length ? ' ' + show(n.c[0]) : ''};`;
    case 'Cond':
      return `(${show(n.c[0])} ? ${show(n.c[1])} : ${show(n.c[2])})`;
    case 'Params':
      return `(${n.c.map(show).join(', ')})`;
    case 'Function':
      return `function ${show(n.c[0])} ${show(n.c[1])}`;
    case 'Op':
      return v;
    case 'Prefix':
      return `${v}${show(n.c[0])}`;
    case 'Postfix':
      return `${show(n.c[0])}${v}`;
    default:
      return `${n.k}${v ? `:${v}` : ''}(${n.c.map(show).join(', ')})`;
  }
}

/** one line per statement, nested blocks indented */
function lines(n: N, indent = ''): string[] {
  if (n.k === 'Function') return [`function ${show(n.c[0])}`, ...lines(n.c[1], indent)];
  if (n.k === 'Block') return n.c.flatMap((s) => lines(s, indent + '  '));
  if (n.k === 'If') {
    return [`${indent}if (${show(n.c[0])})`, ...lines(n.c[1], indent), ...(n.c[2] ? [`${indent}else`, ...lines(n.c[2], indent)] : [])];
  }
  if (n.k === 'For') return [`${indent}for (${n.c[0].c.map(show).join(', ')}; ${show(n.c[1])}; ${n.c[2].c.map(show).join(', ')})`, ...lines(n.c[3], indent)];
  return [indent + show(n)];
}

const srcText = (n: N | undefined): string => (n?.src ? n.src.getText().replace(/\s+/g, ' ') : n ? show(n) : '(nothing)');

/** the deepest differing subtrees of two differing trees */
function deepest(e: N, a: N): [N, N] {
  if (e.k !== a.k || e.v !== a.v || e.c.length !== a.c.length) return [e, a];
  for (let i = 0; i < e.c.length; i++) if (show(e.c[i]) !== show(a.c[i])) return deepest(e.c[i], a.c[i]);
  return [e, a];
}

/** the first differing statement of two blocks (descending into loops and branches whose headers agree) */
function firstDifference(e: N, a: N, path: string): string | undefined {
  for (let i = 0; i < Math.max(e.c.length, a.c.length); i++) {
    const es = e.c[i];
    const as = a.c[i];
    const here = `${path}statement ${i + 1}`;
    if (!es || !as) return `${here}: expected \`${srcText(es)}\`  ≠  tsad \`${srcText(as)}\``;
    if (show(es) === show(as)) continue;
    if (es.k === as.k && es.k === 'For' && [0, 1, 2].every((k) => show(es.c[k]) === show(as.c[k]))) return firstDifference(es.c[3], as.c[3], `${here} (loop body), `);
    if (es.k === as.k && es.k === 'If' && show(es.c[0]) === show(as.c[0]) && es.c.length === as.c.length) {
      if (show(es.c[1]) !== show(as.c[1])) return firstDifference(es.c[1], as.c[1], `${here} (then), `);
      return firstDifference(es.c[2], as.c[2], `${here} (else), `);
    }
    if (es.k === 'Block' && as.k === 'Block') return firstDifference(es, as, `${here} (block), `);
    const [de, da] = deepest(es, as);
    return `${here}: expected \`${srcText(es)}\`  ≠  tsad \`${srcText(as)}\`\n    first difference: expected ${show(de)}  ≠  tsad ${show(da)}`;
  }
  return undefined;
}

/** Compares function `name` of the generated code with function `expectedName` of the golden code. */
export function compareFunctions(actualSource: string, expectedSource: string, name: string, opts: CompareOptions, expectedName = name): CompareResult {
  const e = normalizeFunction(expectedSource, expectedName, opts, 'expected.ts');
  const a = normalizeFunction(actualSource, name, opts, 'generated.ts');
  const equal = show(e) === show(a);
  return {
    equal,
    difference: equal ? undefined : show(e.c[0]) !== show(a.c[0]) ? `${name}: parameters differ: expected ${show(e.c[0])}  ≠  tsad ${show(a.c[0])}` : firstDifference(e.c[1], a.c[1], `${name}: `),
    expectedNormalized: lines(e).join('\n'),
    actualNormalized: lines(a).join('\n'),
  };
}
