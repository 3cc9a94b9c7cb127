// One data-flow solver for every analysis: may-analyses over sets of names on structured IR, forward
// or backward, with break/continue/return routed to their targets. Results are recorded per statement
// (object identity), as the state before (`inOf`) and after (`outOf`) it in execution order.
import type { Stmt } from '../ir/types.js';

export type Facts = Set<string>;

export interface FlowResult {
  inOf: Map<Stmt, Facts>;
  outOf: Map<Stmt, Facts>;
  /** forward: state at function exit (returns and fall-through); backward: state at entry */
  boundary: Facts;
}

/** Effect of a simple statement (decl, assign, expr); compound statements are the solver's. */
export type Transfer = (s: Stmt, facts: Facts) => Facts;

// (facts are never changed in place: a join that adds nothing gives back its left side, which a copy
// would equal, in the same order; most joins at loop heads and branch ends add nothing)
const union = (a: Facts, b: Facts): Facts => {
  if (a.size === 0) return b;
  if (b.size === 0 || a === b || subset(b, a)) return a;
  const r = new Set(a);
  for (const x of b) r.add(x);
  return r;
};
const subset = (a: Facts, b: Facts): boolean => {
  if (a.size > b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
};
const equal = (a: Facts, b: Facts): boolean => a.size === b.size && subset(a, b);

const EMPTY: Facts = new Set();

interface FwdTarget {
  label?: string;
  loop: boolean;
  breaks: Facts;
  continues: Facts;
}

/**
 * `condTransfer` applies where a compound statement evaluates its condition; `loopExit` to the state
 * after a loop (a loop can define more than its statements do one by one: every element of an array).
 */
export function solveForward(body: Stmt[], entry: Facts, transfer: Transfer, condTransfer?: (s: Stmt, f: Facts) => Facts, loopExit?: (s: Stmt, f: Facts) => Facts): FlowResult {
  const inOf = new Map<Stmt, Facts>();
  const outOf = new Map<Stmt, Facts>();
  let returns: Facts = EMPTY;
  const targets: FwdTarget[] = [];
  const cond = condTransfer ?? ((_s: Stmt, f: Facts) => f);

  const findTarget = (label: string | undefined, isContinue: boolean): FwdTarget | undefined => {
    for (let i = targets.length - 1; i >= 0; i--) {
      const t = targets[i];
      if (label ? t.label === label : isContinue ? t.loop : true) return t;
    }
    return undefined;
  };

  const seq = (ss: Stmt[], f: Facts): Facts => {
    for (const s of ss) f = one(s, f);
    return f;
  };

  const loop = (s: Stmt, body: Stmt[], f: Facts, update: Stmt[], doFirst: boolean): Facts => {
    const t: FwdTarget = { label: 'label' in s ? s.label : undefined, loop: true, breaks: EMPTY, continues: EMPTY };
    targets.push(t);
    let head = cond(s, f);
    let exit: Facts = EMPTY;
    for (let iter = 0; iter < 1000; iter++) {
      t.breaks = EMPTY;
      t.continues = EMPTY;
      const bodyOut = seq(body, head);
      const afterUpd = seq(update, union(bodyOut, t.continues));
      const next = union(cond(s, f), cond(s, afterUpd));
      exit = doFirst ? union(afterUpd, t.breaks) : union(next, t.breaks);
      if (equal(next, head)) break;
      head = union(head, next);
    }
    targets.pop();
    return exit;
  };

  const one = (s: Stmt, f: Facts): Facts => {
    inOf.set(s, f);
    let out: Facts;
    switch (s.k) {
      case 'decl':
      case 'assign':
      case 'expr':
        out = transfer(s, f);
        break;
      case 'if':
        out = union(seq(s.then, cond(s, f)), seq(s.else, cond(s, f)));
        break;
      case 'for': {
        const afterInit = seq(s.init, f);
        out = loop(s, s.body, afterInit, s.update, false);
        break;
      }
      case 'while':
        out = loop(s, s.body, f, [], false);
        break;
      case 'do':
        out = loop(s, s.body, f, [], true);
        break;
      case 'block': {
        const t: FwdTarget = { label: s.label, loop: false, breaks: EMPTY, continues: EMPTY };
        targets.push(t);
        out = union(seq(s.body, f), t.breaks);
        targets.pop();
        break;
      }
      case 'switch': {
        const t: FwdTarget = { label: s.label, loop: false, breaks: EMPTY, continues: EMPTY };
        targets.push(t);
        const start = cond(s, f);
        let fall: Facts = EMPTY;
        for (const c of s.cases) fall = seq(c.body, union(start, fall));
        out = union(fall, t.breaks);
        if (!s.cases.some((c) => c.tests === null)) out = union(out, start);
        targets.pop();
        break;
      }
      case 'break': {
        const t = findTarget(s.label, false);
        if (t) t.breaks = union(t.breaks, f);
        out = EMPTY;
        break;
      }
      case 'continue': {
        const t = findTarget(s.label, true);
        if (t) t.continues = union(t.continues, f);
        out = EMPTY;
        break;
      }
      case 'return':
        returns = union(returns, transfer(s, f));
        out = EMPTY;
        break;
      case 'throw':
        out = EMPTY;
        break;
    }
    if (loopExit && (s.k === 'for' || s.k === 'while' || s.k === 'do')) out = loopExit(s, out);
    outOf.set(s, out);
    return out;
  };

  const end = seq(body, entry);
  return { inOf, outOf, boundary: union(end, returns) };
}

interface BwdTarget {
  label?: string;
  loop: boolean;
  breakOut: Facts;
  contIn: Facts;
}

/**
 * Backward may-analysis. `exit` holds at function exit (fall-through and after each return);
 * `transfer` maps the state after a simple statement (or a return) to the state before it.
 */
export function solveBackward(body: Stmt[], exit: Facts, transfer: Transfer): FlowResult {
  const inOf = new Map<Stmt, Facts>();
  const outOf = new Map<Stmt, Facts>();
  const targets: BwdTarget[] = [];

  const findTarget = (label: string | undefined, isContinue: boolean): BwdTarget | undefined => {
    for (let i = targets.length - 1; i >= 0; i--) {
      const t = targets[i];
      if (label ? t.label === label : isContinue ? t.loop : true) return t;
    }
    return undefined;
  };

  const seq = (ss: Stmt[], f: Facts): Facts => {
    for (let i = ss.length - 1; i >= 0; i--) f = one(ss[i], f);
    return f;
  };

  const one = (s: Stmt, after: Facts): Facts => {
    outOf.set(s, after);
    let before: Facts;
    switch (s.k) {
      case 'decl':
      case 'assign':
      case 'expr':
        before = transfer(s, after);
        break;
      case 'return':
        before = transfer(s, exit);
        break;
      case 'throw':
        before = EMPTY;
        break;
      case 'if':
        before = union(seq(s.then, after), seq(s.else, after));
        break;
      case 'while':
      case 'for':
      case 'do': {
        const t: BwdTarget = { label: s.label, loop: true, breakOut: after, contIn: EMPTY };
        targets.push(t);
        const update = s.k === 'for' ? s.update : [];
        // head: state before evaluating the condition (for/while) or before the body (do)
        let head: Facts = s.k === 'do' ? EMPTY : after;
        for (let iter = 0; iter < 1000; iter++) {
          let next: Facts;
          if (s.k === 'do') {
            const tail = union(after, head); // after body: condition true → head, false → exit
            t.contIn = tail;
            next = seq(s.body, tail);
          } else {
            t.contIn = seq(update, head);
            const bodyIn = seq(s.body, t.contIn);
            next = union(after, bodyIn);
          }
          if (equal(next, head)) break;
          head = union(head, next);
        }
        // final pass with the fixed point so per-statement records are final
        if (s.k === 'do') {
          t.contIn = union(after, head);
          seq(s.body, t.contIn);
        } else {
          t.contIn = seq(update, head);
          seq(s.body, t.contIn);
        }
        targets.pop();
        before = s.k === 'for' ? seq(s.init, head) : head;
        break;
      }
      case 'block': {
        const t: BwdTarget = { label: s.label, loop: false, breakOut: after, contIn: EMPTY };
        targets.push(t);
        before = seq(s.body, after);
        targets.pop();
        break;
      }
      case 'switch': {
        const t: BwdTarget = { label: s.label, loop: false, breakOut: after, contIn: EMPTY };
        targets.push(t);
        let fall = after;
        let all: Facts = s.cases.some((c) => c.tests === null) ? EMPTY : after;
        for (let i = s.cases.length - 1; i >= 0; i--) {
          fall = seq(s.cases[i].body, fall);
          all = union(all, fall);
        }
        targets.pop();
        before = all;
        break;
      }
      case 'break': {
        const t = findTarget(s.label, false);
        before = t ? t.breakOut : EMPTY;
        break;
      }
      case 'continue': {
        const t = findTarget(s.label, true);
        before = t ? t.contIn : EMPTY;
        break;
      }
    }
    inOf.set(s, before);
    return before;
  };

  const entry = seq(body, exit);
  return { inOf, outOf, boundary: entry };
}
