const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const pad = (n: number): string => String(n).padStart(2, '0');

/** Local date and time as `YYYY-MM-DD HH:MM`. */
export function formatLocalDateTime(d: Date): string {
  return `${formatLocalDate(d)} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Local date as `YYYY-MM-DD` (the trash folder name). */
export function formatLocalDate(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Local `Mon DD`, as in the index bullets. */
export function formatMonthDay(d: Date): string {
  return `${MONTHS[d.getMonth()]} ${pad(d.getDate())}`;
}

/** Parses the body's `YYYY-MM-DD HH:MM` (local time). */
export function parseLocalDateTime(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(text.trim());
  if (!m) return undefined;
  const d = new Date(+m[1], +m[2] - 1, +m[3], m[4] ? +m[4] : 0, m[5] ? +m[5] : 0, m[6] ? +m[6] : 0);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** "just now", "5 min ago", "2 h ago", "3 days ago", or the date. */
export function formatRelative(iso: string, now: Date = new Date()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return 'unknown time';
  const s = Math.round((now.getTime() - t) / 1000);
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  const days = Math.round(s / 86400);
  if (days === 1) return 'yesterday';
  if (days < 30) return `${days} days ago`;
  return formatLocalDate(new Date(t));
}
