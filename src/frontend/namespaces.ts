// Namespace objects (numeric.js / gl-matrix style): a module `const` holding an object of functions,
//
//   const vec = { dot(a: number[], b: number[]) { … }, add: (out: number[], a: number[], b: number[]) => { … } };
//
// called `vec.dot(x, y)`. Such an object is no data: it is a namespace. Each member is a function of the
// compilation named `vec_dot` (as a static method `C.m` is `C_m`), and a call `vec.dot(…)`, or
// `this.dot(…)` inside a member written as a method, is a direct call of it. Nothing else may touch the
// object: read as a value, passed, stored, assigned or its members read without a call, it is refused
// where that happens (tsad would have to know which function a value holds at run time). An object
// mixing data and functions is refused where it is declared: its data would be module state read
// through `this`, which a function of the compilation does not have.
import ts from 'typescript';
import type { Expr } from '../ir/types.js';

/** a member of a namespace object, as a function of the compilation */
export interface NamespaceFunction {
  name: string;
  node: ts.MethodDeclaration | ts.ArrowFunction | ts.FunctionExpression;
}

const skipParens = (e: ts.Expression): ts.Expression => (ts.isParenthesizedExpression(e) ? skipParens(e.expression) : e);

/** the function a member of an object literal holds, if it holds one */
function memberFunction(m: ts.ObjectLiteralElementLike): ts.MethodDeclaration | ts.ArrowFunction | ts.FunctionExpression | null {
  if (ts.isMethodDeclaration(m)) return m;
  if (ts.isPropertyAssignment(m)) {
    const v = skipParens(m.initializer);
    if (ts.isArrowFunction(v) || ts.isFunctionExpression(v)) return v;
  }
  return null;
}

/** Is this initializer an object literal with a function among its members (a namespace, or an attempt at one)? */
export function isNamespaceObject(init: ts.Expression | undefined): init is ts.ObjectLiteralExpression {
  const e = init && skipParens(init);
  return !!e && ts.isObjectLiteralExpression(e) && e.properties.some((m) => memberFunction(m) !== null);
}

/** The namespace a variable declaration declares: a module-level `const` initialised with an object of functions. */
function namespaceOf(decl: ts.Node): ts.VariableDeclaration | null {
  if (!ts.isVariableDeclaration(decl) || !ts.isIdentifier(decl.name) || !isNamespaceObject(decl.initializer)) return null;
  const list = decl.parent;
  if (!ts.isVariableDeclarationList(list) || !(list.flags & ts.NodeFlags.Const) || !ts.isVariableStatement(list.parent) || !ts.isSourceFile(list.parent.parent)) return null;
  return decl;
}

/**
 * The functions of a namespace object `name = { … }`, or the diagnostics refusing it (each where the
 * problem is written, with what to write instead).
 */
export function collectNamespace(name: string, decl: ts.VariableDeclaration, isConst: boolean, err: (node: ts.Node, msg: string, hint: string) => void): NamespaceFunction[] {
  const obj = skipParens(decl.initializer!) as ts.ObjectLiteralExpression;
  if (!isConst) {
    err(decl.name, `the object of functions '${name}' is declared with \`let\`/\`var\`: tsad takes an object of functions as a namespace only when it is a \`const\``, `declare it \`const ${name} = { … }\``);
    return [];
  }
  const out: NamespaceFunction[] = [];
  let ok = true;
  for (const m of obj.properties) {
    const fn = memberFunction(m);
    const key = m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) && /^[A-Za-z_$][\w$]*$/.test(m.name.text) ? m.name.text : null;
    if (!fn) {
      ok = false;
      const what = ts.isSpreadAssignment(m) ? 'a spread' : ts.isGetAccessorDeclaration(m) || ts.isSetAccessorDeclaration(m) ? 'an accessor' : `the data member '${m.name?.getText() ?? '…'}'`;
      err(m, `the object '${name}' mixes functions and data (${what}): tsad takes an object of functions as a namespace, whose members are all functions`, `move the data into a module \`const\` of its own (\`const ${name.toUpperCase()}_${(key ?? 'data').toUpperCase()} = …\`) that the functions read`);
      continue;
    }
    if (!key) {
      ok = false;
      err(m.name ?? m, `the member ${m.name?.getText() ?? ''} of the object of functions '${name}' needs a plain name`, 'name it with an identifier (`dot(a, b) { … }`)');
      continue;
    }
    if (fn.asteriskToken || ts.getModifiers(fn)?.some((x) => x.kind === ts.SyntaxKind.AsyncKeyword)) {
      ok = false;
      err(m, 'generators and async functions are not differentiable', 'write a plain synchronous function');
      continue;
    }
    out.push({ name: `${name}_${key}`, node: fn });
  }
  return ok ? out : [];
}

/** what namespaceCall needs of the lowering */
export interface NamespaceHost {
  checker: ts.TypeChecker;
  functionOf(decl: ts.Node): string | null;
  /** a call of function `fn` of the compilation (a copy of it when it takes functions) */
  helperCall(e: ts.CallExpression, fn: string): Expr | null;
  err(node: ts.Node, msg: string, hint?: string): null;
}

/** the namespace declaration an identifier names, if it names one */
function namespaceNamed(checker: ts.TypeChecker, id: ts.Identifier): ts.VariableDeclaration | null {
  let sym = checker.getSymbolAtLocation(id);
  if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  for (const d of sym?.declarations ?? []) {
    const ns = namespaceOf(d);
    if (ns) return ns;
  }
  return null;
}

/** the namespace whose member method `this` is written in (`this.dot(…)` inside `{ norm(a) { … } }`), if any */
function namespaceOfThis(node: ts.Node): ts.VariableDeclaration | null {
  // (`this` in an arrow is the enclosing function's)
  let container: ts.Node = node.parent;
  while (!ts.isSourceFile(container) && !(ts.isFunctionLike(container) && !ts.isArrowFunction(container))) container = container.parent;
  return ts.isMethodDeclaration(container) && ts.isObjectLiteralExpression(container.parent) ? namespaceOf(container.parent.parent) : null;
}

/**
 * `vec.dot(…)` (or `this.dot(…)` in a member of `vec`): a call of the function `vec_dot`. undefined when
 * the callee is not a member of a namespace object.
 */
export function namespaceCall(h: NamespaceHost, e: ts.CallExpression): Expr | null | undefined {
  const callee = e.expression;
  if (!ts.isPropertyAccessExpression(callee)) return undefined;
  const recv = skipParens(callee.expression);
  const ns = ts.isIdentifier(recv) ? namespaceNamed(h.checker, recv) : recv.kind === ts.SyntaxKind.ThisKeyword ? namespaceOfThis(recv) : null;
  if (!ns) return undefined;
  const nsName = (ns.name as ts.Identifier).text;
  const obj = skipParens(ns.initializer!) as ts.ObjectLiteralExpression;
  const member = obj.properties.find((m) => m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) && m.name.text === callee.name.text);
  const fn = member && memberFunction(member);
  const name = fn && h.functionOf(fn);
  if (!name) return h.err(callee.name, `'${callee.name.text}' is not a function of the object '${nsName}'`, `call one of its functions: ${obj.properties.filter((m) => memberFunction(m)).map((m) => `\`${nsName}.${m.name?.getText()}(…)\``).join(', ')}`);
  if (callee.questionDotToken || e.questionDotToken) return h.err(callee, 'optional chaining is not supported', `call it directly: \`${nsName}.${callee.name.text}(…)\``);
  return h.helperCall(e, name);
}

/**
 * A namespace object read other than to call a member (`vec`, `vec.dot` without a call, `vec.dot = …`):
 * refused where it is written. undefined when the identifier names no namespace.
 */
export function namespaceUse(h: NamespaceHost, id: ts.Identifier): null | undefined {
  const ns = namespaceNamed(h.checker, id);
  if (!ns) return undefined;
  const p = id.parent;
  const member = ts.isPropertyAccessExpression(p) && p.expression === id ? p.name.text : null;
  const assigned = member && ts.isBinaryExpression(p.parent) && p.parent.left === p && p.parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && p.parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
  if (assigned) return h.err(p.parent, `the object of functions '${id.text}' cannot be assigned to: tsad takes it as a namespace of fixed functions`, 'declare each function once, in the object, and choose between them with an `if` around two calls');
  if (member) return h.err(p, `the function '${id.text}.${member}' is read as a value here: tsad calls the functions of an object of functions, it does not pass or store them`, `call it (\`${id.text}.${member}(…)\`); to pass it to a helper, declare it as a top-level function and pass that`);
  const first = (skipParens(ns.initializer!) as ts.ObjectLiteralExpression).properties.find((m) => memberFunction(m))?.name?.getText() ?? 'f';
  return h.err(id, `the object of functions '${id.text}' is used as a value here: tsad takes it as a namespace, whose functions can only be called (\`${id.text}.${first}(…)\`)`, 'call its functions where you need them, instead of passing or storing the object');
}
