/**
 * What a chart shows, as plain data: the report builds these from metrics records and the
 * SVG renderer draws them. Keeping the two apart lets the report's choices be tested without
 * parsing SVG, and the renderer be tested on hand-made charts.
 */

/** One x position and its value; `null` (not measured) leaves a gap in the line. */
export type Point = readonly [x: number, y: number | null];

/** A low..high interval at one x (a confidence interval). */
export type Interval = readonly [x: number, low: number | null, high: number | null];

export interface Series {
  /** Legend text, e.g. the role or policy name. */
  readonly name: string;
  readonly points: readonly Point[];
  /** CSS colour; by default the palette colour of the series' index. */
  readonly color?: string;
  readonly dash?: 'solid' | 'dashed' | 'dotted';
  /** `line` (default), `markers` (points only), or both. */
  readonly style?: 'line' | 'markers' | 'line+markers';
  /** Drawn as a shaded band under a line, or as whiskers on markers. */
  readonly intervals?: readonly Interval[];
  /** 0..1; lighter lines for raw values under a smoothed one. */
  readonly opacity?: number;
}

export interface ChartSpec {
  /** Unique within the page (used for anchors). */
  readonly id: string;
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  /** Show y values as percentages (for rates in 0..1). */
  readonly percent?: boolean;
  /** Values the y range must include even without data there (0, or 1 for rates). */
  readonly yInclude?: readonly number[];
  /** One sentence under the chart: what to look for. */
  readonly caption?: string;
}

/**
 * Okabe-Ito colours, distinguishable with the common colour-vision deficiencies; yellow
 * (hard to see on white) is last.
 */
export const palette: readonly string[] = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#555555', '#B8A200'];
