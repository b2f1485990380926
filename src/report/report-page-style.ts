/**
 * The report page's CSS. `content-visibility: auto` lets the browser skip layout and paint of cards
 * off screen, which keeps a page of 5,000 results responsive.
 */
export const REPORT_PAGE_STYLE = `
:root { color-scheme: light dark; --bg: #f6f6f4; --card: #fff; --fg: #1d1d1f; --muted: #6b6b70; --line: #ddd;
  --bad: #b3261e; --warn: #8a5a00; --ok: #1b6e3a; }
@media (prefers-color-scheme: dark) { :root { --bg: #18181a; --card: #242427; --fg: #ececef; --muted: #a0a0a8;
  --line: #3a3a40; --bad: #ff8a80; --warn: #ffd180; --ok: #8fd19e; } }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--fg); }
header { position: sticky; top: 0; z-index: 2; background: var(--bg); border-bottom: 1px solid var(--line); padding: 10px 16px; }
h1 { font-size: 18px; margin: 0; } h1 small { font-weight: normal; color: var(--muted); }
.meta { margin: 2px 0 8px; color: var(--muted); }
form { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; }
label { color: var(--muted); } select { margin-left: 4px; }
#axis-filters, #grid-axes:not([hidden]) { display: contents; }
#shown { color: var(--muted); margin-left: auto; }
main { padding: 16px; }
#gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 14px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; overflow: hidden;
  content-visibility: auto; contain-intrinsic-size: auto 240px auto 420px; display: flex; flex-direction: column; }
.card.status-failed { border-color: var(--bad); }
.thumb { display: flex; gap: 2px; background: #0001; aspect-ratio: 4 / 3; }
.thumb a, .thumb video { flex: 1; min-width: 0; display: block; }
.thumb img, .thumb video { width: 100%; height: 100%; object-fit: contain; display: block; }
.thumb .empty { flex: 1; display: flex; align-items: center; justify-content: center; color: var(--muted); font-size: 13px; }
.body { padding: 8px 10px; display: flex; flex-direction: column; gap: 4px; }
.id { font-weight: 600; word-break: break-all; }
.badge { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 12px; border: 1px solid currentColor; }
.badge.done { color: var(--ok); } .badge.failed { color: var(--bad); }
.badge.deferred, .badge.uncertain, .badge.open, .badge.creating, .badge.pending { color: var(--warn); }
.prompt { white-space: pre-wrap; word-break: break-word; }
.facts { color: var(--muted); font-size: 12px; word-break: break-word; }
.failure { color: var(--bad); font-size: 13px; white-space: pre-wrap; word-break: break-word; }
.advice { font-size: 13px; white-space: pre-wrap; }
table.grid { border-collapse: collapse; }
table.grid th { position: sticky; background: var(--bg); color: var(--muted); font-weight: 600; padding: 6px; text-align: left; }
table.grid thead th { top: 0; } table.grid tbody th { left: 0; }
table.grid td { border: 1px solid var(--line); padding: 4px; vertical-align: top; min-width: 180px; }
table.grid .card { width: 200px; margin: 2px; contain-intrinsic-size: auto 200px auto 340px; }
.note { color: var(--muted); }
`;
