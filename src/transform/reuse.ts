// Reusing a function's derivatives from an earlier compile (issue 21: a recompile after a one-function
// edit). A derivative is kept under a key made of everything its building can read, and handed out again
// when a later compile makes the same key:
//  - the function itself and every function it calls, transitively (their IR, which calls, inlining and
//    callee summaries reach through), each with its activity context (activity is interprocedural: a
//    caller's edit reaches its callees through their contexts, and the context with the IR determines
//    the function's whole activity);
//  - the program's facts that span functions: options and naming, the head and its independents, the
//    module's names and order, every signature, the writes, tapes, called names, scratch fields and
//    slot writes, the constants and types.
// The key is conservative: a function that cannot be keyed (in a recursion, whose results depend on
// which function of the cycle was asked first) is built every time. A stale derivative would be a
// silent wrong answer, so when in doubt the key says "different".
//
// Two effects of a build outlive it and are replayed on reuse: the function's number-field reads
// (ProgramInfo.fieldReads, read by compile.ts) and the generated function names it asked for (which
// depend on the order of asking only when two of them collide; compile.ts then compiles again without
// reuse: see ProgramInfo.renamedAny).
import { callSites } from '../analysis/activity.js';
import { computeSlotWrites } from '../analysis/slot-writes.js';
import { scratchFields } from '../analysis/scratch-fields.js';
import { ruleFunctions } from '../frontend/custom-derivatives.js';
import type { Func } from '../ir/types.js';
import type { ProgramInfo } from './context.js';
import type { FieldReads } from './adjoint/field-reads.js';

interface Entry {
  value: unknown;
  /** the generated names asked for while building, in order: [function, suffix, name given] */
  names: [string, string, string][];
  /** what the build left in ProgramInfo.fieldReads for the function, if anything */
  fieldReads: FieldReads | undefined;
  /** the function's key, less the kind */
  key: string;
}

const store = new Map<string, Entry>();
/**
 * the compile that last used each function's key, in any kind: a callee summary is asked only when a
 * caller is built again, which may be many compiles after its last use, while the function's derivative
 * (same key) is taken every compile; the summary lives as long as the derivative does
 */
const keyUsed = new Map<string, number>();
let generation = 0;
let enabled = true;
/** the programs of the current compile that took something from the store */
let hitIn = new Set<ProgramInfo>();
/** how many derivatives the current compile took from the store, and the last one finished */
let hits = 0;
let lastHits = 0;

/** Starts a compile: `reuse` false builds everything (and keeps what it builds for the next compile). */
export function beginCompile(reuse: boolean): void {
  generation++;
  enabled = reuse;
  hitIn = new Set();
  hits = 0;
}

/**
 * Ends a compile: what neither it nor the one before used (in any kind) is dropped. Returns false when the compile
 * must be done again without reuse: it reused something in a program whose generated names collided
 * (which of them got the plain name depends on the order of asking, which reuse changes).
 */
export function endCompile(): boolean {
  for (const [k, used] of keyUsed) if (used < generation - 1) keyUsed.delete(k);
  for (const [k, e] of store) if (!keyUsed.has(e.key)) store.delete(k);
  enabled = true;
  const sound = ![...hitIn].some((info) => info.renamedAny());
  hitIn = new Set();
  lastHits = hits;
  return sound;
}

/** how many derivatives (and callee summaries) the last compile took from an earlier one (tests, benchmarks) */
export function reusedInLastCompile(): number {
  return lastHits;
}

/** Forgets every kept derivative (benchmarks timing a cold compile). */
export function forgetReusedDerivatives(): void {
  store.clear();
  keyUsed.clear();
}

/**
 * `build()`'s result for function `name` of `info`, or the one an earlier compile built under the same
 * key. `kind` names what is built (a mode, a summary): one key per kind.
 */
export function reused<T>(info: ProgramInfo, name: string, kind: string, build: () => T): T {
  const key = keyOf(info, name);
  if (key === null) return build();
  const full = `${kind}\u0000${key}`;
  keyUsed.set(key, generation);
  const hit = enabled ? store.get(full) : undefined;
  if (hit && hit.names.every(([f, s, n]) => info.generatedName(f, s) === n)) {
    hitIn.add(info);
    hits++;
    if (hit.fieldReads !== undefined) info.fieldReads.set(name, hit.fieldReads);
    return hit.value as T;
  }
  const names: [string, string, string][] = [];
  const value = info.watchGeneratedNames((f, s, n) => names.push([f, s, n]), build);
  store.set(full, { value, names, fieldReads: info.fieldReads.get(name), key });
  return value;
}

// ---------- keys ----------

interface Keys {
  program: string;
  funcs: Map<string, string | null>;
  cones: Map<string, string | null>;
  /** each function's direct callees and rule functions (a cone walks them once per function it holds) */
  direct: Map<string, string[]>;
}

const keys = new WeakMap<ProgramInfo, Keys>();

function keyOf(info: ProgramInfo, name: string): string | null {
  let k = keys.get(info);
  if (!k) keys.set(info, (k = { program: programKey(info), funcs: new Map(), cones: new Map(), direct: new Map() }));
  const known = k.cones.get(name);
  if (known !== undefined) return known;
  const cone = calleesOf(info, name, k.direct);
  let key: string | null = null;
  if (cone) {
    const parts = [k.program];
    for (const m of cone) {
      let h = k.funcs.get(m);
      if (h === undefined) k.funcs.set(m, (h = funcKey(info, m)));
      if (h === null) {
        parts.length = 0;
        break;
      }
      parts.push(`${m}=${h}`);
    }
    key = parts.length ? `${name}\u0000${hash(parts.join('\u0001'))}` : null;
  }
  k.cones.set(name, key);
  return key;
}

/** `name` and the functions it calls (or whose rules it uses), transitively, sorted; null in a recursion */
function calleesOf(info: ProgramInfo, name: string, direct: Map<string, string[]>): string[] | null {
  const seen = new Set<string>();
  const onPath = new Set<string>();
  let cyclic = false;
  const visit = (n: string) => {
    if (onPath.has(n)) cyclic = true;
    if (seen.has(n) || cyclic) return;
    seen.add(n);
    onPath.add(n);
    directCallees(info, n, direct).forEach(visit);
    onPath.delete(n);
  };
  visit(name);
  return cyclic ? null : [...seen].sort();
}

/** the functions `name` calls and whose rules it uses, in the order met (empty for no function) */
function directCallees(info: ProgramInfo, name: string, direct: Map<string, string[]>): string[] {
  let out = direct.get(name);
  if (out) return out;
  out = [];
  const f = info.mod.funcs.get(name);
  if (f) {
    for (const site of callSites(f)) for (const c of site.calls) out.push(c.fn);
    out.push(...ruleFunctions(f));
  }
  direct.set(name, out);
  return out;
}

/** a function's IR and its activity context; null if it cannot be written out */
function funcKey(info: ProgramInfo, name: string): string | null {
  const f: Func | undefined = info.mod.funcs.get(name);
  const fa = info.act(name);
  try {
    return `${f ? irKey(f) : 'none'}:${digest(fa ? fa.ctx : null)}`;
  } catch {
    return null;
  }
}

/** by function object: the program the adjoint works on shares most of them with the tangents' */
const irKeys = new WeakMap<Func, string>();

function irKey(f: Func): string {
  let k = irKeys.get(f);
  if (k === undefined) irKeys.set(f, (k = digest(f)));
  return k;
}

/** the facts of the program that span its functions */
function programKey(info: ProgramInfo): string {
  const mod = info.mod;
  const called = new Set<string>();
  for (const n of mod.order) for (const site of callSites(mod.funcs.get(n)!)) for (const c of site.calls) called.add(c.fn);
  return digest({
    options: info.options,
    naming: info.naming,
    head: info.head,
    independents: [...info.independents].sort(),
    moduleNames: [...info.moduleNames],
    order: mod.order,
    failed: [...mod.failed.keys()],
    globals: mod.globals,
    types: mod.types,
    sigs: info.sigs,
    writes: info.activity.writes,
    refTapes: info.refTapes,
    idleTapes: info.idleTapes,
    unreadNumberFields: info.unreadNumberFields,
    elidedScratch: [...info.elidedScratch].sort(),
    called,
    scratch: scratchFields(mod),
    slotWrites: computeSlotWrites(mod),
  });
}

/**
 * A digest of `value` as JSON would write it, keeping what JSON drops (Maps, Sets, NaN, infinities and
 * -0): the value is walked once and its parts fed to the hash as they are met, with no text made
 * (the keys digest whole functions' IR). Like JSON, object properties holding undefined or a function
 * are left out, and object keys are taken in their own order.
 */
function digest(value: unknown): string {
  const d = new Digest();
  d.value(value);
  return d.result();
}

/**
 * two independent 53-bit hashes (cyrb53 with two seeds) of a stream of characters, as one key: 106 bits
 * against chance collisions. Every part is written with a tag and strings with their length, so that
 * two different values cannot give the same stream.
 */
class Digest {
  private a1 = 0xdeadbeef ^ 0x9e3779b9;
  private a2 = 0x41c6ce57 ^ 0x9e3779b9;
  private b1 = 0xdeadbeef ^ 0x85ebca6b;
  private b2 = 0x41c6ce57 ^ 0x85ebca6b;
  private n = 0;

  private code(c: number): void {
    this.a1 = Math.imul(this.a1 ^ c, 2654435761);
    this.a2 = Math.imul(this.a2 ^ c, 1597334677);
    this.b1 = Math.imul(this.b1 ^ c, 2654435761);
    this.b2 = Math.imul(this.b2 ^ c, 1597334677);
    this.n++;
  }

  /** code() of each character, the states held in locals meanwhile (the keys digest every function's IR) */
  private chars(s: string): void {
    let a1 = this.a1,
      a2 = this.a2,
      b1 = this.b1,
      b2 = this.b2;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      a1 = Math.imul(a1 ^ c, 2654435761);
      a2 = Math.imul(a2 ^ c, 1597334677);
      b1 = Math.imul(b1 ^ c, 2654435761);
      b2 = Math.imul(b2 ^ c, 1597334677);
    }
    this.a1 = a1;
    this.a2 = a2;
    this.b1 = b1;
    this.b2 = b2;
    this.n += s.length;
  }

  /** a string: its length, then its characters */
  text(s: string): void {
    this.code(0x73); // 's'
    this.code(s.length & 0xffff);
    this.code(s.length >>> 16);
    this.chars(s);
  }

  value(v: unknown): void {
    switch (typeof v) {
      case 'string':
        return this.text(v);
      case 'number':
        this.code(0x6e); // 'n'
        this.chars(Object.is(v, -0) ? '-0' : String(v));
        this.code(0x3b); // ';'
        return;
      case 'boolean':
        return this.code(v ? 0x74 : 0x66);
      case 'object':
        break;
      case 'undefined':
      case 'function':
      case 'symbol':
        // (in an array JSON writes null; a top-level one has no text)
        return this.code(0x7a);
      default:
        // (JSON throws on a bigint: so does the key, and the function is not reused)
        throw new TypeError(`cannot digest a ${typeof v}`);
    }
    if (v === null) return this.code(0x7a);
    if (Array.isArray(v)) {
      this.code(0x5b); // '['
      for (const x of v) this.value(x);
      return this.code(0x5d);
    }
    if (v instanceof Map) {
      this.code(0x4d); // 'M'
      for (const [k, x] of v) {
        this.code(0x2c);
        this.value(k);
        this.value(x);
      }
      return this.code(0x5d);
    }
    if (v instanceof Set) {
      this.code(0x53); // 'S'
      for (const x of v) this.value(x);
      return this.code(0x5d);
    }
    this.code(0x7b); // '{'
    const o = v as Record<string, unknown>;
    for (const k in o) {
      if (!Object.hasOwn(o, k)) continue;
      const x = o[k];
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
      this.text(k);
      this.value(x);
    }
    this.code(0x7d);
  }

  result(): string {
    return `${cyrb53Final(this.a1, this.a2)}.${cyrb53Final(this.b1, this.b2)}.${this.n.toString(36)}`;
  }
}

/** the digest of a string's characters */
function hash(s: string): string {
  const d = new Digest();
  d.text(s);
  return d.result();
}

/**
 * cyrb53's final mixing of its two 32-bit states into 53 bits, written as eleven base-32 digits (53-bit
 * numbers have no fast path to text: toString(36) took most of a recompile's keying)
 */
function cyrb53Final(h1: number, h2: number): string {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  // (the high 21 bits from h2 in five digits, then h1's 32 bits in seven: a fixed width, so one text per number)
  const hi = 2097151 & h2;
  const lo = h1 >>> 0;
  let out = '';
  for (let k = 20; k >= 0; k -= 5) out += DIGITS[(hi >>> k) & 31];
  for (let k = 30; k >= 0; k -= 5) out += DIGITS[(lo >>> k) & 31];
  return out;
}

const DIGITS = '0123456789abcdefghijklmnopqrstuv';
