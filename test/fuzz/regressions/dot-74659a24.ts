// Shrunk by the fuzzer (npm run fuzz): dot — dot-product test fails (the adjoint is wrong: the tangent matches divided differences)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(v0: number[]): number {
  v0[1] = 2 * v0[0];
  return Math.tanh(0.5);
}

export function f(a: number[]): number[] {
  const t0: number[] = [];
  for (let j1 = 0; j1 < 1; j1++) {
    t0.push(Math.tanh((0.5 + a[1])));
  }
  if (0.5 < 0.5) {
  } else {
    let k2 = 0;
    while (k2 < 1 && g0(a) < 0.5) {
      k2++;
    }
  }
  const r5 = Array.from({ length: 1 }, (_, j4) => t0[0]);
  return r5;
}
