// Coarsening in the pipeline (issue 19): choose the segments of interest (SOIs) of the functions the
// head reaches, give each its derivative rules from its closed form (shortcut.ts), and attach them as
// the function's custom derivative (`Func.custom`, from 'coarsen') — the hook hand-written rules use, so
// the tangent, vector and adjoint transformations call them like any rule and differentiate the rest
// statement by statement. A coarsened head's f_b is its adjoint rule alone: the primal does not run
// (unless the closed form reads a trip count or exit only the run knows: the rule records a run first).
// The rules are made for the compilation's activity (the parameters some caller varies) and kept only
// where they cost no more loop nesting than the source (the cost model's first order).
//
// SOI choice (report §2.9, Fig. 7(a)) is in soi.ts; this module applies it and writes the report.
import { normalizeFunc } from '../normalize.js';
import { markRuleCalls, ruleDerivKind } from '../../frontend/custom-derivatives.js';
import type { Func, Module } from '../../ir/types.js';
import { forEachStmt, loopNestDepth } from '../../ir/util.js';
import { analyzeActivity, calledFrom, type ProgramActivity } from '../../analysis/activity.js';
import { TransformError } from '../tangent.js';
import { closedForm, shortcutRules, type ClosedForm, type CoarsenLimits } from './shortcut.js';
import { outlineSegments, type Outlined } from './soi.js';

export interface CoarsenOptions {
  /** the SOI size limit L: DAG nodes of a segment's closed form (default 400) */
  maxSize?: number;
  /** the ablation: coarsen straight-line code only (no φ-calculus for branches and loops) */
  noPhi?: boolean;
  /** replay the last recorded loop from its closed form with certified decisions (default true; false: run it, as before) */
  replay?: boolean;
}

export const DEFAULT_SOI_LIMIT = 400;

export interface SoiReport {
  /** the function the SOI belongs to */
  func: string;
  /** the function whose body the SOI is: the function itself, or a segment outlined from it */
  soi: string;
  /** statements of the source the SOI replaced */
  statements: number;
  /** DAG nodes of the closed form and of its partials */
  size: number;
  derivativeSize: number;
  /** φ's the region had (branches and loops closed symbolically) */
  phis: number;
}

export interface CoarsenReport {
  chosen: SoiReport[];
  /** functions (or segments) left to statement-level AD, and why */
  refused: { func: string; reason: string }[];
}

function reachable(mod: Module, head: string): string[] {
  const seen = calledFrom(mod, head);
  return mod.order.filter((n) => seen.has(n) && mod.funcs.has(n));
}

function countStmts(f: Func): number {
  let n = 0;
  forEachStmt(f.body, () => n++);
  return n;
}

/** what the compilation differentiates: the head's independents and dependents (activity analysis's seeds) */
export interface CoarsenActivity {
  wrt: readonly string[];
  dependents: { result: boolean; params: string[] };
}

/** a segment of interest chosen, its rules not yet made */
interface Candidate {
  name: string;
  owner: string;
  cf: ClosedForm;
}

/**
 * The module with the SOIs of what `head` reaches coarsened (rules attached), and the report. In three
 * steps: the SOIs are chosen (whole functions, else segments outlined); activity analysis runs on the
 * module with the segments outlined, so each SOI's rules compute derivatives only for the parameters some
 * caller varies (without `activity`, for all); the rules are made, and a segment whose rules are refused
 * is inlined back.
 */
export function coarsenModule(mod: Module, head: string, opts: CoarsenOptions = {}, activity?: CoarsenActivity): { mod: Module; report: CoarsenReport } {
  const limits: CoarsenLimits = { maxSize: opts.maxSize ?? DEFAULT_SOI_LIMIT, noPhi: opts.noPhi, replay: opts.replay };
  const report: CoarsenReport = { chosen: [], refused: [] };
  const funcs = new Map(mod.funcs);
  const order = [...mod.order];
  const reserved = new Set<string>([...mod.funcs.keys(), ...mod.globals.keys(), ...mod.failed.keys()]);
  const fresh = (base: string): string => {
    let n = base;
    for (let i = 0; reserved.has(n); i++) n = `${base}${i}`;
    reserved.add(n);
    return n;
  };
  const label = (name: string, owner: string) => (name === owner ? owner : `${owner} (${name})`);
  const dropSegment = (name: string) => {
    funcs.delete(name);
    order.splice(order.indexOf(name), 1);
  };
  // 1. the SOIs: a whole function, or segments of it (Fig. 7(a) over its region tree)
  const candidates: Candidate[] = [];
  const outlined = new Map<string, { out: Outlined; segments: string[] }>();
  for (const n of reachable(mod, head)) {
    const f = funcs.get(n)!;
    if (f.custom || f.external) continue;
    const cf = closedForm(f, mod, limits);
    if (!('refused' in cf)) {
      candidates.push({ name: n, owner: n, cf });
      continue;
    }
    report.refused.push({ func: n, reason: cf.refused });
    const out = outlineSegments(f, (seg) => !('refused' in closedForm(seg, mod, limits)), fresh);
    if (!out) continue;
    const segments: string[] = [];
    for (const seg of out.segments) {
      funcs.set(seg.name, seg);
      order.splice(order.indexOf(n), 0, seg.name);
      const scf = closedForm(seg, mod, limits);
      if ('refused' in scf) report.refused.push({ func: label(seg.name, n), reason: scf.refused });
      else {
        candidates.push({ name: seg.name, owner: n, cf: scf });
        segments.push(seg.name);
      }
    }
    if (segments.length) {
      outlined.set(n, { out, segments });
      funcs.set(n, normalizeFunc(out.rebuild(new Set(segments))));
    }
    for (const seg of out.segments) if (!segments.includes(seg.name)) dropSegment(seg.name);
  }
  // 2. which parameters of each SOI carry derivatives (a caller varies them)
  const varied = variedParams({ ...mod, funcs, order }, head, activity);
  // 3. the rules
  const kept = new Set<string>();
  for (const c of candidates) {
    const f = funcs.get(c.name)!;
    const names = { jvp: fresh(`${c.name}_coarse_jvp`), vjp: fresh(`${c.name}_coarse_vjp`) };
    const active = varied(c.name, f);
    const rules = shortcutRules(f, c.cf, names, reserved, 8 * limits.maxSize, active);
    if ('refused' in rules) {
      reserved.delete(names.jvp);
      reserved.delete(names.vjp);
      report.refused.push({ func: label(c.name, c.owner), reason: rules.refused });
      continue;
    }
    // (the cost model's first order: a closed form whose Σ's nest deeper than the loops they replace — a
    // recurrence closed by C7/C8 into a Σ over each iteration — costs O(n^k) where the source's adjoint
    // costs O(n^j), j < k: statement-level AD is faster there)
    const deeper = Math.max(loopNestDepth(rules.jvp.body), loopNestDepth(rules.vjp.body));
    if (deeper > loopNestDepth(f.body)) {
      reserved.delete(names.jvp);
      reserved.delete(names.vjp);
      report.refused.push({ func: label(c.name, c.owner), reason: `its rules nest loops ${deeper} deep where it nests them ${loopNestDepth(f.body)} deep (slower than statement-level AD)` });
      continue;
    }
    const ignores = f.params.filter((p) => !active.has(p.name) && (ruleDerivKind(p.ty) === 'scalar' || ruleDerivKind(p.ty) === 'array')).map((p) => p.name);
    funcs.set(c.name, { ...f, custom: { passive: false, tangent: names.jvp, adjoint: names.vjp, from: 'coarsen', loc: f.loc, ...(ignores.length ? { ignores } : {}) } });
    for (const g of [rules.jvp, rules.vjp]) {
      funcs.set(g.name, g);
      order.push(g.name);
    }
    kept.add(c.name);
    report.chosen.push({ func: c.owner, soi: c.name, statements: countStmts(f), size: c.cf.size, derivativeSize: rules.derivativeSize, phis: c.cf.phis });
  }
  // a segment whose rules were refused is inlined back (it stays statement-level code in its function)
  for (const [n, { out, segments }] of outlined) {
    const keep = segments.filter((s) => kept.has(s));
    if (keep.length === segments.length) continue;
    funcs.set(n, keep.length ? normalizeFunc(out.rebuild(new Set(keep))) : mod.funcs.get(n)!);
    for (const s of segments) if (!kept.has(s)) dropSegment(s);
  }
  if (!report.chosen.length) return { mod, report };
  markRuleCalls(funcs, order);
  return { mod: { ...mod, funcs, order }, report };
}

/**
 * The parameters of each function that carry a derivative in this compilation: those some caller varies
 * (activity analysis's contexts, as customSignature reads them after coarsening), the head's independents.
 * Without the independents, or where the analysis cannot tell, every parameter (always correct, slower).
 */
function variedParams(mod: Module, head: string, activity: CoarsenActivity | undefined): (name: string, f: Func) => ReadonlySet<string> {
  const all = (f: Func) => new Set(f.params.map((p) => p.name));
  if (!activity) return (_, f) => all(f);
  let result: ProgramActivity;
  try {
    result = analyzeActivity(mod, head, [...activity.wrt], activity.dependents);
  } catch (e) {
    if (e instanceof TransformError) return (_, f) => all(f);
    throw e;
  }
  return (name, f) => {
    const fa = result.funcs.get(name);
    if (!fa) return all(f);
    return new Set(f.params.filter((p) => fa.ctx.variedParams.has(p.name) || (name === head && activity.wrt.includes(p.name))).map((p) => p.name));
  };
}

/** the report as text: one line per SOI chosen, then what was left to statement-level AD */
export function formatReport(r: CoarsenReport): string {
  const lines: string[] = [];
  for (const c of r.chosen)
    lines.push(`coarsen: ${c.soi === c.func ? `function ${c.func}` : `${c.soi} (a segment of ${c.func})`}: ${c.statements} statement${c.statements === 1 ? '' : 's'}, ${c.phis} φ, closed form ${c.size} nodes, partials ${c.derivativeSize} nodes`);
  for (const x of r.refused) lines.push(`coarsen: ${x.func} left to statement-level AD: ${x.reason}`);
  return lines.join('\n');
}
