// Types from values (the runtime API types plain JavaScript from its arguments) and values from types
// (random arguments for `tsad --check` without --input).
import { printTy } from '../backend/print.js';
import type { Ty } from '../ir/types.js';
import { rng } from './values.js';

/** The TypeScript type of a runtime value, or null if tsad cannot differentiate through it. */
export function tyOfValue(v: unknown): Ty | null {
  if (typeof v === 'number') return { k: 'num' };
  if (typeof v === 'boolean') return { k: 'bool' };
  if (typeof v === 'string') return { k: 'str', lits: [] };
  if (v instanceof Float64Array) return { k: 'arr', elem: { k: 'num' }, typed: true, ro: false };
  if (Array.isArray(v)) {
    if (v.length === 0) return { k: 'arr', elem: { k: 'num' }, typed: false, ro: false };
    const e = tyOfValue(v[0]);
    if (!e) return null;
    const s = JSON.stringify(e);
    for (const x of v) {
      const t = tyOfValue(x);
      if (!t || JSON.stringify(t) !== s) return null;
    }
    return { k: 'arr', elem: e, typed: false, ro: false };
  }
  if (typeof v === 'object' && v !== null) {
    const fields = [];
    for (const k of Object.keys(v)) {
      const t = tyOfValue((v as Record<string, unknown>)[k]);
      if (!t) return null;
      fields.push({ name: k, ty: t });
    }
    return { k: 'obj', name: null, fields };
  }
  return null;
}

export function typeText(t: Ty): string {
  if (t.k === 'obj' && !t.name) return `{ ${t.fields.map((f) => `${f.name}: ${typeText(f.ty)}`).join('; ')} }`;
  if (t.k === 'arr' && !t.typed) {
    const el = typeText(t.elem);
    return /[ |{]/.test(el) ? `(${el})[]` : `${el}[]`;
  }
  return printTy(t);
}

/** A shape signature for caching compiled code per argument shapes. */
export function shapeKey(v: unknown): string {
  if (typeof v === 'number') return 'n';
  if (typeof v === 'boolean') return 'b';
  if (typeof v === 'string') return 's';
  if (v instanceof Float64Array) return `F${v.length}`;
  if (Array.isArray(v)) return `[${v.length}:${v.length ? shapeKey(v[0]) : ''}]`;
  if (typeof v === 'object' && v !== null) return `{${Object.keys(v).map((k) => `${k}:${shapeKey((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return typeof v;
}

/** Random arguments of the given types: numbers in [0.5, 1.5], arrays of length 4. */
export function randomArgs(types: Ty[], seed: number): unknown[] {
  const r = rng(seed);
  const draw = (t: Ty): unknown => {
    switch (t.k) {
      case 'num':
      case 'int':
        return 0.5 + r();
      case 'bool':
        return false;
      case 'str':
        return t.lits[0] ?? '';
      case 'arr':
        if (t.typed) return Float64Array.from({ length: 4 }, () => 0.5 + r());
        return Array.from({ length: 4 }, () => draw(t.elem));
      case 'tuple':
        return t.elems.map(draw);
      case 'obj': {
        const o: Record<string, unknown> = {};
        for (const f of t.fields) o[f.name] = draw(f.ty);
        return o;
      }
      default:
        return undefined;
    }
  };
  return types.map(draw);
}
