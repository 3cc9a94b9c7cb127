// Number fields no backward sweep reads are not restored for callers (src/transform/adjoint/field-reads.ts):
// a method accumulating a force into `fx` pushes nothing when the force enters the rest only linearly
// with passive factors, and still does when some backward sweep reads it (the step size active).
import { describe, expect, it } from 'vitest';
import { compile } from '../src/api/compile.js';
import { checkCompiled } from '../src/api/check.js';

const SRC = `
class Body {
  fx = 0;
  constructor(public x: number, public v: number) {}
  push(f: number): void { this.fx += f * this.x; }
  clear(): void { this.fx = 0; }
  step(h: number): void { this.v += h * this.fx; this.x += h * this.v; }
}
export function run(x0: number[], v0: number[], k: number, h: number): number {
  const bs: Body[] = [];
  for (let i = 0; i < x0.length; i++) bs.push(new Body(x0[i], v0[i]));
  for (let s = 0; s < 4; s++) {
    for (const b of bs) b.clear();
    for (const b of bs) for (const c of bs) b.push(-k * Math.sin(c.x));
    for (const b of bs) b.step(h);
  }
  let e = 0;
  for (const b of bs) e += b.x * b.x + b.v * b.v * b.x;
  return e;
}
`;
const ARGS = [[0.3, -0.8, 1.1], [0.2, 0.5, -0.4], 0.7, 0.1];

function compiled(wrt: string[]) {
  const r = compile(SRC, { head: 'run', wrt, js: true, runtimeImport: null });
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r;
}

describe('number fields no backward sweep reads', () => {
  it('are not pushed when only linear with passive factors, and the gradient is exact', () => {
    const r = compiled(['x0', 'v0', 'k']);
    expect(r.code).not.toMatch(/pushF\(self\.fx\)/);
    expect(checkCompiled(r, r.code, 'run', ARGS).ok).toBe(true);
  });
  it('are still pushed when a backward sweep reads them (h active: its adjoint reads fx)', () => {
    const r = compiled(['x0', 'v0', 'k', 'h']);
    expect(r.code).toMatch(/pushF\(self\.fx\)/);
    expect(checkCompiled(r, r.code, 'run', ARGS).ok).toBe(true);
  });
});
