// Shrunk by the fuzzer (npm run fuzz): runtime — generated code threw in the derivative functions: Cannot read properties of undefined (reading '0')
export interface P {
  u: number;
  v: number;
  w: number;
}

export function f(x: number): number {
  const M0: number[][] = [];
  for (let j1 = 0; j1 < 2; j1++) {
    const t3 = Array.from({ length: 2 }, (_, j2) => Math.tanh(0.5));
    M0.push(t3);
  }
  for (let i4 = 0; i4 < 2; i4++) {
    x = Math.tanh(Math.sin(Math.atan2(0.5, 0.5 + M0[1][0] * M0[1][0])));
  }
  return 0.5 + 0.125 * (x + M0[0][0]);
}
