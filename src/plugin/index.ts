// The bundler plugin (`tsad/plugin`): one unplugin implementation for Vite, Rollup and esbuild. A thin
// shell over compile(), like src/cli and src/api: it reads files, asks the compiler, and hands the
// bundler JavaScript, a source map, diagnostics as build errors, and declarations for exact types.
//   import { loss_b } from './model.ts?tsad=loss&modes=reverse&wrt=w,b'
// compiles the derivatives of `loss` at build time, from model.ts and the files it imports (as the CLI
// takes several files). `grad(f)` calls with `grad` imported from 'tsad' and `f` a function of the app
// with declared parameter types become calls of such generated code (src/plugin/grad.ts). Generated
// code imports only the runtime (`tsad/runtime`): no compiler ships in the app's bundle.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import ts from 'typescript';
import { createUnplugin, type UnpluginContext } from 'unplugin';
import { compile, normalizeModes, type CompileResult, type ModeName } from '../api/compile.js';
import { formatDiagnostic, type Diagnostic } from '../frontend/diagnostics.js';
import { resolveFile, sourceFiles } from './files.js';
import { gradWrapper, rewriteGradCalls } from './grad.js';
import { neededPart } from './needed.js';

export { resolveFile, sourceFiles };

export interface TsadPluginOptions {
  /**
   * Write exact declarations of each `?tsad=` import next to its source (`model.ts.tsad-loss.d.ts`), so
   * that TypeScript types `import { loss_b } from './model.ts?tsad=loss'` exactly (default true).
   */
  dts?: boolean;
  /** rewrite `grad(f)` calls (grad imported from 'tsad') into generated code (default true) */
  grad?: boolean;
  /** module specifier the generated code imports the runtime from (default 'tsad/runtime') */
  runtime?: string;
}

/** a `?tsad=` request: the file and what to compile from it */
export interface TsadRequest {
  file: string;
  query: string;
  head: string;
  modes?: ModeName[];
  wrt?: string[];
  /** `grad=x` / `grads=x,y`: also export `grad`, the gradient with respect to those, alone or as a list */
  grad?: { wrt: string[] | 'default'; list: boolean };
}

const REQUEST = /\?(?:[^#]*&)?tsad=/;
const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/** The request an import or module id names, or null. Throws on a malformed query. */
export function parseRequest(id: string): TsadRequest | null {
  if (!REQUEST.test(id)) return null;
  const q = id.indexOf('?');
  const file = id.slice(0, q);
  const query = id.slice(q + 1);
  const params = new URLSearchParams(query);
  const list = (k: string) => (params.get(k) ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const head = params.get('tsad') ?? '';
  if (!head) throw new Error(`tsad: '${id}' names no function: write ?tsad=<function>`);
  for (const k of params.keys()) if (!['tsad', 'modes', 'wrt', 'grad', 'grads'].includes(k)) throw new Error(`tsad: unknown parameter '${k}' in '${id}' (tsad, modes, wrt)`);
  const req: TsadRequest = { file, query, head };
  if (params.has('modes')) req.modes = normalizeModes(list('modes')) as ModeName[];
  if (params.has('wrt')) req.wrt = list('wrt');
  if (params.has('grad') || params.has('grads')) {
    const g = list(params.has('grads') ? 'grads' : 'grad');
    req.grad = { wrt: g.length ? g : 'default', list: params.has('grads') };
  }
  return req;
}

/** The diagnostics as one build error: the first located (file:line:col, code frame), the others in the text. */
function buildError(ctx: UnpluginContext, diags: Diagnostic[], request: string): void {
  const d = diags.find((x) => x.severity === 'error') ?? diags[0];
  const shown = (x: Diagnostic) => formatDiagnostic({ ...x, file: relative(process.cwd(), x.file) || x.file });
  ctx.error({
    message: `tsad could not differentiate '${request}':\n${diags.filter((x) => x.severity === 'error').map(shown).join('\n\n')}`,
    id: d.file,
    loc: { file: d.file, line: d.line, column: d.col - 1 },
    frame: d.frame,
  } as Parameters<UnpluginContext['error']>[0]);
}

/** Compiles a request: JavaScript and its source map, or TypeScript for declarations. */
export function compileRequest(req: TsadRequest, opts: { js: boolean; runtime: string }): CompileResult & { files: Record<string, string>; wrtGrad?: string[] } {
  // (a grad(f) call's function may be one of the app module calling it: the compiler is given what f needs of it)
  const files = sourceFiles(req.file, req.grad ? (text) => neededPart(text, req.file, req.head) : undefined);
  const base = { head: req.head, js: opts.js, runtimeImport: opts.runtime, sourceMap: opts.js };
  if (req.grad) {
    // the gradient wrapper needs the reverse mode, with respect to what `grad` names (default: the first independent)
    let wrt = req.grad.wrt;
    if (wrt === 'default') {
      const all = compile(files, { ...base, modes: ['reverse'] });
      if (all.diagnostics.some((d) => d.severity === 'error')) return { ...all, files };
      const params = all.manifest.find((m) => m.mode === 'reverse')?.params.filter((p) => p.role === 'primal').map((p) => p.name) ?? [];
      wrt = [all.wrt.includes(params[0]) ? params[0] : all.wrt[0]];
    }
    return { ...withSourceAsWritten(compile(files, { ...base, modes: ['reverse'], wrt }), req.file), files, wrtGrad: wrt };
  }
  return { ...compile(files, { ...base, ...(req.modes ? { modes: req.modes } : {}), ...(req.wrt ? { wrt: req.wrt } : {}) }), files };
}

/** the result with its source map showing `file` as written, not the part of it that was compiled (needed.ts) */
function withSourceAsWritten(r: CompileResult, file: string): CompileResult {
  const at = r.map?.sources.indexOf(file) ?? -1;
  if (!r.map?.sourcesContent || at < 0) return r;
  const sourcesContent = r.map.sourcesContent.map((c, i) => (i === at ? readFileSync(file, 'utf8') : c));
  return { ...r, map: { ...r.map, sourcesContent } };
}

/** The name of a request's declaration file: beside the source, `model.ts.tsad-loss[-modes_reverse…].d.ts`. */
export function declarationFile(req: TsadRequest): string {
  const rest = req.query.replace(/(^|&)tsad=[^&]*/, '').replace(/^&/, '');
  return `${req.file}.tsad-${req.head}${rest ? '-' + rest.replace(/[^\w,.-]+/g, '_') : ''}.d.ts`;
}

/**
 * The exact declarations of a request's module, as an ambient module whose pattern matches the import as
 * written (`./model.ts?tsad=loss`, `../model.ts?tsad=loss`: relative imports start with a dot).
 */
export function declarationText(req: TsadRequest, tsCode: string): string {
  const out = ts.transpileDeclaration(tsCode, { fileName: 'generated.ts', compilerOptions: { strict: true, target: ts.ScriptTarget.ES2022 } });
  const body = out.outputText
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('//'))
    .map((l) => '  ' + l.replace(/^(export )?declare /, '$1'))
    .join('\n');
  const name = req.file.replace(/^.*[\\/]/, '');
  return `// Generated by tsad/plugin from ${name}: the types of import '…/${name}?${req.query}'. Do not edit.\ndeclare module '.*/${name}?${req.query}' {\n${body}\n}\n`;
}

function writeIfChanged(file: string, text: string): void {
  try {
    if (readFileSync(file, 'utf8') === text) return;
  } catch {
    /* new */
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

export const unpluginTsad = createUnplugin<TsadPluginOptions | undefined>((options = {}) => {
  const runtime = options.runtime ?? 'tsad/runtime';
  return {
    name: 'tsad',
    enforce: 'pre',
    resolveId(id, importer) {
      if (!REQUEST.test(id)) return null;
      const q = id.indexOf('?');
      const dir = importer ? dirname(importer.replace(/\?.*$/, '')) : process.cwd();
      const file = resolveFile(id.slice(0, q), dir);
      if (!file) return null; // the bundler reports the missing file
      return `${file}${id.slice(q)}`;
    },
    loadInclude: (id) => REQUEST.test(id),
    load(id) {
      const req = parseRequest(id.replace(/^\0/, ''));
      if (!req) return null;
      const request = `${relative(process.cwd(), req.file) || req.file}?${req.query}`;
      const r = compileRequest(req, { js: true, runtime });
      for (const f of Object.keys(r.files)) this.addWatchFile(f);
      if (r.diagnostics.some((d) => d.severity === 'error')) {
        buildError(this, r.diagnostics, request); // Rollup and Vite throw here; esbuild reports it with the (empty) result
        return { code: '' };
      }
      let code = r.code;
      if (req.grad) code += gradWrapper(r, req.head, r.wrtGrad!, req.grad.list, runtime);
      else if (options.dts !== false) writeIfChanged(declarationFile(req), declarationText(req, compileRequest(req, { js: false, runtime }).code));
      return { code, map: r.map as never };
    },
    transformInclude: (id) => options.grad !== false && SOURCE.test(id) && !/[\\/]node_modules[\\/]/.test(id) && !id.includes('?'),
    transform(code, id) {
      if (!/['"]tsad['"]/.test(code) || !/\bgrad\b/.test(code)) return null;
      const out = rewriteGradCalls(code, id, (w) => this.warn(w));
      return out ? { code: out.code, map: out.map as never } : null;
    },
  };
});

export const vite = unpluginTsad.vite;
export const rollup = unpluginTsad.rollup;
export const esbuild = unpluginTsad.esbuild;
export const rolldown = unpluginTsad.rolldown;
export default unpluginTsad;
