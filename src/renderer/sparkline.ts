/**
 * A row's sparkline: the machine's transitions per bucket over the window (docs/PROTOCOL.md §5,
 * `series=1`), drawn as an inline SVG polyline. Every row is drawn on one scale (the highest
 * bucket of all rows, shown in the column's heading), so rows can be compared. Decorative
 * (aria-hidden): the row's spoken summary already says the count. Built through the DOM, with
 * attributes only (no style attribute, so the page's CSP `style-src 'self'` holds).
 */

const SVG_NS = 'http://www.w3.org/2000/svg';
/** The drawing's own units; CSS sizes the element (preserveAspectRatio none). */
export const SPARK_WIDTH = 60;
export const SPARK_HEIGHT = 16;
/** Room for the stroke at the top and bottom edges. */
const PAD = 1.5;

/**
 * The polyline's `points` for a series: x spread over the width, y from the bottom (0) to the
 * top (the series' peak). Empty for an empty series; one point is drawn as a flat line.
 * @example sparkPoints([0, 2, 1]) // "0,14.5 30,1.5 60,8"
 */
export function sparkPoints(series: readonly number[], scale?: number): string {
  if (series.length === 0) return '';
  const values = series.length === 1 ? [series[0] ?? 0, series[0] ?? 0] : series;
  const peak = scale ?? seriesPeak(values);
  const step = SPARK_WIDTH / (values.length - 1);
  const span = SPARK_HEIGHT - 2 * PAD;
  return values
    .map((v, i) => {
      const value = Number.isFinite(v) && v > 0 ? v : 0;
      const y = SPARK_HEIGHT - PAD - (peak === 0 ? 0 : (value / peak) * span);
      return `${round(i * step)},${round(y)}`;
    })
    .join(' ');
}

/** The highest finite, positive value of a series (0 for none). */
export function seriesPeak(series: readonly number[]): number {
  return series.reduce((m, v) => (Number.isFinite(v) && v > m ? v : m), 0);
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

/** An empty sparkline element for a new row. */
export function createSparkline(doc: Document): SVGSVGElement {
  const svg = doc.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('class', 'spark');
  svg.setAttribute('viewBox', `0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.append(doc.createElementNS(SVG_NS, 'polyline'));
  return svg;
}

/** Draws `series` (none: the row keeps an empty sparkline, as from a registry without series). */
export function drawSparkline(
  svg: Element,
  series: readonly number[] | undefined,
  scale?: number,
): void {
  const line = svg.firstElementChild;
  if (line === null) return;
  const points = sparkPoints(series ?? [], scale);
  if (line.getAttribute('points') !== points) line.setAttribute('points', points);
}
