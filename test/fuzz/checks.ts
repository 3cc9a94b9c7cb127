// The numeric properties of one compiled random program, at one or more points. Runs inside the fuzz
// worker (test/fuzz/worker.ts), so generated code that hangs is stopped by the worker's time budget.
//
//   primal       the primal copy in the generated module computes bit-identical values (result and the
//                arrays/objects it leaves behind) to the original transpiled by ts.transpileModule
//   modes-primal the values f_d / f_dv return and the primal arrays f_d / f_dv / f_b leave behind are
//                bit-identical to the primal's ("on return, primal arrays hold exactly what the primal
//                leaves in them, in every mode")
//   tangent      tangent against central divided differences (checkCompiled; unstable points resampled;
//                a failure is confirmed with two more step sizes before it is reported)
//   dot          tangent against adjoint by the dot-product test (checkCompiled)
//   vector       vector tangent against repeated scalar tangents (checkCompiled)
//   sparse-vector the sparse vector mode (`sparseVector: true`) against repeated scalar tangents, with
//                directions that each seed a few of the independents (narrow direction intervals), and
//                its primal values bit-identical to the primal's
//   tape         tape empty after the adjoint's backward sweep (checkCompiled)
//   selfcheck    the runtime API's self-check passes: no false alarm (test/fuzz/selfcheck-property.ts)
//   hvp          second derivatives (forward over reverse) of a scalar result: the gradient code's gradient,
//                H·v against divided differences of it, its vector mode, symmetry (test/fuzz/hvp-property.ts)
//   sparse       sparse Jacobians (and Hessians, with hvp) by detected pattern and colouring equal the dense
//                ones column by column (test/fuzz/sparse-property.ts)
//   blocks       the sparse Jacobian (by blocks, else colouring) equals the dense one (test/fuzz/blocks-property.ts)
//   tbr          f_b with `adjoint: { tbr: false, recompute: false, merge: false }` (the naive model) gives bit-identical gradients to f_b,
//                and so do f_b with `adjoint: { primalResults: false }` (diff-liveness removing primal code)
//                and f_b in joint mode (`adjoint: { checkpointCalls: true }`, every call checkpointed);
//                code with a fused reduction loop (each iteration's adjoint seeded with 1, scaled by the
//                sum's adjoint afterwards) rounds differently: its gradients agree to 1e-9 of the largest
//   jsdoc        (some programs) the program with its types in JSDoc comments, compiled as a .js file as
//                the CLI compiles one: every derivative function's values bit-identical to the TypeScript
//                version's on the same inputs (test/fuzz/js-property.ts)
//   plain-js     (some programs) the program as plain JavaScript through the runtime API (jacfwd, jacrev,
//                grad): the TypeScript version's Jacobian, to rounding (test/fuzz/js-property.ts)
import ts from 'typescript';
import { checkCompiled, type CheckReport } from '../../src/api/check.js';
import type { CompileResult, ManifestEntry } from '../../src/api/compile.js';
import { loadGenerated, type LoadedModule } from '../../src/api/load.js';
import { clone, flatten, randomLike, rng } from '../../src/api/values.js';
import { zerosLike } from '../../src/runtime/arrays.js';
import { DOT_TOLERANCE } from '../../src/api/selfcheck.js';
import { checkHvp } from './hvp-property.js';
import { selfCheckProgram } from './selfcheck-property.js';
import { checkSparse } from './sparse-property.js';
import { checkBlocks } from './blocks-property.js';
import { compareJsdoc, comparePlain } from './js-property.js';

export type Prop = 'compile' | 'accepts' | 'deterministic' | 'tsc' | 'primal' | 'modes-primal' | 'tangent' | 'dot' | 'vector' | 'sparse-vector' | 'tape' | 'tbr' | 'runtime' | 'checker' | 'selfcheck' | 'hvp' | 'sparse' | 'blocks' | 'jsdoc' | 'plain-js';
export const PROPS: Prop[] = ['compile', 'accepts', 'deterministic', 'tsc', 'primal', 'modes-primal', 'tangent', 'dot', 'vector', 'sparse-vector', 'tape', 'tbr', 'runtime', 'checker', 'selfcheck', 'hvp', 'sparse', 'blocks', 'jsdoc', 'plain-js'];

/** What identifies "the same failure" while shrinking: the property and its message without numbers or quoted names. */
export function signature(f: Pick<Finding, 'prop' | 'message'>): string {
  let first = f.message.split('; ')[0]; // the first of several diagnostics or type errors
  // exceptions: the property name read is incidental ("reading 'u'" / "reading '0'")
  if (f.prop === 'runtime' || f.prop === 'checker') first = first.replace(/'[^']*'/g, "'…'");
  return `${f.prop}: ${first.replace(/-?\d+(\.\d+)?(e[-+]?\d+)?/g, '#').slice(0, 160)}`;
}

export interface Finding {
  prop: Prop;
  message: string;
  observed?: string;
  expected?: string;
  /** the point (head arguments) where it was observed */
  args?: unknown[];
}

export interface CheckJob {
  source: string;
  head: string;
  /** points to check, in order: the first stable one ends the search */
  points: unknown[][];
  /** seed for directions and adjoint seeds */
  seed: number;
  js: CompileResult;
  jsNaive: CompileResult;
  jsLean: CompileResult;
  jsJoint: CompileResult;
  /** tangent and sparse vector mode (`sparseVector: true`) */
  jsSparse?: CompileResult;
  /** `js` was coarsened (issue 19): its adjoint matches the statement-level ones to rounding, not bit for bit */
  coarsened?: boolean;
  /** second derivatives (compileHvp) of a head returning one number, where tsad gives them */
  hvp?: CompileResult;
  /** the program typed by JSDoc comments in a .js file, compiled as `js` was (property jsdoc) */
  jsdoc?: CompileResult;
  /** run the program as plain JavaScript through the runtime API (property plain-js) */
  plain?: boolean;
}

export interface CheckOutcome {
  findings: Finding[];
  /** number of checks run, per property */
  checks: Partial<Record<Prop, number>>;
  /** points skipped because the original itself produced non-finite values */
  nonfinite: number;
  /** points where the tangent check was unstable (near a kink) and the point was resampled */
  unstable: number;
  /** the runtime API's refusal of the plain JavaScript (property plain-js), its first line */
  plainRefused?: string;
}

const show = (v: unknown): string =>
  JSON.stringify(v, (_k, x) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : Object.is(x, -0) ? '-0' : x instanceof Float64Array ? Array.from(x) : x));

/** Bit-identical structural equality (NaN equals NaN, -0 differs from 0). */
export function sameBits(a: unknown, b: unknown, zeroSign = true): boolean {
  if (typeof a === 'number' || typeof b === 'number') return zeroSign ? Object.is(a, b) : a === b || (a !== a && b !== b);
  if (a instanceof Float64Array || b instanceof Float64Array || Array.isArray(a) || Array.isArray(b)) {
    const x = a as ArrayLike<unknown>, y = b as ArrayLike<unknown>;
    if (!x || !y || x.length !== y.length || Array.isArray(a) !== Array.isArray(b)) return false;
    for (let i = 0; i < x.length; i++) if (!sameBits(x[i], y[i], zeroSign)) return false;
    return true;
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
    if (!sameBits(ka.length, kb.length) || ka.some((k, i) => k !== kb[i])) return false;
    return ka.every((k) => sameBits((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], zeroSign));
  }
  return a === b;
}

const fused = (code: string) => code.includes('$ad fused reduction');
/** call sites of callees' backward sweeps in generated code */
const bwdCalls = (code: string) => (code.match(/(?<!function )\b\w+_bwd\(tape\b/g) ?? []).length;

/** Adjoints compared with the naive model's: bit for bit, or to 1e-9 of the largest when `rounded` (summed in another order). */
function sameAdjoints(a: unknown, b: unknown, rounded: boolean): boolean {
  if (!rounded) return sameBits(a, b, false);
  const x = flatten(a), y = flatten(b);
  if (x.length !== y.length) return false;
  const scale = Math.max(1, ...y.filter(Number.isFinite).map(Math.abs));
  return x.every((v, i) => v === y[i] || (v !== v && y[i] !== y[i]) || Math.abs(v - y[i]) <= 1e-9 * scale);
}

/** The original module, transpiled by TypeScript alone and evaluated. */
export function loadOriginal(source: string): LoadedModule {
  const js = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ESNext } }).outputText;
  const names: string[] = [];
  const body = js.replace(/^export (function|const|class) (\w+)/gm, (_m, kw: string, n: string) => {
    names.push(n);
    return `${kw} ${n}`;
  }).replace(/^export \{\};?$/gm, '');
  return new Function(`"use strict";\n${body}\nreturn { ${names.join(', ')} };`)() as LoadedModule;
}

const entry = (r: CompileResult, head: string, mode: ManifestEntry['mode']) => r.manifest.find((m) => m.of === head && m.mode === mode);

/** Calls a tangent or vector-tangent function with zero (or given) directions; returns [result, primal args after]. */
function callTangent(mod: LoadedModule, e: ManifestEntry, params: string[], args: unknown[], nb?: number): { res: unknown; after: unknown[] } {
  const c = clone(args);
  const call: unknown[] = [];
  for (const p of e.params) {
    const j = params.indexOf(p.of ?? p.name);
    if (p.role === 'primal') call.push(c[j]);
    else if (p.role === 'tangent') call.push(nb === undefined ? zerosLike(args[j]) : zerosLike(args[j], nb));
    else if (p.role === 'directions') call.push(nb);
  }
  return { res: mod[e.name](...call), after: c };
}

/** Calls f_b with the given seeds; returns the scalar adjoints it returns, the adjoint arrays and the primal args after. */
function callReverse(mod: LoadedModule, e: ManifestEntry, params: string[], args: unknown[], of: string[], ybar: unknown[]): { ret: unknown; adj: unknown[]; after: unknown[] } {
  const c = clone(args);
  const call: unknown[] = [];
  const adj: unknown[] = [];
  const outs = of.filter((o) => o !== 'return');
  for (const p of e.params) {
    const j = params.indexOf(p.of ?? p.name);
    if (p.role === 'primal') call.push(c[j]);
    else if (p.role === 'adjoint') {
      const k = outs.indexOf(p.of!);
      const a = k >= 0 ? clone(ybar[of.includes('return') ? k + 1 : k]) : zerosLike(args[j]);
      adj.push(a);
      call.push(a);
    } else if (p.role === 'seed') call.push(clone(ybar[0]));
  }
  const ret = mod[e.name](...call);
  return { ret, adj, after: c };
}

function outputs(result: unknown, after: unknown[], params: string[], of: string[]): unknown[] {
  const o: unknown[] = [];
  if (of.includes('return')) o.push(result);
  for (const n of of) if (n !== 'return') o.push(after[params.indexOf(n)]);
  return o;
}

const finite = (v: unknown): boolean => flatten(v).every(Number.isFinite);

type Verdict = 'done' | 'resample';

/** functions of src/api/check.ts and src/api/values.ts: an exception thrown there is the checker's */
const CHECKER_FRAMES = /^(checkCompiled|unpackDirection|packDirections|flatten|mapFloats|randomLike|axpy|dot|clone|outputsOf|headInfo)$/;

/** The checker function an exception comes from, if no generated code (evaluated by `new Function`) is above it on the stack. */
function checkerFrame(stack: string): string | undefined {
  for (const line of stack.split('\n').slice(1)) {
    if (/eval at/.test(line)) return undefined;
    const name = /^\s*at (?:Array\.\w+ |Object\.)?(\w+) \(/.exec(line)?.[1];
    if (name && CHECKER_FRAMES.test(name)) return name;
  }
  return undefined;
}

export function runChecks(job: CheckJob): CheckOutcome {
  const out: CheckOutcome = { findings: [], checks: {}, nonfinite: 0, unstable: 0 };
  const count = (p: Prop) => (out.checks[p] = (out.checks[p] ?? 0) + 1);
  const find = (f: Finding) => out.findings.push(f);
  const { head, js, jsNaive } = job;
  const orig = loadOriginal(job.source);
  const gen = loadGenerated(js.code);
  const naive = loadGenerated(jsNaive.code);
  const eT = entry(js, head, 'tangent'), eV = entry(js, head, 'vector'), eB = entry(js, head, 'reverse');
  const eBn = entry(jsNaive, head, 'reverse');
  const lean = loadGenerated(job.jsLean.code);
  const eBl = entry(job.jsLean, head, 'reverse');
  const joint = loadGenerated(job.jsJoint.code);
  const eBj = entry(job.jsJoint, head, 'reverse');
  const params = (eT ?? eB)!.params.filter((p) => p.role === 'primal').map((p) => p.name);
  const of = js.of;
  const sparseVector = job.jsSparse ? loadGenerated(job.jsSparse.code) : null;
  const eS = job.jsSparse ? entry(job.jsSparse, head, 'vector') : undefined;
  const hvpMod = job.hvp && eT ? loadGenerated(job.hvp.code) : undefined;

  const checkPoint = (args: unknown[], seed: number): Verdict => {
    // ---- the original
    const c0 = clone(args);
    let y0: unknown;
    try {
      y0 = orig[head](...c0);
    } catch {
      out.nonfinite++;
      return 'resample';
    }
    const outs0 = outputs(y0, c0, params, of);
    if (!finite(outs0) || !finite(c0)) {
      out.nonfinite++;
      return 'resample';
    }
    let stage = 'the primal copy';
    try {
      // ---- primal copy
      count('primal');
      {
        const c = clone(args);
        const y = gen[head](...c);
        if (!sameBits(y, y0) || !sameBits(c, c0))
          find({ prop: 'primal', message: 'the primal copy differs from the original', observed: show({ result: y, args: c }), expected: show({ result: y0, args: c0 }), args });
      }
      // ---- primal values in every mode
      stage = 'the derivative functions';
      count('modes-primal');
      {
        const bad: string[] = [];
        let observed = '';
        const expected = show({ result: y0, args: c0 });
        for (const [e, nb] of [[eT, undefined], [eV, 2]] as const) {
          if (!e) continue;
          const { res, after } = callTangent(gen, e, params, args, nb);
          const v = of.includes('return') ? (res as unknown[])[0] : undefined;
          if ((of.includes('return') && !sameBits(v, y0)) || !sameBits(after, c0)) {
            bad.push(e.name);
            observed ||= show({ result: v, args: after });
          }
        }
        if (eB) {
          const ybar = outs0.map((y) => randomLike(y, rng(seed)));
          const { after } = callReverse(gen, eB, params, args, of, ybar);
          if (!sameBits(after, c0)) {
            bad.push(eB.name);
            observed ||= show({ args: after });
          }
        }
        if (bad.length) find({ prop: 'modes-primal', message: `primal values after ${bad.join(', ')} differ from the primal's`, observed, expected, args });
      }
      // ---- TBR against the naive adjoint
      stage = 'f_b (TBR on and off)';
      if (eB && eBn) {
        count('tbr');
        const ybar = outs0.map((y) => randomLike(y, rng(seed + 1)));
        const a = callReverse(gen, eB, params, args, of, ybar);
        const b = callReverse(naive, eBn, params, args, of, ybar);
        // gradients: the same numbers, a zero's sign aside (a merged `xb = e` gives −0 where `xb = 0; xb += e` gives +0)
        if (!sameAdjoints([a.ret, a.adj], [b.ret, b.adj], fused(js.code) || !!job.coarsened) || !sameBits(a.after, b.after))
          find({ prop: 'tbr', message: job.coarsened ? 'the coarsened f_b differs from the statement-level naive adjoint' : 'f_b with TBR differs from the naive adjoint (adjoint: { tbr: false })', observed: show({ returned: a.ret, adjoints: a.adj }), expected: show({ returned: b.ret, adjoints: b.adj }), args });
        // without the primal results (diff-liveness): the same adjoints
        if (eBl) {
          const l = callReverse(lean, eBl, params, args, of, ybar);
          if (!sameAdjoints([l.ret, l.adj], [b.ret, b.adj], fused(job.jsLean?.code ?? '')))
            find({ prop: 'tbr', message: 'f_b with diff-liveness (adjoint: { primalResults: false }) differs from the naive adjoint', observed: show({ returned: l.ret, adjoints: l.adj }), expected: show({ returned: b.ret, adjoints: b.adj }), args });
        }
        // joint mode (every call checkpointed): the same adjoints, and the primal's results kept
        if (eBj) {
          const j = callReverse(joint, eBj, params, args, of, ybar);
          // (joint mode keeps every call: where the naive adjoint inlined one — a function returning one
          // expression, or a leaf written out in a fused iteration — the callee's adjoint contributions are
          // summed before they reach the caller's: the same numbers, rounded in another order)
          const rounded = fused(job.jsJoint?.code ?? '') || bwdCalls(job.jsJoint?.code ?? '') !== bwdCalls(jsNaive.code);
          if (!sameAdjoints([j.ret, j.adj], [b.ret, b.adj], rounded) || !sameBits(j.after, b.after))
            find({ prop: 'tbr', message: 'f_b in joint mode (adjoint: { checkpointCalls: true }) differs from the naive adjoint', observed: show({ returned: j.ret, adjoints: j.adj }), expected: show({ returned: b.ret, adjoints: b.adj }), args });
        }
      }
      // ---- derivatives: checkCompiled
      stage = 'checkCompiled';
      let rep: CheckReport;
      try {
        rep = checkCompiled(js, gen, head, args, { seed });
      } catch (e) {
        const top = checkerFrame((e as Error)?.stack ?? '');
        if (!top) throw e;
        // a bug of checkCompiled itself (not of generated code): report it, then check without the vector mode
        count('checker');
        find({ prop: 'checker', message: `checkCompiled threw in ${top}: ${(e as Error).message}`, args });
        rep = checkCompiled({ ...js, manifest: js.manifest.filter((m) => m.mode !== 'vector') }, gen, head, args, { seed });
      }
      count('dot');
      count('vector');
      count('tape');
      // which side is wrong: the tangent, if it also disagrees with (stable) divided differences
      const which = rep.unstable ? 'near a kink' : rep.tangentError > 1e-6 ? 'the tangent is wrong: it differs from divided differences' : 'the adjoint is wrong: the tangent matches divided differences';
      if (rep.dotError > 1e-10) find({ prop: 'dot', message: `dot-product test fails (${which})`, observed: `ȳ·(J ẋ) = ${rep.dotLeft}`, expected: `(Jᵀȳ)·ẋ = ${rep.dotRight} (relative error ${rep.dotError.toExponential(2)})`, args });
      if (rep.vectorError > 1e-12) find({ prop: 'vector', message: 'vector tangent differs from repeated scalar tangents', observed: `relative error ${rep.vectorError.toExponential(2)}`, expected: '≤ 1e-12', args });
      if (eB && !rep.tapeEmpty) find({ prop: 'tape', message: 'the tape is not empty after the backward sweep', args });
      // ---- the sparse vector mode: narrow directions, against scalar tangents; its primal values
      stage = 'the sparse vector mode';
      if (sparseVector && eS && job.jsSparse) {
        count('sparse-vector');
        const { res, after } = callTangent(sparseVector, eS, params, args, 2);
        const v = of.includes('return') ? (res as unknown[])[0] : undefined;
        if ((of.includes('return') && !sameBits(v, y0)) || !sameBits(after, c0))
          find({ prop: 'sparse-vector', message: `primal values after the sparse ${eS.name} differ from the primal's`, observed: show({ result: v, args: after }), expected: show({ result: y0, args: c0 }), args });
        const s = checkCompiled(job.jsSparse, sparseVector, head, args, { seed, directions: 5, sparseDirections: true });
        if (s.vectorError > 1e-12) find({ prop: 'sparse-vector', message: 'sparse vector tangent differs from repeated scalar tangents', observed: `relative error ${s.vectorError.toExponential(2)}`, expected: '≤ 1e-12', args });
      }
      stage = 'the self-check';
      const sc = selfCheckProgram(js, gen, head, args);
      if (sc && sc.kind !== 'nonfinite') count('selfcheck');
      if (sc?.kind === 'mismatch') find({ prop: 'selfcheck', message: "the runtime API's self-check fails (a false alarm unless the dot property fails too)", observed: `ȳ·(J ẋ) = ${sc.left}`, expected: `(Jᵀȳ)·ẋ = ${sc.right} (allowed difference ${(DOT_TOLERANCE * sc.scale).toExponential(2)})`, args });
      if (out.findings.some((f) => f.prop !== 'checker')) return 'done';
      if (rep.unstable) {
        out.unstable++;
        return 'resample'; // near a kink or a branch switch
      }
      // Math.fround (tangent: the identity) makes divided differences noise at every usable step
      if (job.source.includes('Math.fround(')) return 'done';
      count('tangent');
      if (rep.tangentError > 1e-6) {
        // confirm with two other step sizes: a correct tangent agrees with some stable divided difference
        const alt: CheckReport[] = [1e-5, 1e-7].map((h) => checkCompiled(js, gen, head, args, { seed, h }));
        if (!alt.some((r) => !r.unstable && r.tangentError <= 1e-6) && !truncationConverges([alt[0], rep, alt[1]].map((r) => r.tangentError)))
          find({ prop: 'tangent', message: 'tangent differs from central divided differences', observed: `relative error ${rep.tangentError.toExponential(2)} (h = 1e-6), ${alt.map((r) => r.tangentError.toExponential(2)).join(', ')} (h = 1e-5, 1e-7)`, expected: '≤ 1e-6', args });
      }
      stage = 'the JavaScript versions';
      if (job.jsdoc) {
        count('jsdoc');
        out.findings.push(...compareJsdoc(js, gen, job.jsdoc, loadGenerated(job.jsdoc.code), head, args, seed));
      }
      if (job.plain) {
        const p = comparePlain(js, gen, job.source, head, params, args);
        if (p.refused) out.plainRefused = p.refused;
        else count('plain-js');
        out.findings.push(...p.findings);
      }
      if (job.hvp && hvpMod && !out.findings.length) {
        stage = 'the second derivatives';
        const h = checkHvp(job.hvp, hvpMod, js, gen, head, params, args, seed);
        if (h.checked) count('hvp');
        out.findings.push(...h.findings);
      }
      if (!out.findings.length) {
        stage = 'the sparse matrices';
        count('sparse');
        out.findings.push(...checkSparse(js, gen, job.hvp && hvpMod ? { result: job.hvp, mod: hvpMod } : undefined, head, params, args));
      }
      return 'done';
    } catch (e) {
      count('runtime');
      find({ prop: 'runtime', message: `generated code threw in ${stage}: ${(e as Error)?.message ?? e}`, args });
      return 'done';
    }
  };

  for (const [k, args] of job.points.entries()) if (checkPoint(args, job.seed + k) === 'done') break;
  const bl = checkBlocks(job.source, job.seed);
  // (a colouring fallback is a sparse matrix checked like the property `sparse`'s: counted there, so that
  // `blocks` counts the block Jacobians alone and the fixed-seed run can tell if they stopped happening)
  if (bl.checked) count(bl.by === 'colouring' ? 'sparse' : 'blocks');
  out.findings.push(...bl.findings);
  return out;
}

/**
 * Divided differences of a steep function (a derivative of 1e9, a third derivative far larger) miss a
 * correct tangent by their truncation error, which shrinks as h²: a hundredfold per tenfold smaller step.
 * A wrong tangent leaves the gap at the size of the bug instead. `errors` are for h = 1e-5, 1e-6, 1e-7.
 */
export function truncationConverges(errors: number[]): boolean {
  const [e5, e6, e7] = errors;
  return e7 <= 1e-6 && e5 >= 30 * e6 && e6 >= 30 * e7;
}
