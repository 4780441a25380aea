/** The report page's stylesheet: inline, system fonts only, so the page needs nothing else. */
export const reportStyle = `
:root { color-scheme: light; --fg: #1d1d1f; --muted: #5f6368; --line: #e3e3e6; --bg: #fff; --card: #f7f7f9; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 26px; margin: 0; }
h2 { font-size: 18px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 14px; margin: 0 0 4px; }
.sub { color: var(--muted); margin: 2px 0 16px; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(190px, 1fr)); gap: 10px; }
.stat { background: var(--card); border-radius: 8px; padding: 10px 14px; }
.stat .k { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
.stat .v { font-size: 24px; font-weight: 600; font-variant-numeric: tabular-nums; }
.stat .d { color: var(--muted); font-size: 12px; }
.notes p { background: #fff8e1; border-left: 3px solid #e0b000; padding: 6px 10px; margin: 8px 0; white-space: pre-wrap; }
nav { margin: 12px 0 0; color: var(--muted); }
nav a { margin-right: 12px; color: inherit; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(480px, 100%), 1fr)); gap: 18px 22px; }
figure { margin: 0; }
figcaption { color: var(--muted); font-size: 12px; margin-top: 2px; }
svg.chart { width: 100%; height: auto; display: block; font-family: inherit; }
svg.chart .grid { stroke: var(--line); }
svg.chart .axis { stroke: #8a8a8e; }
svg.chart .tick { fill: var(--muted); font-size: 10.5px; font-variant-numeric: tabular-nums; }
svg.chart .label { fill: var(--fg); font-size: 11.5px; }
svg.chart .legend { fill: var(--fg); font-size: 11px; }
svg.chart .hover circle { fill: transparent; }
svg.chart .hover circle:hover { fill: #0008; }
.missing { color: var(--muted); font-size: 13px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 6px 0 12px; }
th, td { padding: 3px 12px 3px 0; text-align: right; border-bottom: 1px solid var(--line); }
th:first-child, td:first-child { text-align: left; }
th { font-weight: 600; color: var(--muted); font-size: 12px; }
details { margin-top: 28px; }
summary { cursor: pointer; font-weight: 600; }
pre { background: var(--card); padding: 12px; border-radius: 6px; overflow: auto; font-size: 12.5px; }
footer { color: var(--muted); font-size: 12px; margin-top: 32px; }
`;
