import type { ChartConfiguration } from 'chart.js';
import { useEffect, useRef, useState } from 'preact/hooks';

/*
 * Charts of the dashboard, drawn by Chart.js on a canvas. The library is loaded on demand (its own hashed file of
 * the build, under the strict CSP: no inline script or style), so pages without a chart never fetch it. A chart is
 * a picture for sighted users only: `label` says what it shows for screen readers, and every chart is shown beside
 * a table of its numbers (`ChartFigure`), the text alternative.
 */

/** Colours with at least 3:1 contrast on white, told apart by more than hue (each series is also in the table). */
export const SERIES_COLOURS = {
  received: '#0550ae',
  sent: '#8c959f',
  delivered: '#1a7f37',
  read: '#116329',
  failed: '#a40e26',
  succeeded: '#1a7f37',
  pending: '#9a6700',
  skipped: '#6e7781',
  rate: '#0550ae',
} as const;

let loading: Promise<typeof import('./chart-setup')> | undefined;

/** Chart.js with only what the dashboard draws registered (chart-setup.ts), loaded once. */
function chartJs(): Promise<typeof import('./chart-setup')> {
  loading ??= import('./chart-setup');
  return loading;
}

/** One chart on a canvas (`role="img"`, named by `label`); redrawn when `config` changes. */
export function ChartCanvas({ config, label, id }: { config: ChartConfiguration; label: string; id: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let chart: { destroy(): void } | undefined;
    let gone = false;
    chartJs().then(
      ({ Chart }) => {
        if (gone || !canvas.current) return;
        chart = new Chart(canvas.current, {
          ...config,
          options: { animation: false, responsive: true, maintainAspectRatio: false, ...config.options },
        } as ChartConfiguration);
        canvas.current.dataset.drawn = 'true';
      },
      () => setFailed(true),
    );
    return () => {
      gone = true;
      chart?.destroy();
    };
  }, [config]);
  return (
    <div class="chart">
      {failed ? <p class="muted">The chart could not be drawn; the table holds its numbers.</p> : <canvas id={id} ref={canvas} role="img" aria-label={label} />}
    </div>
  );
}
