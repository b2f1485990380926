/**
 * The report page's CSS. Only the cards near the view are in the page (`page/window.ts`): the
 * gallery's chunks of rows share its columns (subgrid). `content-visibility: auto` lets the browser skip
 * layout and paint of the cards kept just off screen; it also clips what a card paints outside itself,
 * so keyboard focus is drawn inside the thumbnail (an inset ring over the image).
 */
export const REPORT_PAGE_STYLE = `
:root { color-scheme: light dark; --bg: #f6f6f4; --card: #fff; --fg: #1d1d1f; --muted: #6b6b70; --line: #ddd;
  --bad: #b3261e; --warn: #8a5a00; --ok: #1b6e3a; --focus: #0b57d0; --shade: #0000000f; }
@media (prefers-color-scheme: dark) { :root { --bg: #18181a; --card: #242427; --fg: #ececef; --muted: #a0a0a8;
  --line: #3a3a40; --bad: #ff8a80; --warn: #ffd180; --ok: #8fd19e; --focus: #8ab4f8; --shade: #ffffff12; } }
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
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.empty-result { padding: 40px 16px; text-align: center; color: var(--muted); font-size: 16px; }
.empty-result button { font: inherit; }
#gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 14px; align-items: start; }
#gallery > .chunk { grid-column: 1 / -1; display: grid; grid-template-columns: subgrid; row-gap: 14px; align-items: start; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; overflow: hidden;
  content-visibility: auto; contain-intrinsic-size: auto 240px auto 420px; display: flex; flex-direction: column;
  scroll-margin: calc(var(--header-height, 0px) + 44px) 16px 16px 120px; }
.card.compact { contain-intrinsic-size: auto 240px auto 170px; border-left-width: 4px; border-left-color: var(--warn); }
.card.status-failed { border-color: var(--bad); }
.card:focus-within { border-color: var(--focus); }
.thumb { display: flex; gap: 2px; background: var(--shade); aspect-ratio: 4 / 3; }
.thumb a { flex: 1; min-width: 0; display: block; position: relative; color: inherit; text-decoration: none; cursor: zoom-in; }
.thumb a:focus-visible { outline: none; }
.thumb a:focus-visible::after { content: ""; position: absolute; inset: 0; border: 3px solid var(--focus);
  box-shadow: inset 0 0 0 2px var(--card); pointer-events: none; }
.thumb img, .thumb video { width: 100%; height: 100%; object-fit: contain; display: block; }
.thumb img.source { visibility: hidden; position: absolute; inset: 0; }
.thumb canvas { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: contain; display: block; }
.thumb .play { position: absolute; left: 8px; bottom: 8px; background: #000a; color: #fff; border-radius: 12px;
  padding: 0 8px; font-size: 12px; pointer-events: none; }
.thumb .corner { position: absolute; left: 0; right: 0; bottom: 0; background: #000b; color: #fff; font-size: 11px;
  padding: 2px 6px; pointer-events: none; }
.state-box { height: 100%; display: flex; flex-direction: column; align-items: center; justify-content: center; gap: 4px;
  color: var(--muted); font-size: 12px; text-align: center; padding: 10px; word-break: break-word; }
.state-box strong { font-size: 14px; color: var(--warn); }
.state-box.missing strong { color: var(--bad); }
.body { padding: 8px 10px; display: flex; flex-direction: column; gap: 4px; }
.id { font-size: 14px; margin: 0; font-weight: 600; word-break: break-all; }
.badge { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 12px; font-weight: normal; border: 1px solid currentColor; }
.badge.done { color: var(--ok); } .badge.failed { color: var(--bad); }
.badge.downloading, .badge.deferred, .badge.uncertain, .badge.open, .badge.creating, .badge.pending { color: var(--warn); }
.prompt { white-space: pre-wrap; word-break: break-word; }
.card.compact .prompt { display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; color: var(--muted); }
.facts { color: var(--muted); font-size: 12px; word-break: break-word; }
.reason { display: flex; flex-direction: column; gap: 2px; }
.failure { color: var(--bad); font-size: 13px; white-space: pre-wrap; word-break: break-word; }
.waiting, .retry { color: var(--warn); font-size: 13px; }
.advice { font-size: 13px; white-space: pre-wrap; }
.command { display: inline-flex; gap: 4px; align-items: baseline; max-width: 100%; }
.command code { font-size: 12px; background: var(--shade); padding: 1px 4px; border-radius: 3px; white-space: pre-wrap; word-break: break-all; }
.command button { font-size: 11px; flex: none; }
.attention { margin: 0 0 8px; color: var(--bad); font-weight: 600; }
.note.outside { margin-top: 0; }
button.details { align-self: flex-start; font-size: 12px; }
table.grid { border-collapse: collapse; }
table.grid th { position: sticky; z-index: 1; background: var(--bg); color: var(--muted); font-weight: 600; padding: 6px; text-align: left; }
table.grid thead th { top: var(--header-height, 0px); z-index: 2; }
table.grid thead th.corner { left: 0; z-index: 3; }
table.grid tbody th { left: 0; top: calc(var(--header-height, 0px) + 34px); vertical-align: top; }
table.grid td { border: 1px solid var(--line); padding: 2px; vertical-align: top; }
#grid { --tile: 160px; }
table.grid td { min-width: calc(var(--tile) + 10px); }
table.grid .tile { display: inline-flex; width: var(--tile); margin: 1px; border-radius: 4px;
  contain-intrinsic-size: auto var(--tile) auto var(--tile); vertical-align: top; }
table.grid .tile .thumb { width: 100%; height: var(--tile); flex: none; aspect-ratio: auto; }
table.grid .tile > .open { width: 100%; height: var(--tile); flex: none; border: 0; background: var(--shade); font: inherit; cursor: zoom-in; }
table.grid .tile.status-failed > .open strong, table.grid .tile.status-failed > .open { color: var(--bad); }
.grid-part { margin-bottom: 24px; }
.grid-title { font-size: 16px; margin: 8px 0; position: sticky; left: 0; }
a.grid-image { display: inline-block; margin-bottom: 8px; }
#grid-size { vertical-align: middle; width: 120px; }
#print { font: inherit; }
@media print {
  header { position: static; } #controls, .grid-image { display: none; }
  .card { content-visibility: visible; break-inside: avoid; }
  table.grid th { position: static; } dialog.lightbox { display: none; }
}
.note { color: var(--muted); }
dialog.lightbox { width: 100vw; height: 100vh; max-width: none; max-height: none; margin: 0; padding: 0; border: 0;
  background: #111; color: #eee; color-scheme: dark; --muted: #a0a0a8; --bad: #ff8a80; --warn: #ffd180; --ok: #8fd19e;
  --focus: #8ab4f8; --fg: #eee; --card: #1c1c1f; --line: #444; --shade: #ffffff12; }
dialog.lightbox[open] { display: grid; grid-template-columns: minmax(0, 1fr) 360px; }
dialog.lightbox::backdrop { background: #000c; }
.lb-stage { position: relative; overflow: auto; display: flex; align-items: center; justify-content: center; min-height: 0; height: 100vh; }
.lb-stage img, .lb-stage video { width: 100%; height: 100%; object-fit: contain; display: block; }
.lb-stage img { cursor: zoom-in; }
.lb-stage.zoomed { display: block; }
.lb-stage.zoomed img { height: auto; cursor: zoom-out; margin: auto; }
.lb-stage .state-box, .lb-reason { color: #bbb; font-size: 15px; max-width: 520px; padding: 24px; }
.lb-reason { display: flex; flex-direction: column; gap: 8px; }
.lb-side { background: #1c1c1f; border-left: 1px solid #333; overflow: auto; padding: 12px 14px; display: flex;
  flex-direction: column; gap: 8px; }
.lb-bar { display: flex; gap: 6px; align-items: center; }
.lb-bar button { font: inherit; min-width: 36px; }
.lb-position { color: #a0a0a8; margin-right: auto; margin-left: 6px; }
.lb-details { display: flex; flex-direction: column; gap: 8px; }
.lb-details .id { font-size: 16px; }
.lb-details h3 { font-size: 13px; margin: 8px 0 0; color: #a0a0a8; }
.lb-facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 10px; margin: 0; font-size: 13px; }
.lb-facts dt { color: #a0a0a8; } .lb-facts dd { margin: 0; word-break: break-word; }
.lb-facts a { color: #8ab4f8; }
.lb-attempts { margin: 0; padding-left: 18px; font-size: 13px; }
button.copy { align-self: flex-start; }
.offscreen { position: fixed; left: -9999px; top: 0; }
@media (max-width: 800px) { dialog.lightbox[open] { grid-template-columns: 1fr; grid-template-rows: 60vh auto; }
  .lb-stage { height: 60vh; } }
`;
