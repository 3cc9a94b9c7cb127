// References and lengths evaluated again at the start of a backward sweep (record.ts shapeDefAtEnd):
// a local holding a reference read from parameters (`const w = self.w`, `const b = a`) or a length
// (`const n = self.w.length`) is not handed over on the tape when nothing in the function stores a
// reference there or resizes the array. Each program is checked in every mode at a point (divided
// differences, the dot-product test); where the precondition fails the handover stays.
import { describe, expect, it } from 'vitest';
import { checkedCode } from './support/checked.js';

/** the code of a function of the generated module, from its signature to the next one */
function body(code: string, name: string): string {
  const at = code.indexOf(`function ${name}(`);
  const next = code.indexOf('\nexport function', at + 1);
  return code.slice(at, next < 0 ? undefined : next);
}

const CLASS = `class Lin {
  w: number[];
  v: number[];
  constructor(w: number[], v: number[]) {
    this.w = w.slice();
    this.v = v.slice();
  }
`;

describe('references and lengths evaluated again in the backward sweep', () => {
  it('a field reference and a length, the elements written: read again, not pushed', () => {
    const code = checkedCode(
      `${CLASS}
  apply(x: number[]): number {
    const w = this.w;
    const n = this.w.length;
    let s = 0;
    for (let j = 0; j < n; j++) {
      w[j] = w[j] * x[j];
      s += Math.sin(w[j]) * x[j];
    }
    return s;
  }
}
export function f(w: number[], v: number[], x: number[]): number {
  const l = new Lin(w, v);
  return l.apply(x) * l.apply(v);
}`,
      'f',
      [[0.3, -0.7, 1.1], [0.2, 0.5, -0.4], [0.9, 0.1, -0.6]],
    );
    const bwd = body(code, 'Lin_apply_bwd');
    expect(bwd).toMatch(/^\s*w = self\.w;/m);
    expect(bwd).toMatch(/^\s*n = self\.w\.length;/m);
    expect(body(code, 'Lin_apply_fwd')).not.toMatch(/pushR\(w\)/);
  });

  it('the field reassigned in the function: the reference is handed over', () => {
    const code = checkedCode(
      `${CLASS}
  swap(x: number[]): number {
    const w = this.w;
    this.w = this.v;
    this.v = w;
    let s = 0;
    for (let j = 0; j < w.length; j++) s += Math.sin(w[j] * x[j]) * this.w[j];
    return s;
  }
}
export function f(w: number[], v: number[], x: number[]): number {
  const l = new Lin(w, v);
  return l.swap(x) * l.swap(v);
}`,
      'f',
      [[0.3, -0.7, 1.1], [0.2, 0.5, -0.4], [0.9, 0.1, -0.6]],
    );
    expect(body(code, 'Lin_swap_bwd')).toMatch(/^\s*w = tape\.popR\(\);/m);
  });

  it('the array grown in the function: its length is handed over', () => {
    const code = checkedCode(
      `export function f(a: number[], x: number): number {
  const n = a.length;
  a.push(x * x);
  let s = 0;
  for (let j = 0; j < n; j++) s += a[j] * a[n];
  return s;
}`,
      'f',
      [[0.3, -0.7, 1.1], 0.8],
    );
    expect(body(code, 'f_bwd')).toMatch(/^\s*n = tape\.popF\(\);/m);
  });
});
