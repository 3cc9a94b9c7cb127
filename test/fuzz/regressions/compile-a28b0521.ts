// Shrunk by the fuzzer (npm run fuzz): compile — compile() (JavaScript) threw Error: this expression cannot carry a derivative here (call)
export interface P {
  u: number;
  v: number;
  w: number;
}

export function g0(x0: number): number {
  return Math.tanh(0.5);
}

export function f(x: number): number {
  const q0: P = { u: Math.tanh(0.5), v: Math.sin(0.5), w: (0.5 < 0.5 ? 0.5 : g0(x)) };
  return 0.5 + 0.125 * (x + q0.u);
}
