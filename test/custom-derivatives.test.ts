// Hand-written derivatives and passive functions (src/frontend/custom-derivatives.ts,
// src/transform/custom.ts): the three forms, every mode and refinement level, the modes a rule alone
// gives, validation by checkCompiled and the runtime API's self-check (a wrong rule is caught, a right
// one passes), black boxes, located diagnostics, and differentiating the generated code again.
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { compile, type CompileOptions } from '../src/api/compile.js';
import { loadGenerated } from '../src/api/load.js';
import { grad, jacobian, jvp } from '../src/api/runtime.js';

const DOT_RULES = `
export function wasmDot_jvp(a: Float64Array, ad: Float64Array, b: Float64Array, bd: Float64Array): [number, number] {
  let s = 0, sd = 0;
  for (let i = 0; i < a.length; i++) { s += a[i] * b[i]; sd += ad[i] * b[i] + a[i] * bd[i]; }
  return [s, sd];
}
export function wasmDot_vjp(a: Float64Array, ab: Float64Array, b: Float64Array, bb: Float64Array, yb: number): void {
  for (let i = 0; i < a.length; i++) { ab[i] += b[i] * YB; bb[i] += a[i] * yb; }
}
`;
const USER = `
export function energy(x: Float64Array, w: Float64Array, s: number): number {
  let e = 0;
  for (let k = 0; k < 3; k++) {
    e += Math.sin(s * k) * wasmDot(x, w);
    x[k] = x[k] * 0.5 + e;        // overwritten after the call: the adjoint must restore x for the rule
  }
  return e * wasmDot(x, x);
}
`;
const blackBox = (yb = 'yb') => `declare function wasmDot(a: Float64Array, b: Float64Array): number;\n${DOT_RULES.replace('YB', yb)}${USER}`;
const wasmDot = (a: Float64Array, b: Float64Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
/** where the first call of wasmDot in the head is (1-based) */
const firstCall = (src: string) => {
  const lines = src.split('\n');
  const line = lines.findIndex((l) => l.includes('* wasmDot(x, w)'));
  return { line: line + 1, col: lines[line].indexOf('wasmDot(x, w)') + 1 };
};
const ARGS = () => [Float64Array.from([1, 2, 3]), Float64Array.from([0.5, -1, 2]), 0.3];

function checked(src: string, opts: Partial<CompileOptions> = {}, scope: Record<string, unknown> = { wasmDot }) {
  const r = compile(src, { head: 'energy', js: true, runtimeImport: null, ...opts });
  expect(r.diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`)).toEqual([]);
  const m = loadGenerated(r.code, r.runtimeNames);
  m.__bindScope?.(scope);
  return { r, m, report: checkCompiled(r, m, opts.head ?? 'energy', ARGS()) };
}

describe('a black box with companion rules', () => {
  const levels: [string, CompileOptions['adjoint']][] = [
    ['default', {}],
    ['naive (no TBR)', { tbr: false }],
    ['joint mode', { checkpointCalls: true }],
    ['no primal results', { primalResults: false }],
    ['no merging', { merge: false, recompute: false }],
  ];
  for (const [name, adjoint] of levels)
    it(`passes divided differences and the dot-product test (${name})`, () => {
      const { report } = checked(blackBox(), { adjoint });
      expect(report.messages).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.accuracy.dot).toBeGreaterThan(12);
    });

  it('a wrong adjoint rule is caught by the dot-product test', () => {
    const { report } = checked(blackBox('2 * yb'));
    expect(report.ok).toBe(false);
    expect(report.messages.join()).toMatch(/dot-product test/);
  });

  it('the generated TypeScript declares the black box and calls the rules', () => {
    const r = compile(blackBox(), { head: 'energy' });
    expect(r.diagnostics).toEqual([]);
    expect(r.code).toContain('declare function wasmDot(a: Float64Array, b: Float64Array): number;');
    expect(r.code).toMatch(/export function wasmDot_d\(a: Float64Array, ad: Float64Array, b: Float64Array, bd: Float64Array\): \[number, number\] \{\n  return wasmDot_jvp\(a, ad, b, bd\);/);
    expect(r.code).toMatch(/export function wasmDot_bwd\([^)]*resultb: number\): void \{\n  wasmDot_vjp\(a, ab, b, bb, resultb\);/);
  });
});

describe('the three forms give one rule', () => {
  const body = `export function sp(u: number, t: number): number { return t * Math.log1p(Math.exp(u / t)); }`;
  const rules = (tan: string, adj: string) => `
export function ${tan}(u: number, ud: number, t: number, td: number): [number, number] {
  const z = u / t, s = 1 / (1 + Math.exp(-z)), y = t * Math.log1p(Math.exp(z));
  return [y, s * ud + (y / t - s * z) * td];
}
export function ${adj}(u: number, t: number, yb: number): [number, number] {
  const z = u / t, s = 1 / (1 + Math.exp(-z)), y = t * Math.log1p(Math.exp(z));
  return [s * yb, (y / t - s * z) * yb];
}`;
  const head = `export function energy(x: Float64Array, w: Float64Array, s: number): number {
  let e = 0;
  for (let i = 0; i < x.length; i++) e += sp(x[i] * w[i], 0.5 + s * s);
  return e;
}`;
  const forms: [string, string, Partial<CompileOptions>][] = [
    ['companion', `${body}\n${rules('sp_jvp', 'sp_vjp')}\n${head}`, {}],
    ['directive', `// $ad custom-derivative tangent=spT adjoint=spA\n${body}\n${rules('spT', 'spA')}\n${head}`, {}],
    ['option', `${body}\n${rules('spT', 'spA')}\n${head}`, { customDerivatives: { sp: { tangent: 'spT', adjoint: 'spA' } } }],
  ];
  for (const [name, src, opts] of forms)
    it(`${name}: the derivatives call the rule, and pass the checks`, () => {
      const { r, report } = checked(src, opts);
      expect(r.code).toMatch(/hand-written tangent rule/);
      expect(report.ok).toBe(true);
    });

  it('the option with rules bound at run time (functions that are not in the source)', () => {
    const src = `declare function wasmDot(a: Float64Array, b: Float64Array): number;\n${USER}`;
    const dotT = (a: Float64Array, ad: Float64Array, b: Float64Array, bd: Float64Array) => [wasmDot(a, b), wasmDot(ad, b) + wasmDot(a, bd)];
    const dotA = (a: Float64Array, ab: Float64Array, b: Float64Array, bb: Float64Array, yb: number) => {
      for (let i = 0; i < a.length; i++) {
        ab[i] += b[i] * yb;
        bb[i] += a[i] * yb;
      }
    };
    const { report } = checked(src, { customDerivatives: { wasmDot: { tangent: 'dotT', adjoint: 'dotA' } } }, { wasmDot, dotT, dotA });
    expect(report.ok).toBe(true);
  });
});

describe('which modes a rule alone gives', () => {
  const tangentOnly = `declare function wasmDot(a: Float64Array, b: Float64Array): number;\n${DOT_RULES.replace('YB', 'yb').replace('wasmDot_vjp', 'unrelated')}${USER}`;
  const adjointOnly = (yb: string) => `declare function wasmDot(a: Float64Array, b: Float64Array): number;\n${DOT_RULES.replace('YB', yb).replace('wasmDot_jvp', 'unrelated')}${USER}`;

  it('a tangent rule alone refuses reverse mode, at the call', () => {
    const r = compile(tangentOnly, { head: 'energy' });
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject(firstCall(tangentOnly));
    expect(r.diagnostics[0].message).toMatch(/'wasmDot' has a hand-written tangent rule \(wasmDot_jvp\) but no adjoint rule: reverse mode/);
    expect(r.diagnostics[0].hint).toMatch(/--mode tangent,vector/);
  });
  it('a tangent rule alone gives the forward modes, checked against divided differences', () => {
    const { report } = checked(tangentOnly, { modes: ['tangent', 'vector'] });
    expect(report.ok).toBe(true);
  });
  it('an adjoint rule alone refuses the forward modes, at the call', () => {
    const r = compile(adjointOnly('yb'), { head: 'energy', modes: ['tangent'] });
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject(firstCall(adjointOnly('yb')));
    expect(r.diagnostics[0].message).toBe("'wasmDot' has a hand-written adjoint rule (wasmDot_vjp) but no tangent rule: the forward modes cannot differentiate calls of it");
  });
  it('an adjoint rule alone gives reverse mode, checked against divided differences; a wrong one fails', () => {
    expect(checked(adjointOnly('yb'), { modes: ['reverse'] }).report.ok).toBe(true);
    const bad = checked(adjointOnly('1.01 * yb'), { modes: ['reverse'] }).report;
    expect(bad.ok).toBe(false);
    expect(bad.messages.join()).toMatch(/adjoint against divided differences/);
  });
});

describe('passive functions', () => {
  const src = `
// $ad passive
export function jitter(v: number): number { return Math.sin(1000 * v) * 0.01; }
export function energy(x: Float64Array, w: Float64Array, s: number): number {
  let e = 0;
  for (let i = 0; i < x.length; i++) e += x[i] * w[i] * (1 + jitter(x[i] * s));
  return e;
}`;
  it('the result of a passive call is a constant for every mode (a stop-gradient)', () => {
    const r = compile(src, { head: 'energy', js: true, runtimeImport: null, wrt: ['x'] });
    expect(r.diagnostics).toEqual([]);
    expect(r.code).not.toMatch(/jitter_d|jitter_b/);
    const m = loadGenerated(r.code, r.runtimeNames);
    const [x, w, s] = ARGS() as [Float64Array, Float64Array, number];
    const want = Array.from(x, (xi, i) => w[i] * (1 + Math.sin(1000 * xi * s) * 0.01));
    const xb = new Float64Array(3);
    m.energy_b(x, xb, w, s, 1);
    expect(Array.from(xb)).toEqual(want);
    const [, t] = m.energy_d(x, Float64Array.from([1, 0, 0]), w, s) as [number, number];
    expect(t).toBe(want[0]);
  });
  it('the option marks a function passive too', () => {
    const r = compile(src.replace('// $ad passive', ''), { head: 'energy', customDerivatives: { jitter: { passive: true } } });
    expect(r.code).not.toMatch(/jitter_d/);
  });
});

describe('located diagnostics', () => {
  const cases: { name: string; src: string; opts?: Partial<CompileOptions>; at: [number, number]; message: RegExp }[] = [
    {
      name: 'a black box without a rule called in differentiated code',
      src: 'declare function bb(x: number): number;\nexport function f(x: number): number {\n  return 2 * bb(x);\n}\n',
      at: [3, 14],
      message: /'bb' is declared without a body: tsad cannot differentiate calls of it/,
    },
    {
      name: 'a rule with the wrong signature',
      src: 'export function g(x: number, v: number[]): number { return x * v[0]; }\nexport function g_jvp(x: number, xd: number, v: number[]): [number, number] { return [0, 0]; }\nexport function f(x: number): number {\n  return g(x, [x]);\n}\n',
      at: [2, 1],
      message: /the tangent rule 'g_jvp' of 'g' has the signature g_jvp\(x: number, xd: number, v: number\[\]\): \[number, number\]/,
    },
    {
      name: 'a passive function writing into an argument',
      src: '// $ad passive\nexport function fill(v: number[]): number { v[0] = 1; return 0; }\nexport function f(x: number): number {\n  const a = [x];\n  return fill(a) + a[0];\n}\n',
      at: [2, 1],
      message: /the passive function 'fill' writes into its argument 'v'/,
    },
    {
      name: 'a rule on a function returning an array',
      src: '// $ad custom-derivative tangent=gT\nexport function g(x: number): number[] { return [x]; }\nexport function gT(x: number, xd: number): [number, number] { return [x, xd]; }\nexport function f(x: number): number {\n  return g(x)[0];\n}\n',
      at: [2, 1],
      message: /'g' has a hand-written derivative \(its '\$ad' directive\), but returns number\[\], not a number/,
    },
    {
      name: 'an unreadable directive',
      src: '// $ad custom-derivative tangent:gT\nexport function g(x: number): number { return x; }\nexport function f(x: number): number {\n  return g(x);\n}\n',
      at: [2, 1],
      message: /'\$ad custom-derivative' on 'g': cannot read 'tangent:gT'/,
    },
    {
      name: 'a directive naming a rule that does not exist',
      src: '// $ad custom-derivative adjoint=gA\nexport function g(x: number): number { return x; }\nexport function f(x: number): number {\n  return g(x);\n}\n',
      at: [2, 1],
      message: /the adjoint rule 'gA' of 'g' is not a function of the compilation/,
    },
    {
      name: 'two different rules',
      src: '// $ad passive\nexport function g(x: number): number { return x; }\nexport function g_jvp(x: number, xd: number): [number, number] { return [x, xd]; }\nexport function f(x: number): number {\n  return g(x);\n}\n',
      at: [2, 1],
      message: /'g' has two different derivative rules \(directive and companion\)/,
    },
    {
      name: 'the option naming a function that is not in the input',
      src: 'export function f(x: number): number {\n  return x;\n}\n',
      opts: { customDerivatives: { nope: { passive: true } } },
      at: [1, 1],
      message: /customDerivatives names 'nope', which is not a function of the compilation/,
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const r = compile(c.src, { head: 'f', ...c.opts });
      expect(r.diagnostics).toHaveLength(1);
      const d = r.diagnostics[0];
      expect([d.line, d.col]).toEqual(c.at);
      expect(d.message).toMatch(c.message);
      expect(d.hint).toBeTruthy();
    });

  it('a black box called only with passive arguments needs no rule', () => {
    const r = compile('declare function seedOf(k: number): number;\nexport function f(x: number): number {\n  return x * seedOf(3);\n}\n', { head: 'f' });
    expect(r.diagnostics).toEqual([]);
  });
  it('a misshapen option is a TypeError saying what to pass', () => {
    expect(() => compile('export function f(x: number): number { return x; }', { head: 'f', customDerivatives: { f: { tangent: 3 } } as never })).toThrow(/entry 'f' has 'tangent': a function name is expected/);
  });
});

describe('the runtime API', () => {
  const dot = (a: number[], b: number[]) => {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += a[i] * b[i];
    return s;
  };
  const dotTangent = (a: number[], ad: number[], b: number[], bd: number[]) => [dot(a, b), dot(ad, b) + dot(a, bd)];
  const dotAdjoint = (k: number) => (a: number[], ab: number[], b: number[], bb: number[], yb: number) => {
    for (let i = 0; i < a.length; i++) {
      ab[i] += b[i] * yb;
      bb[i] += k * a[i] * yb;
    }
  };
  const f = (x: number[], w: number[]) => {
    let e = 0;
    for (let k = 0; k < 3; k++) e += Math.sin(k * x[0]) * dot(x, w);
    return e;
  };
  const x = [1, 2, 3], w = [0.5, -1, 2];
  const plain = grad(f, { scope: { dot }, wrt: [0, 1] })(x, w) as number[][];

  it('uses the rules, and agrees with differentiating the helper', () => {
    const g = grad(f, { scope: { dot }, customDerivatives: { dot: { tangent: dotTangent, adjoint: dotAdjoint(1) } }, wrt: [0, 1] })(x, w) as number[][];
    g.flat().forEach((v, i) => expect(v).toBeCloseTo(plain.flat()[i], 12));
  });
  it('the first-call self-check catches a wrong adjoint rule', () => {
    expect(() => grad(f, { scope: { dot }, customDerivatives: { dot: { tangent: dotTangent, adjoint: dotAdjoint(2) } }, wrt: [0, 1] })(x, w)).toThrow(/self-check failed[\s\S]*hand-written rule/);
  });
  it('the first-call self-check catches rules wrong the same way in both modes (they pass the dot-product test): divided differences', () => {
    const twiceTangent = (a: number[], ad: number[], b: number[], bd: number[]) => [dot(a, b), 2 * (dot(ad, b) + dot(a, bd))];
    const twiceAdjoint = (a: number[], ab: number[], b: number[], bb: number[], yb: number) => dotAdjoint(1)(a, ab, b, bb, 2 * yb);
    expect(() => grad(f, { scope: { dot }, customDerivatives: { dot: { tangent: twiceTangent, adjoint: twiceAdjoint } }, wrt: [0, 1] })(x, w)).toThrow(/not with central divided differences[\s\S]*hand-written rule/);
  });
  it('an adjoint rule alone: grad and jacobian work, checked against divided differences; a wrong one is caught', () => {
    const g = grad(f, { scope: { dot }, customDerivatives: { dot: { adjoint: dotAdjoint(1) } }, wrt: [0, 1] })(x, w) as number[][];
    g.flat().forEach((v, i) => expect(v).toBeCloseTo(plain.flat()[i], 12));
    expect(jacobian(f, { scope: { dot }, customDerivatives: { dot: { adjoint: dotAdjoint(1) } } })(x, w)[0][1]).toBeCloseTo(plain[0][1], 12);
    expect(() => grad(f, { scope: { dot }, customDerivatives: { dot: { adjoint: dotAdjoint(1.5) } }, wrt: [0, 1] })(x, w)).toThrow(/disagrees with divided differences/);
    expect(() => jvp(f, [x, w], [[1, 0, 0]], { scope: { dot }, customDerivatives: { dot: { adjoint: dotAdjoint(1) } } })).toThrow(/has no tangent/);
  });
  it('a native function with rules is a black box', () => {
    const hyp = Math.hypot;
    const g = (a: number, b: number) => hyp(a, b) * a;
    const rules = {
      tangent: (a: number, ad: number, b: number, bd: number) => [Math.hypot(a, b), (a * ad + b * bd) / Math.hypot(a, b)],
      adjoint: (a: number, b: number, yb: number) => [(a / Math.hypot(a, b)) * yb, (b / Math.hypot(a, b)) * yb],
    };
    const [ga, gb] = grad(g, { scope: { hyp }, customDerivatives: { hyp: rules }, wrt: [0, 1] })(3, 4) as number[];
    expect(ga).toBeCloseTo(5 + 9 / 5, 14);
    expect(gb).toBeCloseTo(12 / 5, 14);
  });
  it('a passive helper', () => {
    const noise = (i: number) => Math.sin(i * 1000);
    const h = (v: number) => v * v * (1 + 0.01 * noise(v));
    expect(grad(h, { scope: { noise }, customDerivatives: { noise: { passive: true } } })(3)).toBeCloseTo(6 * (1 + 0.01 * Math.sin(3000)), 14);
  });
  it('a misshapen entry is a TypeError', () => {
    expect(() => grad(f, { scope: { dot }, customDerivatives: { dotx: { passive: true } } } as never)).toThrow(/names 'dotx', which is not a function in scope/);
  });
});

describe('differentiating the generated code again', () => {
  const src = `export function sp(u: number): number { return Math.log1p(Math.exp(u)); }
export function sp_jvp(u: number, ud: number): [number, number] { return [Math.log1p(Math.exp(u)), ud / (1 + Math.exp(-u))]; }
export function sp_vjp(u: number, yb: number): number { return yb / (1 + Math.exp(-u)); }
export function g(x: number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += sp(x[i] * x[i]);
  return s;
}
`;
  it('forward over the tangent and over the adjoint pass the checks (the rules have bodies)', () => {
    const first = compile(src, { head: 'g' });
    expect(first.diagnostics).toEqual([]);
    const x = [0.3, -0.7];
    for (const [head, wrt, of, args] of [
      ['g_d', ['x', 'xd'], ['return'], [x, [1, 0.5]]],
      ['g_b', ['x'], ['xb'], [x, [0, 0], 1]],
    ] as const) {
      const r = compile({ 'generated.ts': first.code }, { head, wrt: [...wrt], of: [...of], js: true, runtimeImport: null });
      expect(r.diagnostics).toEqual([]);
      const report = checkCompiled(r, r.code, head, JSON.parse(JSON.stringify(args)));
      expect(report.messages, head).toEqual([]);
    }
  });
});
