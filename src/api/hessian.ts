// Second derivatives, forward over reverse: tsad differentiates the gradient it generated. The adjoint
// `<head>_b` is compiled first (TypeScript), a small function `<head>_grad` calling it with a unit seed
// and returning the gradient is written beside it, and that pair is compiled again in the tangent and
// vector modes: `<head>_grad_d(x…, v…)` returns the gradient and the Hessian-vector product H·v, and
// `<head>_grad_dv` the products with several directions at once (a Hessian's columns).
import { DiagnosticBag, type Diagnostic } from '../frontend/diagnostics.js';
import { compile, frontEnd, type CompileOptions, type CompileResult, type ManifestParam, type SourceInput } from './compile.js';
import { printFunc } from '../backend/print.js';
import { TsadError } from '../frontend/diagnostics.js';
import { elementHessianFunc } from '../transform/elements.js';
import { TransformError } from '../transform/tangent.js';

export interface HvpOptions {
  /** the scalar function to differentiate twice */
  head: string;
  /** independents (default as compile's); the Hessian is taken with respect to all of them */
  wrt?: string[];
  /** which of `<head>_grad_d` (tangent) and `<head>_grad_dv` (vector) to emit (default both) */
  modes?: ('tangent' | 'vector')[];
  js?: boolean;
  runtimeImport?: string | null;
  customDerivatives?: CompileOptions['customDerivatives'];
}

/** file names of the second compilation: the generated adjoint, and the gradient function calling it */
const ADJOINT_FILE = 'tsad_adjoint.ts';
const GRADIENT_FILE = 'tsad_gradient.ts';

const failed = (r: CompileResult): CompileResult => ({ ...r, code: '', manifest: [], primals: [] });

/**
 * The gradient and Hessian-vector products of a scalar function. The result's code holds the primal,
 * its adjoint `<head>_b`, the gradient `<head>_grad` and the derivatives of the gradient.
 */
export function compileHvp(input: SourceInput, options: HvpOptions): CompileResult {
  // (a Revolve schedule's snapshots are not differentiated again: its loop is recorded instead)
  const first = compile(input, { head: options.head, wrt: options.wrt, modes: ['reverse'], runtimeImport: 'tsad/runtime', customDerivatives: options.customDerivatives, adjoint: { binomial: false, fuseObjectReductions: false, reuseShadows: false } });
  if (first.diagnostics.some((d) => d.severity === 'error') || !first.code) return failed(first);
  const entry = first.manifest.find((m) => m.name === `${options.head}_b`);
  const seed = entry?.params.find((p) => p.role === 'seed');
  if (!entry || seed?.type !== 'number')
    return failed({ ...first, diagnostics: [atHead(input, options.head, `'${options.head}' does not return a single number: Hessians and Hessian-vector products are of scalar functions`, 'differentiate a scalar objective (a sum of squares, a log-likelihood); for the Jacobian of a vector function use the tangent or vector mode')] });
  const types = [...first.code.matchAll(/^export type (\w+)/gm)].map((m) => m[1]);
  const gradient = gradientSource(options.head, entry.params, entry.returns, first.wrt, types);
  const second = compile(
    { [ADJOINT_FILE]: first.code, [GRADIENT_FILE]: gradient },
    { head: `${options.head}_grad`, wrt: first.wrt, modes: options.modes ?? ['tangent', 'vector'], js: options.js, runtimeImport: options.runtimeImport },
  );
  // what tsad could not differentiate lies in code the user never saw: say so at the head, with the reason
  const inGenerated = second.diagnostics.find((d) => d.severity === 'error' && (d.file === ADJOINT_FILE || d.file === GRADIENT_FILE));
  if (!inGenerated) return second;
  // (the generated statement is named: the user never saw it, and its names are tsad's own)
  const text = (inGenerated.file === ADJOINT_FILE ? first.code : gradient).split('\n')[inGenerated.line - 1]?.trim();
  const reason = inGenerated.message.replace(/\s+/g, ' ').replace(/\.$/, '') + (text ? `, at \`${text}\` in the gradient code` : '');
  return failed({
    ...second,
    diagnostics: [atHead(input, options.head, `second derivatives of '${options.head}' are not available: tsad cannot differentiate the gradient code it generated for it (${reason})`, 'the gradient itself works (grad, --mode reverse); for second derivatives take divided differences of the gradient, or rewrite what the gradient code needs (README, "Second derivatives")')],
  });
}

/** an error located at the head function in the user's source */
function atHead(input: SourceInput, head: string, message: string, hint: string): Diagnostic {
  const files = typeof input === 'string' ? new Map([['input.ts', input]]) : new Map(Object.entries(input));
  let loc = { file: [...files.keys()][0], line: 1, col: 1 };
  try {
    loc = frontEnd(input).funcs.get(head)?.loc ?? loc;
  } catch {
    // (the first compilation succeeded, so the front end did too: only a fallback)
  }
  const diags = new DiagnosticBag(files);
  diags.error(loc, message, hint);
  return diags.list[0];
}

/**
 * `<head>_grad(…)`: the adjoint with seed 1 and zero shadows, returning the independents' adjoints (the
 * one, or a tuple of them in `wrt` order). Scalar adjoints come back as the adjoint's result.
 */
function gradientSource(head: string, params: ManifestParam[], returns: string, wrt: string[], types: string[]): string {
  const primals = params.filter((p) => p.role === 'primal');
  const shadows = params.filter((p) => p.role === 'adjoint');
  const taken = new Set([...params.map((p) => p.name), ...types, `${head}_b`, `${head}_grad`, 'zerosLike']);
  let res = 'result';
  for (let k = 0; taken.has(res); k++) res = `result${k}`;
  const lines: string[] = [];
  for (const s of shadows) lines.push(`  const ${s.name}: ${s.type} = zerosLike(${s.of});`);
  // (the adjoint returns scalar adjoints in parameter order, whatever the order of `wrt`)
  const scalarWrt = primals.map((p) => p.name).filter((n) => wrt.includes(n) && !shadows.some((s) => s.of === n));
  const call = `${head}_b(${params.map((p) => (p.role === 'seed' ? '1' : p.name)).join(', ')})`;
  lines.push(returns === 'void' ? `  ${call};` : `  const ${res} = ${call};`);
  // a scalar independent's adjoint is the adjoint's result (one) or an entry of it (several)
  const adjointOf = (w: string) => {
    const shadow = shadows.find((s) => s.of === w);
    if (shadow) return { text: shadow.name, type: shadow.type };
    return { text: scalarWrt.length === 1 ? res : `${res}[${scalarWrt.indexOf(w)}]`, type: 'number' };
  };
  const parts = wrt.map(adjointOf);
  lines.push(parts.length === 1 ? `  return ${parts[0].text};` : `  return [${parts.map((p) => p.text).join(', ')}];`);
  const retTy = parts.length === 1 ? parts[0].type : `[${parts.map((p) => p.type).join(', ')}]`;
  const imports = [`${head}_b`, ...types.map((t) => `type ${t}`)];
  return [
    `import { zerosLike } from 'tsad/runtime';`,
    `import { ${imports.join(', ')} } from './${ADJOINT_FILE.replace(/\.ts$/, '.js')}';`,
    '',
    `export function ${head}_grad(${primals.map((p) => `${p.name}: ${p.type}`).join(', ')}): ${retTy} {`,
    ...lines,
    '}',
    '',
  ].join('\n');
}

/** `<head>_elements` and `<head>_elements_add` (src/transform/elements.ts), printed alone, or why the head is not a sum of element functions */
export type ElementsResult = { code: string; name: string; addName: string; sites: number; slots: number } | { refused: string };

/**
 * The element Hessian code of a scalar function of one number array `wrt`: a function of the head's
 * parameters and two buffers, needing nothing from the runtime (src/api/elements.ts calls it).
 */
export function compileElements(input: SourceInput, options: { head: string; wrt: string; js?: boolean }): ElementsResult {
  let head;
  try {
    head = frontEnd(input).funcs.get(options.head);
  } catch (e) {
    if (e instanceof TsadError) return { refused: e.diagnostics[0]?.message ?? 'the front end failed' };
    throw e;
  }
  if (!head) return { refused: `no function '${options.head}'` };
  const name = `${options.head}_elements`;
  try {
    const el = elementHessianFunc(head, options.wrt, name);
    return { code: [printFunc(el.func, { js: options.js }), printFunc(el.add, { js: options.js })].join('\n'), name, addName: el.add.name, sites: el.sites, slots: el.slots };
  } catch (e) {
    if (e instanceof TransformError) return { refused: e.message + (e.node?.loc ? ` (line ${e.node.loc.line})` : '') };
    throw e;
  }
}
