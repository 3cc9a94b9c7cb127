// Hand-minimized (same bug as dot-adcc321a, without a call): `out` is an independent and the dependent;
// overwriting out[0] with a constant must zero its tangent, but f_d leaves outd[0] as it came in
// (the adjoint correctly zeroes outb[0]).
export function f(x: number, out: number[]): void {
  out[0] = 0.5;
}
