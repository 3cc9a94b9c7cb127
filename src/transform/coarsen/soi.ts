// Segments of interest inside a function that is not one SOI as a whole (issue 19; report §2.9,
// Fig. 7(a), with the report's resolutions of its gaps).
//
// The region tree is the IR's own structure: a statement list's statements are a node's children, a
// loop or `if` an interior node whose bodies are lists of their own. Bottom-up in effect: a compound
// statement whose region cannot be one SOI (a barrier inside: a call, a store, an effect, a jump out of
// it, or a closed form over the limit) is "large", and its bodies are searched the same way; in a list,
// consecutive small siblings are merged greedily, each run as long as it stays one segment whose closed
// form is within the limit L (the closed form is what `fits` asks shortcut.ts for).
//
// A run of statements is a segment when it has one live-out number `v` (declared or assigned in the
// run, read outside it) — or it ends the function with its `return` —, and no statement of it is a
// barrier. It is outlined as a function of its live-in variables returning v; its call replaces the
// run (`v = seg(…)`, `let v = seg(…)`, `return seg(…)`), so the segment's rules are a custom derivative
// and the code around it stays statement-level AD. A run of one simple statement is not worth a call.
import type { Expr, Func, Stmt, Ty } from '../../ir/types.js';
import { bodiesOf, forEachExpr, forEachStmt, mapBodies, NUM, stmtExprs } from '../../ir/util.js';

export interface Outlined {
  /** the outlined segments (functions of the module to be), in program order */
  segments: Func[];
  /** f with the runs of the segments in `kept` replaced by calls of them (the others left in place) */
  rebuild(kept: ReadonlySet<string>): Func;
}

interface Run {
  list: Stmt[];
  from: number;
  to: number;
  seg: Func;
  replacement: Stmt;
  call: Extract<Expr, { k: 'call' }>;
}

/** variables a statement reads (nested statements included; an assignment's target variable is not read) */
function reads(list: readonly Stmt[], out: Set<string> = new Set()): Set<string> {
  forEachStmt(list as Stmt[], (s) => {
    const es = s.k === 'assign' && s.target.k === 'var' ? [s.value] : stmtExprs(s);
    for (const e of es)
      forEachExpr(e, (x) => {
        if (x.k === 'var') out.add(x.name);
      });
  });
  return out;
}

/** a statement that no segment may hold: calls, stores, effects, returns, jumps to an enclosing loop */
function barrier(s: Stmt, inLoop: boolean): boolean {
  let bad = false;
  const loops = (t: Stmt) => t.k === 'for' || t.k === 'while' || t.k === 'do';
  const visit = (list: Stmt[], depth: number): void => {
    for (const t of list) {
      if (t.k === 'expr' || t.k === 'return' || t.k === 'throw' || t.k === 'switch' || t.k === 'continue' || (t.k === 'assign' && t.target.k !== 'var') || (t.k === 'break' && (depth === 0 || t.label)) || ('label' in t && t.label)) bad = true;
      for (const e of stmtExprs(t))
        forEachExpr(e, (x) => {
          if (x.k === 'call' || x.k === 'alloc' || x.k === 'arrlit' || x.k === 'objlit' || x.k === 'sub' || x.k === 'raw') bad = true;
        });
      for (const b of bodiesOf(t)) visit(b, depth + (loops(t) ? 1 : 0));
    }
  };
  visit([s], inLoop ? 0 : 0);
  return bad;
}

/** does a statement branch or loop (a run of one such statement is worth a segment) */
const compound = (s: Stmt) => s.k === 'if' || s.k === 'for' || s.k === 'while' || s.k === 'do';

export function outlineSegments(f: Func, fits: (seg: Func) => boolean, fresh: (base: string) => string): Outlined | null {
  // the type of each variable; a name declared twice is left alone (scopes would need telling apart)
  const types = new Map<string, Ty>();
  const twice = new Set<string>();
  for (const p of f.params) types.set(p.name, p.ty);
  forEachStmt(f.body, (s) => {
    if (s.k !== 'decl') return;
    if (types.has(s.name)) twice.add(s.name);
    types.set(s.name, s.ty);
  });
  const allReads = (except: readonly Stmt[]): Set<string> => {
    const skip = new Set(except);
    const out = new Set<string>();
    forEachStmt(f.body, (s) => {
      if (skip.has(s)) return;
      const es = s.k === 'assign' && s.target.k === 'var' ? [s.value] : stmtExprs(s);
      for (const e of es)
        forEachExpr(e, (x) => {
          if (x.k === 'var') out.add(x.name);
        });
    });
    return out;
  };
  /** the variables assigned by statements outside `except` */
  const allAssigns = (except: readonly Stmt[]): Set<string> => {
    const skip = new Set(except);
    const out = new Set<string>();
    forEachStmt(f.body, (s) => {
      if (!skip.has(s) && s.k === 'assign' && s.target.k === 'var') out.add(s.target.name);
    });
    return out;
  };
  const runs: Run[] = [];

  /** the segment of list[from, to), or null */
  const segment = (list: Stmt[], from: number, to: number, top: boolean, inLoop: boolean): Run | null => {
    const run = list.slice(from, to);
    const endsFunction = top && to === list.length && run[run.length - 1].k === 'return';
    const body = endsFunction ? run.slice(0, -1) : run;
    const inner = new Set<Stmt>();
    forEachStmt(run, (s) => inner.add(s));
    const declaredTop = new Set(body.filter((s): s is Extract<Stmt, { k: 'decl' }> => s.k === 'decl').map((s) => s.name));
    const declaredNested = new Set<string>();
    const assigned = new Set<string>();
    forEachStmt(body, (s) => {
      if (s.k === 'decl' && !body.includes(s)) declaredNested.add(s.name);
      if (s.k === 'assign' && s.target.k === 'var') assigned.add(s.target.name);
    });
    const carried = [...assigned].filter((v) => !declaredNested.has(v) && !declaredTop.has(v));
    // live after the run: read outside it (after it, at the top level; anywhere else, in a nested list);
    // inside a loop, a variable of an enclosing scope it assigns is read by the run itself in the next iteration
    const after = top ? reads(list.slice(to)) : allReads([...inner]);
    const everywhere = inLoop ? allReads([]) : after;
    const outs = [...declaredTop.values()].filter((v) => after.has(v)).concat(carried.filter((v) => everywhere.has(v)));
    if (endsFunction ? outs.length !== 0 : outs.length !== 1) return null;
    const out = outs[0];
    if (out !== undefined && (types.get(out)?.k !== 'num' || twice.has(out))) return null;
    // a variable the run declares and code outside it assigns (a nullable's flag, `prevIsSet = true`
    // after the run) would lose its declaration: not a segment
    const assignedOutside = allAssigns([...inner]);
    if ([...declaredTop].some((v) => v !== out && assignedOutside.has(v))) return null;
    const read = reads(run);
    const liveIn = [...new Set([...read, ...assigned])].filter((v) => !declaredTop.has(v) && !declaredNested.has(v) && types.has(v));
    if ([...read].some((v) => !types.has(v) && !declaredTop.has(v) && !declaredNested.has(v))) return null; // module data or a closure's: not a parameter
    if (liveIn.some((v) => twice.has(v))) return null;
    // inside a loop, a segment taking an array would build its array adjoints (and the custom-derivative
    // glue a zero array for each one no caller differentiates) on every iteration: slower than the loop's
    // own statement-level adjoint (measured: BGDHyperOpt's inner loop, bench/coarsen.ts)
    if (inLoop && liveIn.some((v) => types.get(v)!.k === 'arr')) return null;
    // a live-out declared before the run without a value would be passed unassigned
    if (out !== undefined && !declaredTop.has(out) && !read.has(out)) {
      let init = true;
      forEachStmt(f.body, (s) => {
        if (s.k === 'decl' && s.name === out && !s.init) init = false;
      });
      if (!init) return null;
    }
    const name = ''; // named once chosen
    const retExpr: Expr = endsFunction ? (run[run.length - 1] as Extract<Stmt, { k: 'return' }>).e! : { k: 'var', name: out!, ty: NUM };
    if (!retExpr) return null;
    const first = run[0].loc?.line, last = run[run.length - 1].loc?.line;
    const seg: Func = {
      name,
      params: liveIn.map((v) => ({ name: v, ty: types.get(v)! })),
      ret: NUM,
      body: [...body, { k: 'return', e: retExpr }],
      exported: false,
      loc: run[0].loc,
      comments: [`// a segment of ${f.name}${first ? ` (lines ${first}–${last})` : ''}, outlined by coarsening: differentiated by its closed form`],
    };
    const call: Extract<Expr, { k: 'call' }> = { k: 'call', fn: name, args: liveIn.map((v) => ({ k: 'var', name: v, ty: types.get(v)! })), ty: NUM, loc: run[0].loc };
    let replacement: Stmt;
    if (endsFunction) replacement = { k: 'return', e: call, loc: run[run.length - 1].loc };
    else if (declaredTop.has(out!)) {
      const d = body.find((s) => s.k === 'decl' && s.name === out) as Extract<Stmt, { k: 'decl' }>;
      replacement = { k: 'decl', name: out!, ty: d.ty, init: call, konst: d.konst && !assigned.has(out!), loc: run[0].loc };
    } else replacement = { k: 'assign', target: { k: 'var', name: out!, ty: NUM }, value: call, loc: run[0].loc };
    return { list, from, to, seg, replacement, call };
  };

  const search = (list: Stmt[], top: boolean, inLoop: boolean): void => {
    let i = 0;
    while (i < list.length) {
      const s = list[i];
      const isBarrier = (t: Stmt) => barrier(t, inLoop) && !(top && t.k === 'return' && t === list[list.length - 1] && t.e);
      if (isBarrier(s)) {
        // a large node: its bodies are searched on their own
        for (const b of bodiesOf(s)) search(b, false, inLoop || s.k === 'for' || s.k === 'while' || s.k === 'do');
        i++;
        continue;
      }
      // the longest run from i without barriers that is one segment within the limit
      let best: Run | null = null;
      let j = i + 1;
      while (j <= list.length && !(j > i + 1 && isBarrier(list[j - 1]))) {
        const r = segment(list, i, j, top, inLoop);
        if (r && (j - i > 1 || compound(list[i]))) {
          if (fits(r.seg)) best = r;
          else if (best) break; // (longer runs only grow)
        }
        if (list[j - 1].k === 'return') break;
        j++;
      }
      if (best) {
        runs.push(best);
        i = best.to;
      } else {
        for (const b of bodiesOf(s)) search(b, false, inLoop || s.k === 'for' || s.k === 'while' || s.k === 'do');
        i++;
      }
    }
  };
  search(f.body, true, false);
  if (!runs.length) return null;
  for (const r of runs) r.seg.name = r.call.fn = fresh(`${f.name}_seg`);
  const rebuild = (kept: ReadonlySet<string>): Func => {
    const byList = new Map<Stmt[], Run[]>();
    for (const r of runs) if (kept.has(r.seg.name)) byList.set(r.list, [...(byList.get(r.list) ?? []), r]);
    const mapList = (list: Stmt[]): Stmt[] => {
      const rs = (byList.get(list) ?? []).sort((a, b) => a.from - b.from);
      const out: Stmt[] = [];
      let i = 0;
      for (const r of rs) {
        for (; i < r.from; i++) out.push(mapBodies(list[i], mapList));
        out.push(r.replacement);
        i = r.to;
      }
      for (; i < list.length; i++) out.push(mapBodies(list[i], mapList));
      return out;
    };
    return { ...f, body: mapList(f.body) };
  };
  return { segments: runs.map((r) => r.seg), rebuild };
}
