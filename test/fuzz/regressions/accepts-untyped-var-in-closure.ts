// Hand-reduced from program #208 of the fixed-seed run (seed 20240611) after closures were merged: a nested
// function reads an untyped `var` of the enclosing function, which TypeScript types `any` there, so
// `hv && v[j]` had no number type and was refused.
export function f(x: number, b: number[]): number {
  var hv;
  if (x <= 0.25) hv = Math.atan(x);
  else hv = Math.tanh(-x);
  function g(v: number[]): number {
    let t = 0;
    for (let j = 0; j < v.length; j++) t += Math.tanh(v[j] * ((hv && v[j]) + 1));
    return t;
  }
  return g(b) + hv;
}
