// The plot of f(x + t·v) and d/dt along the direction, with uPlot: f on the left axis, its derivative on
// the right one (they differ in scale). The chart is rebuilt per data set and follows its box's width.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { PlotData } from './protocol.js';

const HEIGHT = 240;

export class Plot {
  private chart: uPlot | null = null;

  constructor(private readonly box: HTMLElement) {
    new ResizeObserver(() => this.chart?.setSize({ width: this.width(), height: HEIGHT })).observe(box);
  }

  private width(): number {
    return Math.max(200, this.box.clientWidth);
  }

  show(data: PlotData): void {
    this.chart?.destroy();
    const opts: uPlot.Options = {
      width: this.width(),
      height: HEIGHT,
      scales: { x: { time: false }, f: {}, d: {} },
      axes: [
        { label: 't' },
        { scale: 'f', label: 'f(x + t·v)', stroke: '#1f5fbf' },
        { scale: 'd', label: 'd/dt', side: 1, stroke: '#c0392b', grid: { show: false } },
      ],
      series: [
        { label: 't', value: (_u, v) => (v == null ? '–' : v.toFixed(2)) },
        { label: 'f(x + t·v)', scale: 'f', stroke: '#1f5fbf', width: 2 },
        { label: 'd/dt (tangent code)', scale: 'd', stroke: '#c0392b', width: 2, dash: [6, 4] },
      ],
    };
    this.chart = new uPlot(opts, [data.t, data.f, data.df], this.box);
  }

  clear(): void {
    this.chart?.destroy();
    this.chart = null;
  }
}
