// Found while trying a class the way people write it: a copy written as a call's argument
// (`g(x.slice())`) got a zero tangent and a zero adjoint, silently. Such an argument is now named first,
// like a literal argument, so that its derivative is the copy of its source's
export function g(a: number[]): number {
  return a[0] * a[1];
}

export function f(x: number[], c: number): number {
  let s = g(x.slice());
  for (let i = 0; i < 2; i++) s += g(x.slice(i)) * c;
  return c > 0.5 ? s + g(x.slice()) * c : s;
}
