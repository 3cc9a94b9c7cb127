// `grad(f, { wrt })` at build time: with `grad` imported from 'tsad' and `f` a function of the app whose
// parameters declare their types (a top-level function or `const f = (…) => …` of the module, or one it
// imports by name from a relative path), the call becomes the `__tsad_grad` of a `?tsad=f&grad=…` import
// (compiled like any other, in reverse mode), and the import of `grad` from 'tsad' goes when nothing
// else uses it, so the compiler stays out of the bundle. A call that cannot be compiled so is left to
// the runtime API, with a warning saying why. Lines are kept: the map is line for line.
import { GenMapping, maybeAddMapping, setSourceContent, toEncodedMap } from '@jridgewell/gen-mapping';
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import ts from 'typescript';
import type { CompileResult } from '../api/compile.js';
import type { SourceMapV3 } from '../backend/source-map.js';
import { resolveFile, scriptKind } from './files.js';

interface Declared {
  /** the import specifier of the module declaring it, and its name there */
  spec: string;
  name: string;
  params: string[];
  /** why it cannot be compiled from its declared types (a parameter without a type), or null */
  untyped: string | null;
}

/** top-level functions of a source file by name: `function f(…)`, `const f = (…) => …` / `function (…)` */
function topFunctions(sf: ts.SourceFile): Map<string, { params: readonly ts.ParameterDeclaration[]; exported: boolean }> {
  const out = new Map<string, { params: readonly ts.ParameterDeclaration[]; exported: boolean }>();
  const isExported = (n: ts.Node) => !!ts.getModifiers(n as ts.HasModifiers)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const s of sf.statements) {
    if (ts.isFunctionDeclaration(s) && s.name && s.body) out.set(s.name.text, { params: s.parameters, exported: isExported(s) });
    if (ts.isVariableStatement(s) && s.declarationList.flags & ts.NodeFlags.Const)
      for (const d of s.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer)))
          out.set(d.name.text, { params: d.initializer.parameters, exported: isExported(s) });
  }
  return out;
}

function declared(name: string, spec: string, params: readonly ts.ParameterDeclaration[]): Declared {
  const bad = params.find((p) => !p.type || !ts.isIdentifier(p.name));
  const untyped = bad ? `its parameter '${bad.name.getText()}' ${ts.isIdentifier(bad.name) ? 'declares no type' : 'is destructured'}` : null;
  return { spec, name, params: params.map((p) => (ts.isIdentifier(p.name) ? p.name.text : '')), untyped };
}

/** The static `wrt` of grad's options (positions or names, one or a list), or why there is none. */
function staticWrt(opts: ts.Expression | undefined): { wrt: (string | number)[] | null; list: boolean } | string {
  if (!opts) return { wrt: null, list: false };
  if (!ts.isObjectLiteralExpression(opts)) return 'its options are not an object literal';
  let out: { wrt: (string | number)[] | null; list: boolean } = { wrt: null, list: false };
  const one = (e: ts.Expression): string | number | null => (ts.isNumericLiteral(e) ? Number(e.text) : ts.isStringLiteral(e) ? e.text : null);
  for (const p of opts.properties) {
    const key = p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : null;
    if (!ts.isPropertyAssignment(p) || !key) return 'its options are not plain `key: value` fields';
    if (key === 'check') continue; // the runtime's first-call self-check: build time has no arguments
    if (key !== 'wrt') return `its option '${key}' needs the runtime API`;
    const v = p.initializer;
    if (ts.isArrayLiteralExpression(v)) {
      const items = v.elements.map(one);
      if (items.length === 0 || items.some((x) => x === null)) return '`wrt` is not a list of positions or names';
      out = { wrt: items as (string | number)[], list: true };
    } else {
      const x = one(v);
      if (x === null) return '`wrt` is not a literal position or name';
      out = { wrt: [x], list: false };
    }
  }
  return out;
}

function identityMap(file: string, code: string): SourceMapV3 {
  const map = new GenMapping({ file });
  const n = code.split('\n').length;
  for (let i = 1; i <= n; i++) maybeAddMapping(map, { generated: { line: i, column: 0 }, source: file, original: { line: i, column: 0 } });
  setSourceContent(map, file, code);
  return toEncodedMap(map) as SourceMapV3;
}

/** The module with its compilable grad(f) calls rewritten, or null when it has none. */
export function rewriteGradCalls(code: string, id: string, warn: (message: string) => void): { code: string; map: SourceMapV3 } | null {
  const sf = ts.createSourceFile(id, code, ts.ScriptTarget.Latest, true, scriptKind(id));
  const gradNames = new Set<string>();
  const gradImports: ts.ImportDeclaration[] = [];
  const imported = new Map<string, { spec: string; name: string }>();
  for (const s of sf.statements) {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier) || s.importClause?.isTypeOnly) continue;
    const named = s.importClause?.namedBindings;
    if (!named || !ts.isNamedImports(named)) continue;
    for (const el of named.elements) {
      if (el.isTypeOnly) continue;
      const orig = (el.propertyName ?? el.name).text;
      if (s.moduleSpecifier.text === 'tsad' && orig === 'grad') {
        gradNames.add(el.name.text);
        if (!gradImports.includes(s)) gradImports.push(s);
      } else if (s.moduleSpecifier.text.startsWith('.') && !s.moduleSpecifier.text.includes('?')) imported.set(el.name.text, { spec: s.moduleSpecifier.text, name: orig });
    }
  }
  if (gradNames.size === 0) return null;
  const local = topFunctions(sf);
  const self = `./${basename(id)}`;
  const functionOf = (name: string): Declared | string => {
    const f = local.get(name);
    if (f) return declared(name, self, f.params);
    const imp = imported.get(name);
    if (!imp) return `'${name}' is not a top-level function of this module or one it imports by name from a relative path`;
    const file = resolveFile(imp.spec, dirname(id));
    if (!file) return `'${imp.spec}' is not found`;
    const other = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, scriptKind(file));
    const g = topFunctions(other).get(imp.name);
    return g?.exported ? declared(imp.name, imp.spec, g.params) : `'${imp.name}' is not an exported top-level function of '${imp.spec}'`;
  };

  const edits: { start: number; end: number; text: string }[] = [];
  const adds: string[] = [];
  const rewritten = new Set<ts.Node>();
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && gradNames.has(n.expression.text)) {
      const why = rewrite(n);
      if (typeof why === 'string') {
        const { line, character } = sf.getLineAndCharacterOfPosition(n.getStart(sf));
        warn(`${id}:${line + 1}:${character + 1}: grad(…) is left to the runtime API (the compiler ships in the bundle): ${why}`);
      } else rewritten.add(n.expression);
    }
    ts.forEachChild(n, visit);
  };
  const rewrite = (call: ts.CallExpression): true | string => {
    const [fn, opts] = call.arguments;
    if (!fn || !ts.isIdentifier(fn) || call.arguments.length > 2) return 'its first argument is not the name of a function';
    const d = functionOf(fn.text);
    if (typeof d === 'string') return d;
    if (d.untyped) return `'${d.name}' cannot be compiled from its declared types: ${d.untyped}`;
    const w = staticWrt(opts);
    if (typeof w === 'string') return w;
    const names: string[] = [];
    for (const x of w.wrt ?? []) {
      const name = typeof x === 'number' ? d.params[x] : d.params.includes(x) ? x : undefined;
      if (name === undefined) return `wrt ${JSON.stringify(x)} is not a parameter of '${d.name}' (${d.params.join(', ')})`;
      names.push(name);
    }
    const local = `__tsad_grad${adds.length}`;
    const query = `tsad=${encodeURIComponent(d.name)}&${w.list ? 'grads' : 'grad'}=${names.join(',')}`;
    adds.push(`import { __tsad_grad as ${local} } from ${JSON.stringify(`${d.spec}?${query}`)};`);
    edits.push({ start: call.getStart(sf), end: call.getEnd(), text: local });
    return true;
  };
  visit(sf);
  if (edits.length === 0) return null;
  // the import of grad goes where no use of it is left
  let used = false;
  const uses = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && gradNames.has(n.text) && !rewritten.has(n) && !ts.isImportSpecifier(n.parent)) used = true;
    ts.forEachChild(n, uses);
  };
  for (const s of sf.statements) if (!ts.isImportDeclaration(s)) uses(s);
  if (!used) {
    for (const imp of gradImports) {
      const clause = imp.importClause!;
      const keep = (clause.namedBindings as ts.NamedImports).elements.filter((e) => !gradNames.has(e.name.text)).map((e) => e.getText(sf));
      const text = clause.name || keep.length ? `import ${[clause.name?.text, keep.length ? `{ ${keep.join(', ')} }` : ''].filter(Boolean).join(', ')} from 'tsad';` : '';
      const old = imp.getText(sf);
      edits.push({ start: imp.getStart(sf), end: imp.getEnd(), text: text + '\n'.repeat(old.split('\n').length - 1) });
    }
  }
  let out = code;
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  // the imports go on the first line, so that every line keeps its number
  out = adds.join(' ') + ' ' + out;
  return { code: out, map: identityMap(id, code) };
}

/**
 * `__tsad_grad(...args)`: grad's gradient from the generated `f_b`, as the runtime API shapes it: of
 * the one independent, or a list in `wrt` order; array and object adjoints start from zeros.
 */
export function gradWrapper(r: CompileResult, head: string, wrt: string[], list: boolean, runtime: string): string {
  const b = r.manifest.find((m) => m.mode === 'reverse' && m.of === head);
  if (!b) throw new Error(`tsad: no adjoint of '${head}' was generated`);
  const primals = b.params.filter((p) => p.role === 'primal').map((p) => p.name);
  const arrays = new Map<string, string>();
  const call = b.params.map((p) => {
    if (p.role === 'primal') return `args[${primals.indexOf(p.name)}]`;
    if (p.role === 'seed') return '1';
    const v = `b${arrays.size}`;
    arrays.set(p.of!, v);
    return v;
  });
  // scalar adjoints are returned, in parameter order: a number, or a tuple if several
  const scalars = primals.filter((n) => wrt.includes(n) && !arrays.has(n));
  const value = (n: string) => arrays.get(n) ?? (scalars.length === 1 ? 'r' : `r[${scalars.indexOf(n)}]`);
  const result = list ? `[${wrt.map(value).join(', ')}]` : value(wrt[0]);
  return [
    `import { zerosLike as __tsad_zerosLike } from ${JSON.stringify(runtime)};`,
    `export function __tsad_grad(...args) {`,
    ...[...arrays].map(([n, v]) => `  const ${v} = __tsad_zerosLike(args[${primals.indexOf(n)}]);`),
    `  const r = ${b.name}(${call.join(', ')});`,
    `  return ${result};`,
    `}`,
    '',
  ].join('\n');
}
