/** A plain HTML table with escaped cells, styled by the report's stylesheet (first column left, numbers right). */
import { escapeHtml } from './escape-html.js';

export function htmlTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const th = head.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const tr = rows.map((row) => `<tr>${row.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('');
  return `<table><thead><tr>${th}</tr></thead><tbody>${tr}</tbody></table>`;
}
