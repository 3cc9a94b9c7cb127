function bump(v: number[]): number {
  v[0] += 1;
  return 0.5;
}

export function f(x: number, a: number[]): number {
  let s = Math.max(...a) * bump(a) + Math.min(...a) - Math.hypot(...a) * bump(a) * x;
  s += bump(a) > 0 ? Math.max(...a) * x : 0;
  return s + Math.hypot(...a);
}
