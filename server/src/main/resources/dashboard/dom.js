// Tiny DOM helpers. Text always goes in through textContent, never innerHTML: names are validated
// by the server, but messages and labels are free text written by agents and operators.

export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** The condition of `type` in an object's status, or undefined. */
export function condition(object, type) {
  return (object?.status?.conditions ?? []).find((c) => c.type === type);
}

/** "node-1", "gpu-10" sort as people expect: by their numbers, not character by character. */
export const byName = new Intl.Collator('en', { numeric: true }).compare;

export function bytes(n) {
  if (!Number.isFinite(n) || n <= 0) return '';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${n >= 10 || i === 0 ? Math.round(n) : n.toFixed(1)} ${units[i]}`;
}

export function ago(iso) {
  const t = Date.parse(iso ?? '');
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((Date.now() - t) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86400)}d ago`;
}
