#!/usr/bin/env node
// The `tsad` command: a thin shell over compile() and check().
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { checkCompiled } from '../api/check.js';
import { compile, frontEnd, type Mode } from '../api/compile.js';
import { randomArgs } from '../api/shapes.js';
import { formatDiagnostic } from '../frontend/diagnostics.js';

const HELP = `tsad — source-to-source automatic differentiation for TypeScript

Usage:
  tsad <files…> --head <function> [--wrt <params>] [--of <outputs>]
       [--mode tangent|vector|reverse] [-o <dir>] [--js] [--check [--input <file.json>] [--stats]]

Examples:
  tsad model.ts --head loss
      tangent (loss_d), vector tangent (loss_dv) and adjoint (loss_b) of loss, printed to stdout
  tsad model.ts helpers.ts --head loss --wrt weights,bias --mode reverse -o gen/
      only the gradient with respect to weights and bias, written to gen/model_ad.ts
  tsad sim.ts --head step --of state --mode tangent
      derivatives of the output array parameter 'state' (for functions that write their result)
  tsad model.ts --head loss --check --input point.json
      differentiate, then validate every mode at the arguments in point.json (a JSON array, or an
      object keyed by parameter name): tangent vs divided differences, adjoint vs tangent by the
      dot-product test, empty tape. Without --input the arguments are drawn at random.
  tsad model.ts --head loss --check --stats
      the same, and the adjoint's tape: pushes per stack, peak bytes, traffic (Tapenade's columns)

Options:
  --head <f>        function to differentiate (required)
  --wrt <a,b>       independents (default: every parameter carrying numbers)
  --of <a,b>        dependents: 'return' and/or output array/object parameters (default: return)
  --mode <m,…>      tangent, vector, reverse (default: all three)
  -o, --out <dir>   write <first-file>_ad.ts (or .js) there instead of printing
  --js              emit JavaScript instead of TypeScript
  --runtime <spec>  module the generated code imports the runtime from (default: tsad/runtime)
  --check           validate the derivatives (see above); exits 1 if a check fails
  --input <file>    arguments for --check
  --stats           with --check: the adjoint's tape pushes per stack, peak and traffic in bytes
  -h, --help        this text

Exit status: 0 on success, 1 on diagnostics or failed checks, 2 on bad usage.`;

interface Args {
  files: string[];
  head?: string;
  wrt?: string[];
  of?: string[];
  modes?: Mode[];
  out?: string;
  js: boolean;
  runtime?: string;
  check: boolean;
  stats?: boolean;
  input?: string;
}

function usage(msg: string): never {
  process.stderr.write(`tsad: ${msg}\nRun 'tsad --help' for usage.\n`);
  process.exit(2);
}

function parseArgs(argv: string[]): Args {
  const a: Args = { files: [], js: false, check: false };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    const val = () => {
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
      case '--head':
        a.head = val();
        break;
      case '--wrt':
        a.wrt = val().split(',').filter(Boolean);
        break;
      case '--of':
        a.of = val().split(',').filter(Boolean);
        break;
      case '--mode': {
        const ms = val().split(',');
        for (const m of ms) if (m !== 'tangent' && m !== 'vector' && m !== 'reverse') usage(`unknown mode '${m}' (tangent, vector or reverse)`);
        a.modes = ms as Mode[];
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
      default:
        if (x.startsWith('-')) usage(`unknown option '${x}'`);
        a.files.push(x);
    }
  }
  return a;
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  if (!args.files.length) usage('no input files');
  if (!args.head) usage('--head <function> is required');
  const files: Record<string, string> = {};
  for (const f of args.files) {
    try {
      files[f] = readFileSync(f, 'utf8');
    } catch {
      usage(`cannot read '${f}'`);
    }
  }
  const r = compile(files, { head: args.head, wrt: args.wrt, of: args.of, modes: args.modes, js: args.js, runtimeImport: args.runtime });
  if (r.diagnostics.length) {
    process.stderr.write(r.diagnostics.map(formatDiagnostic).join('\n\n') + '\n');
    process.exit(1);
  }
  if (args.out) {
    mkdirSync(args.out, { recursive: true });
    const name = join(args.out, basename(args.files[0]).replace(/\.[jt]s$/, '') + (args.js ? '_ad.js' : '_ad.ts'));
    writeFileSync(name, r.code);
    process.stderr.write(`tsad: wrote ${name}\n`);
  } else if (!args.check) process.stdout.write(r.code);
  if (args.check) process.exit(runCheck(files, args) ? 0 : 1);
}

/** the --input file's JSON; a missing or malformed file is a usage error */
function readInput(path: string): unknown {
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

function runCheck(files: Record<string, string>, args: Args): boolean {
  const r = compile(files, { head: args.head!, wrt: args.wrt, of: args.of, js: true, runtimeImport: null });
  const head = frontEnd(files).funcs.get(args.head!)!;
  let values: unknown[];
  if (args.input) {
    const data = readInput(args.input);
    values = Array.isArray(data) ? data : head.params.map((p) => (data as Record<string, unknown>)[p.name]);
  } else values = randomArgs(head.params.map((p) => p.ty), 1);
  const rep = checkCompiled(r, r.code, args.head!, values);
  const line = (k: string, v: string) => process.stdout.write(`${k.padEnd(34)} ${v}\n`);
  line('tangent vs divided differences', `error ${rep.tangentError.toExponential(2)}  accuracy ${rep.accuracy.tangent.toFixed(1)} digits${rep.unstable ? '  (near a kink: steps disagree)' : ''}`);
  line('adjoint vs tangent (dot product)', `${rep.dotLeft} vs ${rep.dotRight}  accuracy ${rep.accuracy.dot.toFixed(1)} digits`);
  line('vector vs scalar tangents', `error ${rep.vectorError.toExponential(2)}`);
  line('tape empty after adjoint', String(rep.tapeEmpty));
  if (args.stats && rep.tape) {
    const t = rep.tape;
    line('tape pushes (floats/ints/refs)', `${t.pushes.floats} / ${t.pushes.ints} / ${t.pushes.refs}`);
    line('tape peak', `${t.peakBytes} bytes`);
    line('tape traffic (pushes + pops)', `${t.trafficBytes} bytes`);
  }
  for (const m of rep.messages) process.stdout.write(`FAIL: ${m}\n`);
  process.stdout.write(rep.ok ? 'check passed\n' : 'check FAILED\n');
  return rep.ok;
}

main();
