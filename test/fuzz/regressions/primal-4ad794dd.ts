// Shrunk by the fuzzer (npm run fuzz): primal — the primal copy differs from the original
export interface P {
  u: number;
  v: number;
  w: number;
}

const W: number[] = [0.5, -1.25, 2, 0.75];

export function g0(v0: number[]): number {
  v0[0] = Math.tanh(0.5);
  return Math.tanh(0.5);
}

export function f(x: number): number {
  const t0 = Array.from({ length: 3 }, () => Math.tanh(0.5));
  for (const e2 of W) {
    switch (((Math.abs(Math.tanh(Math.sin((0.5 + t0[0])))) * 2.5) | 0)) {
      case 0: {
        for (let i5 = 0; i5 < 2; i5++) {
          x = Math.tanh(0.5);
        }
      } break;
      default: {
      } break;
    }
    t0[0] *= Math.tanh((g0(t0) - e2));
  }
  return 0.5 + 0.125 * (x + W[3] + t0[2]);
}
