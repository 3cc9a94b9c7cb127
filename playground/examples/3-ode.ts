// ODE: a damped oscillator integrated by RK4; the loss is how far the end state is from a target
function rk4(f: (y: number[]) => number[], y: number[], h: number): number[] {
  const k1 = f(y);
  const k2 = f([y[0] + 0.5 * h * k1[0], y[1] + 0.5 * h * k1[1]]);
  const k3 = f([y[0] + 0.5 * h * k2[0], y[1] + 0.5 * h * k2[1]]);
  const k4 = f([y[0] + h * k3[0], y[1] + h * k3[1]]);
  return [y[0] + (h / 6) * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]), y[1] + (h / 6) * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])];
}

// y0 = [position, velocity]; stiffness k and damping c
export function finalLoss(y0: number[], k: number, c: number): number {
  const oscillator = (y: number[]): number[] => [y[1], -k * y[0] - c * y[1]];
  let y = [y0[0], y0[1]];
  for (let step = 0; step < 50; step++) y = rk4(oscillator, y, 0.05);
  const target = 0.5;
  return (y[0] - target) ** 2 + 0.1 * y[1] * y[1];
}
