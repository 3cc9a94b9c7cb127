#!/usr/bin/env node
// The `tsad` command: a thin shell over compile() and check().
import { memberHeadName } from '../frontend/classes.js';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sizeParams } from '../analysis/ints.js';
import { checkCompiled, MovedPointError, PIECEWISE_CONSTANT } from '../api/check.js';
import { comparePrimal, loadOriginal } from '../api/original.js';
import { compile, frontEnd, normalizeModes, type Mode } from '../api/compile.js';
import { compileHvp } from '../api/hessian.js';
import { loadGenerated, type LoadedModule } from '../api/load.js';
import { agreesWithDifferences, differenceTangent } from '../api/custom-rules.js';
import { clone, compact, dot, randomLike, rng } from '../api/values.js';
import { generatedOf, hessianAt, independentCount, jacobianAt, ownOrder, packedSweep, tangentColumns } from '../api/sweeps.js';
import { positions, renumbered, sparseAt } from '../api/sparse.js';
import { sparseJacobianAt } from '../api/blocks.js';
import { fromJson, jsonMismatch, readsPastEnd, sizedRandomArgs, typeText } from '../api/shapes.js';
import { formatDiagnostic } from '../frontend/diagnostics.js';
import { formatReport } from '../transform/coarsen/pass.js';
import { playgroundCommand } from './playground.js';
import type { Func, Module, Param } from '../ir/types.js';

const HELP = `tsad — source-to-source automatic differentiation for TypeScript

Usage:
  tsad <files…> --head <function> [--wrt <params>] [--of <outputs>]
       [--mode tangent|vector|reverse|hvp] [-o <dir>] [--js] [--check [--input <file.json | json>] [--stats]]
       [--jacobian | --hessian] [--sparse] [--input <file.json | json>]
  tsad playground [--port N]      serve the browser playground (derivatives as you type) on localhost
  tsad --version

Examples:
  tsad model.ts --head loss
      tangent (loss_d), vector tangent (loss_dv) and adjoint (loss_b) of loss, printed to stdout
  tsad model.ts helpers.ts --head loss --wrt weights,bias --mode reverse -o gen/
      only the gradient with respect to weights and bias, written to gen/model_ad.ts
  tsad model.ts --head loss --mode hvp
      second derivatives: loss_grad (the gradient), loss_grad_d (gradient and Hessian-vector
      product H·v) and loss_grad_dv (H·V for several directions: Hessian columns)
  tsad sim.ts --head step --of state --mode tangent
      derivatives of the output array parameter 'state' (for functions that write their result)
  tsad model.ts --head loss --check --input point.json
      differentiate, then validate every mode at the arguments in point.json (a JSON array, or an
      object keyed by parameter name): tangent vs divided differences, adjoint vs tangent by the
      dot-product test, empty tape, and (one self-contained file) the compiled copy of the function
      against the source as written. Without --input the arguments are drawn at random.
  tsad model.ts --head loss --check --stats
      the same, and the adjoint's tape: pushes per stack, peak bytes, traffic (Tapenade's columns)
  tsad model.ts --head residuals --jacobian --input point.json
      the Jacobian at that point, printed as JSON rows (J[i][j] = d output_i / d input_j over the
      floats of the result and of the independents); --mode reverse or tangent picks the mode
  tsad model.ts --head loss --hessian --input point.json
      the dense Hessian of a scalar function at that point (forward over reverse), as JSON rows
  tsad model.ts --head loss --hessian --sparse --input point.json
      the Hessian in coordinates, { shape, rows, cols, values } (both triangles, sorted by row):
      pattern detected by NaN-seeded sweeps, star colouring, one compressed sweep; --jacobian
      --sparse likewise (column colouring); the times of the three steps on stderr

Options:
  --head <f>        function to differentiate (required)
  --wrt <a,b>       independents (default: every parameter carrying numbers, except number
                    parameters used only as sizes or indices, like n in det(A, n))
  --of <a,b>        dependents: 'return' and/or output array/object parameters (default: return)
  --mode <m,…>      tangent (or forward), vector, reverse (or adjoint) (default: all three);
                    or hvp alone: the gradient and its tangent, forward over reverse
  -o, --out <dir>   write <first-file>_ad.ts (or .js) into that directory (made if missing; an
                    existing file of that name in it is overwritten) instead of printing
  --js              emit JavaScript instead of TypeScript
  --runtime <spec>  module the generated code imports the runtime from (default: tsad/runtime)
  --sparse-vector   vector mode in its sparse form: each value's directions, an interval, are
                    the only ones its loops run over (compile()'s sparseVector)
  --coarsen         differentiate whole functions, or segments of them, by their closed forms
                    (branches and loops through φ-calculus); the segments chosen go to stderr;
                    --coarsen=no-phi: straight-line segments only (the ablation)
  --check           validate the derivatives (see above); exits 1 if a check fails
  --input <json>    arguments for --check: a JSON file, or the JSON itself
  --stats           with --check: the adjoint's tape pushes per stack, peak and traffic in bytes
  --jacobian        print the Jacobian at --input (or at random arguments) as JSON rows
  --hessian         print the Hessian of a scalar function at --input (or random arguments)
  --sparse          with --jacobian or --hessian: in coordinates, by compressed sweeps
  -h, --help        this text
  -v, --version     the version of tsad

Every --option value can also be written --option=value. Input files are TypeScript; a .js file is
read as TypeScript too (its parameters need type annotations).

Exit status: 0 on success, 1 on diagnostics or failed checks (and for tsad without arguments, which
prints this text), 2 on bad usage.`;

interface Args {
  files: string[];
  head?: string;
  wrt?: string[];
  of?: string[];
  modes?: Mode[];
  /** --mode hvp: second derivatives (api/hessian.ts) */
  hvp?: boolean;
  out?: string;
  js: boolean;
  runtime?: string;
  check: boolean;
  stats?: boolean;
  input?: string;
  /** --jacobian / --hessian: print the matrix at the --input point */
  matrix?: 'jacobian' | 'hessian';
  /** --sparse: the matrix in coordinates, by compressed sweeps (api/sparse.ts) */
  sparse?: boolean;
  /** --coarsen[=no-phi] (src/transform/coarsen) */
  coarsen?: true | { noPhi: true };
  /** --sparse-vector (src/transform/sparse-vector.ts) */
  sparseVector?: boolean;
}

function usage(msg: string): never {
  process.stderr.write(`tsad: ${msg}\nRun 'tsad --help' for usage.\n`);
  process.exit(2);
}

/** the options that take a value, and what each sets */
const VALUED = new Set(['--head', '--wrt', '--of', '--mode', '-o', '--out', '--runtime', '--input']);

/** A comma-separated list of names; an empty one is a usage error (it would differentiate nothing). */
function nameList(opt: string, v: string): string[] {
  const names = v.split(',').map((x) => x.trim()).filter(Boolean);
  if (!names.length) usage(`${opt} needs at least one parameter name (e.g. ${opt} x,y); leave ${opt} out for the default`);
  return names;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { files: [], js: false, check: false };
  for (let i = 0; i < argv.length; i++) {
    let x = argv[i];
    // --opt=value is --opt value
    let inline: string | undefined;
    const eq = x.startsWith('--') ? x.indexOf('=') : -1;
    if (eq > 0) {
      inline = x.slice(eq + 1);
      x = x.slice(0, eq);
      if (!VALUED.has(x) && (x === '--help' || x === '--version' || x === '--js' || x === '--check' || x === '--stats' || x === '--jacobian' || x === '--hessian' || x === '--sparse' || x === '--sparse-vector')) usage(`${x} takes no value`);
    }
    const val = () => {
      if (inline !== undefined) return inline;
      const v = argv[++i];
      if (v === undefined) usage(`${x} needs a value`);
      return v;
    };
    switch (x) {
      case '-h':
      case '--help':
        process.stdout.write(HELP + '\n');
        process.exit(0);
        break;
      case '-v':
      case '--version':
        process.stdout.write(`tsad ${version()}\n`);
        process.exit(0);
        break;
      case '--head':
        a.head = val();
        break;
      case '--wrt':
        a.wrt = nameList('--wrt', val());
        break;
      case '--of':
        a.of = nameList('--of', val());
        break;
      case '--mode': {
        const list = val().split(',').map((m) => m.trim());
        if (list.includes('hvp')) {
          if (list.some((m) => m !== 'hvp')) usage(`--mode hvp is compiled on its own (its module holds the gradient too), not with ${list.filter((m) => m !== 'hvp').join(', ')}`);
          a.hvp = true;
          break;
        }
        try {
          a.modes = normalizeModes(list);
        } catch (e) {
          usage(`${(e as Error).message.replace(/^tsad: /, '')}`);
        }
        break;
      }
      case '-o':
      case '--out':
        a.out = val();
        break;
      case '--js':
        a.js = true;
        break;
      case '--runtime':
        a.runtime = val();
        break;
      case '--check':
        a.check = true;
        break;
      case '--stats':
        a.stats = true;
        break;
      case '--input':
        a.input = val();
        break;
      case '--sparse':
        a.sparse = true;
        break;
      case '--sparse-vector':
        a.sparseVector = true;
        break;
      case '--coarsen':
        if (inline !== undefined && inline !== 'no-phi') usage(`--coarsen takes no value, or 'no-phi' (the ablation without φ-calculus), not '${inline}'`);
        a.coarsen = inline === 'no-phi' ? { noPhi: true } : true;
        break;
      case '--jacobian':
      case '--hessian':
        if (a.matrix && a.matrix !== x.slice(2)) usage('--jacobian and --hessian print one matrix each: give one of them');
        a.matrix = x.slice(2) as 'jacobian' | 'hessian';
        break;
      default:
        if (x.startsWith('-')) usage(`unknown option '${argv[i]}'`);
        a.files.push(x);
    }
  }
  return a;
}

/** tsad's version, from the package.json next to the built code (dist/src/cli → the package root) */
function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '(version unknown: package.json not found)';
  }
}

/** an error that is not bad usage: the message, exit status 1 */
function fail(msg: string): never {
  process.stderr.write(`tsad: ${msg}\n`);
  process.exit(1);
}

/** -o names a directory: made if missing; an existing file there is a usage error */
function outputDir(dir: string): void {
  let isDir: boolean | undefined;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // missing: made below
  }
  if (isDir === false) usage(`-o '${dir}' is an existing file, not a directory; -o names the directory to write the generated file into (e.g. -o gen/)`);
  if (isDir) return;
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    fail(`cannot create the -o directory '${dir}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function main(): void {
  const argv = process.argv.slice(2);
  if (argv[0] === 'playground') return playgroundCommand(argv.slice(1));
  if (!argv.length) {
    process.stdout.write(HELP + '\n');
    process.exit(1);
  }
  const args = parseArgs(argv);
  if (!args.files.length) usage('no input files');
  if (!args.head) usage('--head <function> is required');
  const files: Record<string, string> = {};
  for (const f of args.files) {
    try {
      files[f] = readFileSync(f, 'utf8');
    } catch (e) {
      usage(`cannot read '${f}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  if (args.hvp && args.of) usage('--of does not apply to --mode hvp: second derivatives are of the scalar result');
  if (args.sparse && !args.matrix) usage('--sparse goes with --jacobian or --hessian (the matrix it prints in coordinates)');
  if (args.sparseVector && (args.hvp || (args.modes && !args.modes.includes('vector')))) usage(`--sparse-vector is a form of the vector mode, which ${args.hvp ? '--mode hvp' : `--mode ${args.modes!.join(',')}`} does not generate: add vector to --mode, or leave out --sparse-vector`);
  if (args.sparse && args.modes?.every((m) => m === 'reverse')) usage('--jacobian --sparse compresses columns, by the tangent or vector mode: leave out --mode reverse');
  if (args.matrix) {
    if (args.check || args.out || args.hvp) usage(`--${args.matrix} prints a matrix: it does not combine with ${args.check ? '--check' : args.out ? '-o' : '--mode hvp'}`);
    if (args.matrix === 'hessian' && (args.modes || args.of)) usage(`--hessian is forward over reverse, of the scalar result: it takes no ${args.modes ? '--mode' : '--of'}`);
    process.exit(printMatrix(files, args));
  }
  const r = args.hvp
    ? compileHvp(files, { head: args.head, wrt: args.wrt, js: args.js, runtimeImport: args.runtime })
    : compile(files, { head: args.head, wrt: args.wrt, of: args.of, modes: args.modes, js: args.js, runtimeImport: args.runtime, coarsen: args.coarsen, sparseVector: args.sparseVector });
  if (r.diagnostics.length) {
    process.stderr.write(r.diagnostics.map(formatDiagnostic).join('\n\n') + '\n');
    process.exit(1);
  }
  if ('coarsening' in r && r.coarsening) process.stderr.write(formatReport(r.coarsening) + '\n');
  if (args.out) {
    outputDir(args.out);
    const name = join(args.out, basename(args.files[0]).replace(/\.[jt]s$/, '') + (args.js ? '_ad.js' : '_ad.ts'));
    try {
      writeFileSync(name, r.code);
    } catch (e) {
      fail(`cannot write '${name}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    process.stderr.write(`tsad: wrote ${name}\n`);
  } else if (!args.check) process.stdout.write(r.code);
  if (args.check) process.exit(runCheck(files, args) ? 0 : 1);
}

/** what a Jacobian's rows are of: the result and the `--of` arrays, in order */
function rowsText(of: readonly string[]): string {
  return of.map((o) => (o === 'return' ? 'the result' : `the floats of ${o}`)).join(', then ');
}

/**
 * --jacobian / --hessian: the matrix at the --input point (random arguments sized as the primal reads
 * them without one), as JSON rows on stdout; what it is of, on stderr. Returns the exit status.
 */
function printMatrix(files: Record<string, string>, args: Args): number {
  const hessian = args.matrix === 'hessian';
  const r = hessian
    ? compileHvp(files, { head: args.head!, wrt: args.wrt, js: true, runtimeImport: null })
    : compile(files, { head: args.head!, wrt: args.wrt, of: args.of, modes: args.modes, js: true, runtimeImport: null, coarsen: args.coarsen });
  if (r.diagnostics.length) {
    process.stderr.write(r.diagnostics.map(formatDiagnostic).join('\n\n') + '\n');
    return 1;
  }
  const mod = frontEnd(files);
  const headName = memberHeadName(args.head!, (n) => mod.funcs.has(n));
  const head = mod.funcs.get(headName)!;
  const loaded = loadGenerated(r.code, r.runtimeNames);
  const primal = primalModule(files, args, loaded, hessian);
  const values = pointFor(args, mod, head, primal, 1);
  const params = head.params.map((p) => p.name);
  const names = hessian
    ? { primal: `${headName}_grad`, tangent: `${headName}_grad_d`, vector: `${headName}_grad_dv` }
    : { primal: headName, tangent: `${headName}_d`, vector: `${headName}_dv`, adjoint: `${headName}_b` };
  const g = generatedOf(r.manifest, r.wrt, loaded, params, values, names, hessian ? undefined : r.of);
  const modes = args.modes ?? [];
  const how = modes.length && modes.every((m) => m === 'reverse') ? 'reverse' : modes.length && !modes.includes('reverse') ? 'forward' : 'auto';
  const n = independentCount(g, values);
  const point = head.params.map((p, j) => `${p.source ?? p.name} = ${compact(values[j])}`).join(', ');
  if (args.sparse) {
    // (a Jacobian by blocks where the head's loops run over independent items, else by colouring: api/blocks.ts)
    const { matrix: S, notBlocks } = hessian ? { ...sparseAt('hessian', packedSweep(g, values), n, n, undefined), notBlocks: undefined } : sparseJacobianAt(files, g, params, r.of, values);
    const cols = positions(ownOrder(g.wrt.map((i) => values[i])));
    // (rows: a Jacobian's outputs in the order of their own keys, as the dense --jacobian gives them)
    const outputs = () => [...(r.of.includes('return') ? [(loaded[headName] as (...a: unknown[]) => unknown)(...clone(values))] : []), ...r.of.filter((o) => o !== 'return').map((o) => values[params.indexOf(o)])];
    const M = renumbered(S, hessian ? cols : positions(ownOrder(outputs())), cols);
    const i = M.info;
    const how = i.method === 'blocks' ? `by blocks: ${i.blocks} dense blocks, one an iteration; pattern ${i.patternMs.toFixed(1)} ms, evaluation ${i.evaluationMs.toFixed(1)} ms` : `${i.colours} colours; pattern ${i.patternMs.toFixed(1)} ms in ${i.detectionSweeps} sweeps, colouring ${i.colouringMs.toFixed(1)} ms, evaluation ${i.evaluationMs.toFixed(1)} ms`;
    process.stderr.write(`tsad: the sparse ${hessian ? 'Hessian' : 'Jacobian'} of '${headName}' at ${point} (${M.shape[0]} × ${M.shape[1]}, ${i.nnz} entries, ${how})\n`);
    if (notBlocks) process.stderr.write(`tsad: by colouring, not by blocks: ${notBlocks}\n`);
    process.stdout.write(JSON.stringify({ shape: M.shape, rows: Array.from(M.rows), cols: Array.from(M.cols), values: Array.from(M.values) }) + '\n');
    return 0;
  }
  const M = hessian ? hessianAt(g, values, (js) => tangentColumns(g, values, js)) : jacobianAt(g, values, how);
  process.stderr.write(`tsad: the ${hessian ? 'Hessian' : 'Jacobian'} of '${headName}' at ${point} (${M.length} × ${n}; rows: ${hessian ? 'as the columns' : rowsText(r.of)}; columns: the floats of ${r.wrt.join(', ')} in order${r.wrt.some((w) => hasObject(values[params.indexOf(w)])) ? ", an object's fields in the order of the input" : ''})\n`);
  process.stdout.write('[\n' + M.map((row) => '  ' + JSON.stringify(row)).join(',\n') + '\n]\n');
  return 0;
}

/**
 * The arguments to evaluate at: the --input point (its arrays long enough for what the primal reads, else
 * a usage error), or random ones, size parameters an integer and arrays the lengths the primal reads.
 */
function pointFor(args: Args, mod: Module, head: Func, primal: LoadedModule, seed: number): unknown[] {
  const run = (a: unknown[]) => primal[head.name](...a);
  if (args.input) {
    const values = inputArgs(args.input, head);
    checkLengths(args.input, head, values, run);
    return values;
  }
  const sizes = sizeParams(mod, head.name);
  return sizedRandomArgs(head.params.map((p) => p.ty), seed, new Set(head.params.flatMap((p, j) => (sizes.has(p.name) ? [j] : []))), run);
}

/**
 * The module holding the head's primal, which sizes random arguments and checks --input lengths: the
 * compile's own, or for second derivatives (whose module holds the gradient's sweeps only) one compiled for it.
 */
function primalModule(files: Record<string, string>, args: Args, loaded: LoadedModule, second: boolean): LoadedModule {
  return second ? loadGenerated(compile(files, { head: args.head!, wrt: args.wrt, modes: ['tangent'], js: true, runtimeImport: null }).code) : loaded;
}

/** the modes --check compiles: the vector mode is checked against the scalar tangent, which comes with it */
function checkedModes(modes: Mode[] | undefined): Mode[] | undefined {
  return modes && modes.includes('vector') && !modes.includes('tangent') ? ['tangent', ...modes] : modes;
}

/** the --input JSON: written inline (`--input '[1, [2, 3]]'`) or a file's; a missing or malformed file is a usage error */
function readInput(path: string): unknown {
  if (/^\s*[[{]/.test(path)) {
    try {
      return JSON.parse(path) as unknown;
    } catch (e) {
      usage(`--input '${path}' is not valid JSON: ${(e as Error).message}`);
    }
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    usage(`cannot read --input file '${path}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    usage(`--input file '${path}' is not valid JSON: ${(e as Error).message}`);
  }
}

/** The --input point as arguments of `head`: every parameter given, each of its type (else a usage error). */
function inputArgs(path: string, head: Func): unknown[] {
  const data = readInput(path);
  const sig = head.params.map((p) => (p.optional && p.ty.k === 'opt' ? `${p.source ?? p.name}?: ${typeText(p.ty.base)}` : `${p.source ?? p.name}: ${typeText(p.ty)}`)).join(', ');
  // trailing parameters with defaults or `?` may be left out
  let required = head.params.length;
  while (required > 0 && (head.params[required - 1].def || head.params[required - 1].optional)) required--;
  let values: unknown[];
  if (Array.isArray(data)) {
    if (data.length < required || data.length > head.params.length) {
      const want = required === head.params.length ? `${required}` : `${required} to ${head.params.length}`;
      usage(`--input '${path}' gives ${data.length} argument${data.length === 1 ? '' : 's'}, but '${head.name}' takes ${want}: ${head.name}(${sig})`);
    }
    values = data;
  } else if (typeof data === 'object' && data !== null) {
    const o = data as Record<string, unknown>;
    // (by the source's names: a parameter generated code renames, `x` beside a module constant `x`, too)
    const named = (p: Param) => p.source ?? p.name;
    for (const k of Object.keys(o))
      if (!head.params.some((p) => named(p) === k)) usage(`--input '${path}' names '${k}', which is not a parameter of '${head.name}': ${head.name}(${sig})`);
    for (const p of head.params) if (!(named(p) in o) && !p.def && !p.optional) usage(`--input '${path}' gives no value for parameter '${named(p)}' (${typeText(p.ty)}): ${head.name}(${sig})`);
    values = head.params.map((p) => o[named(p)]);
    while (values.length && values[values.length - 1] === undefined) values.pop();
  } else usage(`--input '${path}' must hold a JSON array of the arguments or an object keyed by parameter name, not ${JSON.stringify(data)}`);
  return values.map((v, j) => {
    const p = head.params[j];
    if (v === undefined && (p.def || p.optional)) return undefined;
    const m = jsonMismatch(v, p.ty, p.name);
    if (m) usage(`--input '${path}': ${m.startsWith(`'${p.name}' `) ? 'parameter ' : ''}${m}`);
    return fromJson(v, p.ty);
  });
}

/** An --input point whose arrays are shorter than what the function reads is a usage error (it would give NaN). */
function checkLengths(path: string, head: Func, values: unknown[], run: (a: unknown[]) => unknown): void {
  for (const [place, n] of readsPastEnd(values, run)) {
    const j = Number(/^\d+/.exec(place)![0]);
    const access = `${head.params[j].name}${place.slice(String(j).length).replace(/\[\]/g, '[…]')}[${n - 1}]`;
    usage(`--input '${path}': '${head.name}' reads ${access}, past the end of the array given; make it at least ${n} long`);
  }
}

/**
 * gᵀv from the generated `<head>_grad` against the central difference of the head along a random v
 * (null near a kink: the differences disagree between step sizes).
 */
function gradientCheck(loaded: LoadedModule, primal: LoadedModule, head: string, wrt: number[], values: unknown[]): { left: number; right: number; ok: boolean } | null {
  const R = rng(0x7ad5e4f);
  // (an optional parameter left out at the point has no direction: its gradient entry is not compared)
  const present = wrt.map((i) => values[i] !== undefined && values[i] !== null);
  const moved = wrt.filter((_, k) => present[k]);
  const dirs = moved.map((i) => randomLike(values[i], R));
  const dd = differenceTangent(primal[head] as (...a: unknown[]) => unknown, values, moved, dirs);
  if (!dd) return null;
  const g = (loaded[`${head}_grad`] as (...a: unknown[]) => unknown)(...clone(values));
  const grads = (wrt.length === 1 ? [g] : (g as unknown[])).filter((_, k) => present[k]);
  const left = grads.reduce<number>((s, gi, k) => s + dot(gi, dirs[k]), 0);
  const right = dd[1][0];
  return { left, right, ok: agreesWithDifferences([left], [right]) };
}

/** does the compiled primal run to a result whose numbers are all finite at these arguments? (a throw is the check's own case) */
function finiteAt(primal: Record<string, unknown>, head: string, values: unknown[]): boolean {
  const f = primal[head] as ((...a: unknown[]) => unknown) | undefined;
  if (!f) return true;
  let out: unknown;
  try {
    const a = clone(values);
    out = [f(...a), a];
  } catch {
    return true;
  }
  const finite = (v: unknown): boolean => (typeof v === 'number' ? Number.isFinite(v) : v instanceof Float64Array ? v.every(Number.isFinite) : Array.isArray(v) ? v.every(finite) : v && typeof v === 'object' ? Object.values(v).every(finite) : true);
  return finite(out);
}

function runCheck(files: Record<string, string>, args: Args): boolean {
  // (the modes asked for: a hand-written rule alone gives some modes only)
  const r = args.hvp
    ? compileHvp(files, { head: args.head!, wrt: args.wrt, js: true, runtimeImport: null })
    : compile(files, { head: args.head!, wrt: args.wrt, of: args.of, modes: checkedModes(args.modes), js: true, runtimeImport: null, coarsen: args.coarsen, sparseVector: args.sparseVector });
  const mod = frontEnd(files);
  // a black box (`declare function`) has no body to run here: say so instead of failing inside the check
  const boxes = [...mod.funcs.values()].filter((f) => f.external && new RegExp(`\\b${f.name}\\(`).test(r.code)).map((f) => f.name);
  if (boxes.length) {
    process.stderr.write(`tsad: --check cannot run ${boxes.map((b) => `'${b}'`).join(', ')}, declared without a body (a black box)
  hint: check a file that defines it (its rules are checked with it), or call checkCompiled after binding it: loadGenerated(…).__bindScope({ ${boxes.join(', ')} })
`);
    return false;
  }
  const headName = memberHeadName(args.head!, (n) => mod.funcs.has(n)); // `Class.method` (src/frontend/classes.ts)
  const head = mod.funcs.get(headName)!;
  const loaded = loadGenerated(r.code, r.runtimeNames);
  const primal = primalModule(files, args, loaded, !!args.hvp);
  // second derivatives are the tangent of the gradient function
  const checked = args.hvp ? `${headName}_grad` : headName;
  let values: unknown[];
  let rep: ReturnType<typeof checkCompiled>;
  // a point where the divided differences disagree between step sizes cannot judge the tangent
  // (with no tangent mode the adjoint is compared with the differences themselves: unstable, with nothing)
  const inconclusive = (x: typeof rep) => x.ok && x.unstable && (x.tangentError > 1e-6 || !x.judged);
  // near a kink, another random point (an --input point is the one point)
  let seed = 1;
  // the function as written, where one self-contained file holds it (compared with the compiled copy below)
  const sources = Object.values(files);
  const asWrittenModule = sources.length === 1 ? loadOriginal(sources[0]) : null;
  try {
    // (a random point where the function itself is not finite, fractional indices drawn for an index
    // array or a logarithm of a negative, judges nothing: other points are drawn, and if none serves the
    // check says so instead of failing; judged by the source as written: a compiled copy that is not
    // finite where the source is stays a failure, found below)
    const judge = asWrittenModule ?? primal;
    values = pointFor(args, mod, head, primal, seed);
    while (!args.input && !finiteAt(judge, headName, values) && seed < 5) values = pointFor(args, mod, head, primal, ++seed);
    if (!args.input && !finiteAt(judge, headName, values)) {
      process.stdout.write(`check INCONCLUSIVE: '${headName}' itself is not finite at ${seed} random points (the last: ${head.params.map((p, j) => `${p.name} = ${compact(values[j])}`).join(', ')}): it needs particular values (indices, sizes, a domain)\n`);
      process.stdout.write('hint: check at a point of yours with --input point.json (a JSON array of the arguments, or an object keyed by parameter name)\n');
      return false;
    }
    // (nor does an --input point where it is NaN or infinite, a row read past its end: said so, not
    // failed with an error of Infinity)
    if (args.input && !finiteAt(judge, headName, values)) {
      process.stdout.write(`check INCONCLUSIVE: '${headName}' itself is not finite (NaN or ±Infinity) at the --input point (${head.params.map((p, j) => `${p.source ?? p.name} = ${compact(values[j])}`).join(', ')}): there is no derivative to compare there (an index past an array's end, a value outside its domain?)\n`);
      process.stdout.write('hint: give a point where it is finite with --input\n');
      return false;
    }
    rep = checkCompiled(r, loaded, checked, values);
    while (!args.input && inconclusive(rep) && ++seed <= 5) {
      values = pointFor(args, mod, head, primal, seed);
      rep = checkCompiled(r, loaded, checked, values);
    }
  } catch (e) {
    // the function itself throwing at the point (a random length that is not a whole number) is the
    // point's problem; the derivative code throwing where the function does not is tsad's
    const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    if (e instanceof MovedPointError) {
      process.stderr.write(`tsad: --check: ${e.message}\nhint: leave such numbers out of the independents with --wrt, or check at another point with --input\n`);
      return false;
    }
    let primalThrows = false;
    try {
      (primal[headName] as (...a: unknown[]) => unknown)?.(...pointFor(args, mod, head, primal, seed));
    } catch {
      primalThrows = true;
    }
    process.stderr.write(
      primalThrows || !primal[headName]
        ? `tsad: --check: '${headName}' throws at the ${args.input ? '--input' : 'random'} point (${what})\nhint: give a point where it runs with --input '[…]' (one JSON value per parameter)\n`
        : `tsad: --check: the derivative code of '${headName}' throws where '${headName}' does not (${what}): this is a bug in tsad; please report it with the source\n`,
    );
    return false;
  }
  const line = (k: string, v: string) => process.stdout.write(`${k.padEnd(34)} ${v}\n`);
  // --mode hvp checks the gradient too: what its tangent is compared with is the gradient itself
  if (args.hvp) {
    const g = gradientCheck(loaded, primal, head.name, r.wrt.map((w) => head.params.findIndex((p) => p.name === w)), values);
    if (g) {
      line('gradient vs divided differences', `${g.left} vs ${g.right}`);
      if (!g.ok) rep = { ...rep, ok: false, messages: [...rep.messages, `the gradient disagrees with divided differences of '${head.name}' along a random direction (${g.left} vs ${g.right})`] };
    }
  }
  // the compiled copy of the function against the function as written (one self-contained file)
  const original = !args.hvp ? asWrittenModule : null;
  const asWritten = original && typeof original[headName] === 'function' && typeof primal[headName] === 'function' ? comparePrimal(original[headName] as (...a: unknown[]) => unknown, primal[headName], values) : null;
  if (asWritten) {
    line('primal copy vs the source', asWritten.same ? 'same' : `differs: ${compact(asWritten.copy.result)} vs ${compact(asWritten.original.result)}`);
    if (!asWritten.same) rep = { ...rep, ok: false, messages: [...rep.messages, `the compiled copy of '${headName}' computes another value than the source at this point (${compact(asWritten.copy)} vs ${compact(asWritten.original)}): this is a bug in tsad; please report it with the source`] };
  }
  // (without a tangent mode, --mode reverse, the adjoint is compared with the divided differences themselves)
  const has = (mode: string) => r.manifest.some((m) => m.of === checked && m.mode === mode);
  const tangent = has('tangent');
  if (rep.heldStill) line('held still (no direction)', `${rep.heldStill} whole numbers among the independents: '${headName}' throws when they move (indices, counts)`);
  if (tangent && (rep.notFinite.tangent || rep.notFinite.differences)) line(args.hvp ? 'H·v vs differences of the gradient' : 'tangent vs divided differences', `not finite: ${rep.notFinite.tangent ? 'the tangent' : ''}${rep.notFinite.tangent && rep.notFinite.differences ? ' and ' : ''}${rep.notFinite.differences ? 'the divided differences' : ''}`);
  else if (tangent) line(args.hvp ? 'H·v vs differences of the gradient' : 'tangent vs divided differences', `error ${rep.tangentError.toExponential(2)}  accuracy ${rep.accuracy.tangent.toFixed(1)} digits${rep.unstable ? '  (near a kink: steps disagree)' : ''}`);
  // (--mode hvp and a tangent-only rule generate no adjoint to compare)
  // (shown also where its dot product is not finite: that is a result, not a missing adjoint)
  const adjoint = Number.isFinite(rep.dotLeft) || r.manifest.some((m) => m.of === checked && m.mode === 'forward');
  if (adjoint) line(tangent ? 'adjoint vs tangent (dot product)' : 'adjoint vs divided differences (dot product)', `${rep.dotLeft} vs ${rep.dotRight}  accuracy ${rep.accuracy.dot.toFixed(1)} digits${!tangent && rep.unstable ? '  (near a kink: steps disagree)' : ''}`);
  if (has('vector')) line('vector vs scalar tangents', `error ${rep.vectorError.toExponential(2)}`);
  if (adjoint) line('tape empty after adjoint', String(rep.tapeEmpty));
  if (args.stats && rep.tape) {
    const t = rep.tape;
    line('tape pushes (floats/ints/refs)', `${t.pushes.floats} / ${t.pushes.ints} / ${t.pushes.refs}`);
    line('tape peak', `${t.peakBytes} bytes`);
    line('tape traffic (pushes + pops)', `${t.trafficBytes} bytes`);
  }
  // the function not finite within a step of the point (its divided differences NaN or ±Infinity)
  // judges no tangent, nor an adjoint compared with those differences or with a tangent that is not
  // finite either: with nothing else failing that is what is said, not FAILED with an error of Infinity
  const unjudged = (m: string) =>
    rep.notFinite.differences && (/^(tangent differs from divided differences|adjoint against divided differences)/.test(m) || m === PIECEWISE_CONSTANT || (rep.notFinite.tangent && /^(dot-product test|vector tangent differs)/.test(m)));
  if (!rep.ok && rep.notFinite.differences && rep.messages.every(unjudged)) {
    const point = head.params.map((p, j) => `${p.source ?? p.name} = ${compact(values[j])}`).join(', ');
    process.stdout.write(`check INCONCLUSIVE: '${headName}' is not finite within a step of ${args.input ? 'the --input point' : 'the random point'} (${point}): its divided differences are NaN or ±Infinity (an index past an array's end, the edge of its domain?)${rep.notFinite.tangent ? ', and so is the tangent' : ''}; the derivative was not compared\n`);
    process.stdout.write(`hint: ${args.input ? 'give' : 'check at'} a point of yours where it is finite nearby with --input\n`);
    return false;
  }
  for (const m of rep.messages) process.stdout.write(`FAIL: ${m}\n`);
  if (inconclusive(rep)) {
    const point = head.params.map((p, j) => `${p.source ?? p.name} = ${compact(values[j])}`).join(', ');
    process.stdout.write(`check INCONCLUSIVE: the divided differences disagree between step sizes at ${args.input ? 'the --input point' : 'five random points'} (${point}): a kink, a branch switch or a jump, or integers used as independents; ${rep.judged ? 'the tangent was not compared (the adjoint agrees with it)' : 'the adjoint was not compared (without a tangent mode it is compared with these differences)'}\n`);
    process.stdout.write(`hint: ${args.input ? 'try another --input point' : 'check at a point of yours with --input'}, and leave integer parameters (counts, indices, flags) out of the independents with --wrt\n`);
    return false;
  }
  process.stdout.write(rep.ok ? 'check passed\n' : 'check FAILED\n');
  if (!rep.ok) {
    const point = head.params.map((p, j) => `${p.source ?? p.name} = ${compact(values[j])}`).join(', ');
    process.stdout.write(`at ${args.input ? `the --input point` : 'random arguments'}: ${point}  (independents: ${r.wrt.join(', ')})\n`);
    // (the tangent agrees with the divided differences there, so the point is not a kink: the adjoint is wrong)
    const adjointWrong = !rep.unstable && rep.tangentError <= 1e-6 && !(rep.dotError <= 1e-8) && rep.vectorError <= 1e-12;
    const rules = handWrittenAdjoints(sources);
    process.stdout.write(
      adjointWrong && rules.length
        ? `not a property of the point: the tangent agrees with the divided differences and the adjoint disagrees with the tangent; check the hand-written adjoint rule${rules.length > 1 ? 's' : ''} ${rules.map((n) => `'${n}'`).join(', ')} first (its result against divided differences of its function); if ${rules.length > 1 ? 'they are' : 'it is'} right, this is a bug in tsad: please report it with this file, the command and the point above\n`
        : adjointWrong
        ? `this is a bug in tsad, not a property of the point: the tangent agrees with the divided differences and the adjoint disagrees with the tangent; please report it with this file, the command and the point above\n`
        : args.input
        ? `hint: a point where the function is not smooth (a kink, a branch switch) or outside its domain fails too: try another --input point; to leave parameters out, name the independents with --wrt\n`
        : `hint: if the function needs particular values (a domain, sizes, indices), check at a point of yours with --input point.json (a JSON array of the arguments, or an object keyed by parameter name); to leave parameters out, name the independents with --wrt\n`,
    );
  }
  return rep.ok;
}

main();

/**
 * the hand-written adjoint rules of the sources: `// $ad custom-derivative … adjoint=A` and exported
 * companions `f_vjp` of a function `f` (a wrong rule makes the adjoint disagree, not tsad)
 */
function handWrittenAdjoints(sources: string[]): string[] {
  const out = new Set<string>();
  for (const text of sources) {
    for (const m of text.matchAll(/\$ad custom-derivative\b[^\n]*\badjoint=([\w$]+)/g)) out.add(m[1]);
    for (const m of text.matchAll(/export\s+function\s+([\w$]+)_vjp\b/g)) if (new RegExp(`function\\s+${m[1].replace(/\$/g, '\\$')}\\s*\\(`).test(text)) out.add(`${m[1]}_vjp`);
  }
  return [...out];
}

/** does a value hold an object (fields, not an array) at some depth? */
function hasObject(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(hasObject);
  return typeof v === 'object' && v !== null && !ArrayBuffer.isView(v);
}
