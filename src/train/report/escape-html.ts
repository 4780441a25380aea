/** Makes any text safe inside HTML or SVG text and attribute values (quotes included). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
