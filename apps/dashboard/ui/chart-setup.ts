import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';

// Only what the dashboard draws (bars and lines on category and linear scales): the rest of Chart.js is left out of
// the build. Loaded on demand by charts.tsx.
Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip);

export { Chart };
