// Reading a plain JavaScript function back from its source (`f.toString()`) for the runtime API: the
// forms JavaScript prints (arrows, function expressions and declarations, methods written in an object
// or a class), its parameters, whether it calls itself, and the text with type annotations added.
import ts from 'typescript';
import { TsadError } from '../frontend/diagnostics.js';
import { boundFieldType } from './absent.js';

export interface FunctionSource {
  /** the source as a function expression or arrow (a method's text gets the `function` keyword) */
  text: string;
  /** the name the function declares for itself (a method's key), if any */
  name: string | null;
  params: ts.NodeArray<ts.ParameterDeclaration>;
  node: ts.ArrowFunction | ts.FunctionExpression;
  sf: ts.SourceFile;
}

/** `{ sq(x) { … } }.sq` prints as `sq(x) { … }`, which parses as an expression only with `function` before it */
const METHOD = /^\s*(async\s+)?([A-Za-z_$][\w$]*)\s*\(/;

function parse(text: string): FunctionSource | null {
  const sf = ts.createSourceFile('f.ts', `(${text})`, ts.ScriptTarget.ES2020, true);
  const st = sf.statements[0];
  // the whole text must be the one function (`(sq(x) { … })` parses as a call followed by a block)
  if (sf.statements.length !== 1 || !st || !ts.isExpressionStatement(st) || !ts.isParenthesizedExpression(st.expression)) return null;
  const fn = st.expression.expression;
  if (!ts.isArrowFunction(fn) && !ts.isFunctionExpression(fn)) return null;
  return { text, name: fn.name?.text ?? null, params: fn.parameters, node: fn, sf };
}

/** The function in `src` (as `toString` prints it), or a TsadError saying what the runtime API reads. */
export function readFunction(src: string): FunctionSource {
  const direct = parse(src);
  if (direct) return direct;
  const m = METHOD.exec(src);
  if (m && m[2] !== 'function') {
    const asFunction = parse(src.replace(METHOD, `${m[1] ?? ''}function ${m[2]}(`));
    if (asFunction) return asFunction;
  }
  throw new TsadError([
    {
      file: '<function>',
      line: 1,
      col: 1,
      message: 'the runtime API needs a function expression, arrow function, function declaration or method',
      hint: 'getters, setters and bound functions cannot be read back as source: wrap the call in an arrow function of your own',
      severity: 'error',
    },
  ]);
}

/**
 * Does the function in `src` mention `name` in its body or parameter defaults (a call of itself, or of
 * a helper)? Its own name in `function name(` and property names (`o.name`, `{ name: … }`) do not count.
 */
export function mentions(fn: FunctionSource, name: string): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isIdentifier(n) && n.text === name) {
      const p = n.parent;
      const propertyName = (ts.isPropertyAccessExpression(p) && p.name === n) || (ts.isPropertyAssignment(p) && p.name === n) || (ts.isFunctionExpression(p) && p.name === n);
      if (!propertyName) found = true;
      return;
    }
    n.forEachChild(visit);
  };
  fn.node.parameters.forEach(visit);
  visit(fn.node.body);
  return found;
}

/** Source text of the function with a type annotation after each listed parameter, and its result type. */
export function annotate(fn0: FunctionSource, types: readonly (string | null)[], ret: string | null = null, passed = Infinity): string {
  // `x => …` needs parentheses to take an annotation
  const bare = /^\s*(async\s+)?([A-Za-z_$][\w$]*)\s*=>/.exec(fn0.text);
  const fn = bare ? readFunction(fn0.text.replace(bare[0], `${bare[1] ?? ''}(${bare[2]}) =>`)) : fn0;
  const { params, node, sf } = fn;
  let out = fn.text;
  // offsets are shifted by one: the text was parsed inside parentheses
  if (ret && !node.type) {
    const close = node.parameters.end + sf.text.slice(node.parameters.end).indexOf(')') - 1;
    out = out.slice(0, close + 1) + `: ${ret}` + out.slice(close + 1);
  }
  // inserted from the back so that earlier offsets stay valid
  for (let i = params.length - 1; i >= 0; i--) {
    const p = params[i];
    if (!p.type && !types[i] && i >= passed && numberOrDefault(p, node)) {
      // never given by any call, read only as `eps || 1e-5` (`??` too): an optional number
      out = out.slice(0, p.name.end - 1) + '?: number' + out.slice(p.name.end - 1);
      continue;
    }
    const options = !p.type && !types[i] && i >= passed && p.initializer && ts.isObjectLiteralExpression(p.initializer) && !p.initializer.properties.length ? numberFieldsOrDefaults(p, node) : null;
    if (options) {
      // `opts = {}` never given by any call, read only as `opts.g ?? 9.81`: optional number fields
      out = out.slice(0, p.name.end - 1) + `: { ${options.map((f) => `${f}?: number`).join('; ')} }` + out.slice(p.name.end - 1);
      continue;
    }
    if (p.type || !types[i]) continue;
    const at = p.name.end - 1;
    // a parameter some call leaves out is optional (one with a default already is)
    const left = i >= passed && !p.initializer && !p.questionToken && !p.dotDotDotToken;
    // a rest parameter gathers its arguments: an array of the first one's type
    let t = p.dotDotDotToken ? (/^[\w.]+$/.test(types[i]!) ? `${types[i]}[]` : `(${types[i]})[]`) : types[i]!;
    // `options = {}`: the fields the argument has but the default lacks are optional (`options.scale ?? 1`)
    if (p.initializer && ts.isObjectLiteralExpression(p.initializer)) t = optionalBeyond(t, p.initializer);
    // `{ tol = 1e-12, maxIter = 60 } = {}`: a field the pattern gives a default is optional, and one the
    // argument lacks is typed by its default
    // (left out, the argument gives no fields: the pattern's defaults type them)
    if (ts.isObjectBindingPattern(p.name)) t = withPatternDefaults(/^\{.*\}$/.test(t) ? t : '{}', p.name, fn);
    out = out.slice(0, at) + `${left ? '?' : ''}: ${t}` + out.slice(at);
  }
  return out;
}

/**
 * Is parameter `p` (a plain name without a default) read only as `p || 1e-5` or `p ?? 1e-5`, a number
 * literal standing in for it? Then it is a number that may be left out.
 */
function numberOrDefault(p: ts.ParameterDeclaration, fn: ts.SignatureDeclaration): boolean {
  if (!ts.isIdentifier(p.name) || p.initializer || p.dotDotDotToken) return false;
  const uses = usesOf(p.name.text, fn);
  return !!uses?.length && uses.every(withNumberFallback);
}

/**
 * The fields of an `opts = {}` parameter, when it is read only as `opts.g ?? 9.81` or `opts.dt || 0.01`
 * (a number literal standing in for each); null otherwise.
 */
function numberFieldsOrDefaults(p: ts.ParameterDeclaration, fn: ts.SignatureDeclaration): string[] | null {
  if (!ts.isIdentifier(p.name)) return null;
  const uses = usesOf(p.name.text, fn);
  if (!uses?.length) return null;
  const fields = new Set<string>();
  for (const u of uses) {
    const read = u.parent;
    if (!ts.isPropertyAccessExpression(read) || read.expression !== u || read.questionDotToken || !withNumberFallback(read)) return null;
    fields.add(read.name.text);
  }
  return [...fields];
}

/** the reads of a name in a function's body (not as a property name), or null without a body */
function usesOf(name: string, fn: ts.SignatureDeclaration): ts.Identifier[] | null {
  const body = (fn as ts.FunctionLikeDeclaration).body;
  if (!body) return null;
  const out: ts.Identifier[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && n.text === name && !(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n)) out.push(n);
    n.forEachChild(visit);
  };
  visit(body);
  return out;
}

/** `e || 1e-5`, `e ?? 1e-5`: e stands on the left, a number literal on the right */
function withNumberFallback(e: ts.Expression): boolean {
  const b = e.parent;
  const isNumber = (x: ts.Expression) => ts.isNumericLiteral(x) || (ts.isPrefixUnaryExpression(x) && x.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(x.operand));
  return ts.isBinaryExpression(b) && b.left === e && (b.operatorToken.kind === ts.SyntaxKind.BarBarToken || b.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) && isNumber(b.right);
}

/** the type of a default a pattern gives (`= 60`, `= 'km'`, `= true`), or null */
function defaultType(e: ts.Expression): string | null {
  if (ts.isNumericLiteral(e) || (ts.isPrefixUnaryExpression(e) && ts.isNumericLiteral(e.operand))) return 'number';
  if (ts.isStringLiteral(e)) return JSON.stringify(e.text);
  if (e.kind === ts.SyntaxKind.TrueKeyword || e.kind === ts.SyntaxKind.FalseKeyword) return 'boolean';
  return null;
}

/**
 * An object type's text with the fields a destructuring pattern gives defaults (`{ tol = 1e-12 }`)
 * optional, and those the type lacks added as optional: typed by their defaults where these are
 * literals, else (`shift = x * 0.5`, or no default) by the uses of the names they bind (absent.ts).
 */
function withPatternDefaults(type: string, pattern: ts.ObjectBindingPattern, fn: FunctionSource): string {
  const m = /^\{ (.*) \}$/.exec(type) ?? (type === '{}' ? ['', ''] : null);
  if (!m) return type;
  const fields = splitFields(m[1]);
  for (const el of pattern.elements) {
    const key = el.propertyName ?? el.name;
    if (el.dotDotDotToken || !ts.isIdentifier(key)) continue;
    const at = fields.findIndex((f) => new RegExp(`^${key.text}\\??:`).test(f));
    if (at >= 0) {
      if (el.initializer) fields[at] = fields[at].replace(/^([\w$]+)\??:/, '$1?:');
      continue;
    }
    // (a field bound to a nested pattern, `{ w: [a, b] }`, is left to the type the value gives)
    if (!ts.isIdentifier(el.name)) continue;
    const t = (el.initializer && defaultType(el.initializer)) ?? boundFieldType(fn, el.name.text);
    fields.push(`${key.text}?: ${t}`);
  }
  return `{ ${fields.join('; ')} }`;
}

/** the top-level fields of an object type's body, split at '; ' outside brackets */
export function splitFields(body: string): string[] {
  const fields: string[] = [];
  let depth = 0, start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') depth--;
    else if (c === ';' && depth === 0) {
      fields.push(body.slice(start, i).trim());
      start = i + 1;
    }
  }
  fields.push(body.slice(start).trim());
  return fields.filter(Boolean);
}

/**
 * An object type's text with each field the default `literal` does not give marked optional
 * (`{ scale: number; n: number }` with default `{ n: 3 }` → `{ scale?: number; n: number }`).
 */
function optionalBeyond(type: string, literal: ts.ObjectLiteralExpression): string {
  const m = /^\{ (.*) \}$/.exec(type);
  if (!m) return type;
  const given = new Set(literal.properties.flatMap((q) => (q.name && (ts.isIdentifier(q.name) || ts.isStringLiteral(q.name)) ? [q.name.text] : [])));
  const marked = splitFields(m[1]).map((f) => {
    const name = /^([\w$]+)(\??):/.exec(f);
    return name && !name[2] && !given.has(name[1]) ? f.replace(/^([\w$]+):/, '$1?:') : f;
  });
  return `{ ${marked.join('; ')} }`;
}

/** `const name = <function>;`: one declaration form for heads and helpers of every form */
export function asDeclaration(name: string, text: string): string {
  return `const ${name} = ${text.trim()};`;
}
