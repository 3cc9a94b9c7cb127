// Coarsening in the pipeline (issue 19): choose the segments of interest (SOIs) of the functions the
// head reaches, give each its derivative rules from its closed form (shortcut.ts), and attach them as
// the function's custom derivative (`Func.custom`, from 'coarsen') — the hook hand-written rules use, so
// the tangent, vector and adjoint transformations call them like any rule and differentiate the rest
// statement by statement. A coarsened head's f_b is its adjoint rule alone: the primal does not run.
//
// SOI choice (report §2.9, Fig. 7(a)) is in soi.ts; this module applies it and writes the report.
import { normalizeFunc } from '../normalize.js';
import { markRuleCalls } from '../../frontend/custom-derivatives.js';
import type { Func, Module } from '../../ir/types.js';
import { forEachStmt } from '../../ir/util.js';
import { calledFrom } from '../../analysis/activity.js';
import { closedForm, shortcutRules, type CoarsenLimits } from './shortcut.js';
import { outlineSegments } from './soi.js';

export interface CoarsenOptions {
  /** the SOI size limit L: DAG nodes of a segment's closed form (default 400) */
  maxSize?: number;
  /** the ablation: coarsen straight-line code only (no φ-calculus for branches and loops) */
  noPhi?: boolean;
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

/** The module with the SOIs of what `head` reaches coarsened (rules attached), and the report. */
export function coarsenModule(mod: Module, head: string, opts: CoarsenOptions = {}): { mod: Module; report: CoarsenReport } {
  const limits: CoarsenLimits = { maxSize: opts.maxSize ?? DEFAULT_SOI_LIMIT, noPhi: opts.noPhi };
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
  /** attach rules to a function of `funcs`; null when it has none (the reason reported) */
  const coarsen = (name: string, owner: string): boolean => {
    const f = funcs.get(name)!;
    const cf = closedForm(f, mod, limits);
    if ('refused' in cf) {
      report.refused.push({ func: name === owner ? owner : `${owner} (${name})`, reason: cf.refused });
      return false;
    }
    const names = { jvp: fresh(`${name}_coarse_jvp`), vjp: fresh(`${name}_coarse_vjp`) };
    const rules = shortcutRules(f, cf, names, reserved, 8 * limits.maxSize);
    if ('refused' in rules) {
      reserved.delete(names.jvp);
      reserved.delete(names.vjp);
      report.refused.push({ func: name === owner ? owner : `${owner} (${name})`, reason: rules.refused });
      return false;
    }
    funcs.set(name, { ...f, custom: { passive: false, tangent: names.jvp, adjoint: names.vjp, from: 'coarsen', loc: f.loc } });
    for (const g of [rules.jvp, rules.vjp]) {
      funcs.set(g.name, g);
      order.push(g.name);
    }
    report.chosen.push({ func: owner, soi: name, statements: countStmts(f), size: cf.size, derivativeSize: rules.derivativeSize, phis: cf.phis });
    return true;
  };
  for (const n of reachable(mod, head)) {
    const f = funcs.get(n)!;
    if (f.custom || f.external) continue;
    if (coarsen(n, n)) continue;
    // the whole function is not one SOI: segments of it (Fig. 7(a) over its region tree)
    const out = outlineSegments(f, (seg) => !('refused' in closedForm(seg, mod, limits)), fresh);
    if (!out) continue;
    const kept: string[] = [];
    for (const seg of out.segments) {
      funcs.set(seg.name, seg);
      order.splice(order.indexOf(n), 0, seg.name);
      if (coarsen(seg.name, n)) kept.push(seg.name);
    }
    if (kept.length === 0) {
      // no segment coarsened: the function stays as it was
      for (const seg of out.segments) {
        funcs.delete(seg.name);
        order.splice(order.indexOf(seg.name), 1);
        reserved.delete(seg.name);
      }
      continue;
    }
    // a segment that could not be coarsened is inlined back (it stays statement-level code in f)
    funcs.set(n, normalizeFunc(out.rebuild(new Set(kept))));
    for (const seg of out.segments)
      if (!kept.includes(seg.name)) {
        funcs.delete(seg.name);
        order.splice(order.indexOf(seg.name), 1);
      }
  }
  if (!report.chosen.length) return { mod, report };
  markRuleCalls(funcs, order);
  return { mod: { ...mod, funcs, order }, report };
}

/** the report as text: one line per SOI chosen, then what was left to statement-level AD */
export function formatReport(r: CoarsenReport): string {
  const lines: string[] = [];
  for (const c of r.chosen)
    lines.push(`coarsen: ${c.soi === c.func ? `function ${c.func}` : `${c.soi} (a segment of ${c.func})`}: ${c.statements} statement${c.statements === 1 ? '' : 's'}, ${c.phis} φ, closed form ${c.size} nodes, partials ${c.derivativeSize} nodes`);
  for (const x of r.refused) lines.push(`coarsen: ${x.func} left to statement-level AD: ${x.reason}`);
  return lines.join('\n');
}
