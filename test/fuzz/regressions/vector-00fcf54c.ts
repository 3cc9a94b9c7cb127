// Shrunk by the fuzzer (npm run fuzz): vector — vector tangent differs from repeated scalar tangents
export interface P {
  u: number;
  v: number;
  w: number;
  z?: number;
}

export interface Q {
  a: number[];
  s: number;
}

const W: number[] = [0.5, -1.25, 2, 0.75];

export function f(a: number[], b: number[], p: P): number {
  const pz0 = p.z !== undefined ? p.z * 0.5 : 0.25;
  let st1: number[] = [Math.tanh((Math.sin(pz0) + 0.5)), (-1), 0];
  st1 = st1.slice();
  let cb2 = 0;
  const t5 = st1.map(Math.cbrt).map((x3, i4) => Math.tanh(x3 * 0.5) + 0.125 * i4);
  cb2 = Math.tanh(cb2 + t5.reduce((s, y) => s + y, 0));
  return 0.5 + 0.25 * Math.tanh(cb2);
}
