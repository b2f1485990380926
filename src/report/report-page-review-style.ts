/** The CSS of the report page's review (`page/review.ts`, `page/review-view.ts`), after the page's own. */
export const REPORT_PAGE_REVIEW_STYLE = `
.review { display: flex; flex-direction: column; gap: 4px; border-top: 1px solid var(--line); padding-top: 6px; margin-top: 2px; }
.review-bar { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
.review-bar button { font: inherit; font-size: 12px; padding: 1px 6px; border-radius: 6px; border: 1px solid var(--line);
  background: var(--card); color: var(--fg); cursor: pointer; }
.review-bar button[aria-pressed="true"].review-approved { background: var(--ok); color: var(--card); border-color: var(--ok); }
.review-bar button[aria-pressed="true"].review-rejected { background: var(--bad); color: var(--card); border-color: var(--bad); }
.review-label { color: var(--muted); font-size: 12px; min-width: 3.5em; }
.review-note { font: inherit; font-size: 12px; width: 100%; resize: vertical; }
.card[data-verdict="rejected"] { border-color: var(--bad); box-shadow: inset 0 3px 0 var(--bad); }
.card[data-verdict="approved"] { box-shadow: inset 0 3px 0 var(--ok); }
.review-tools { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.review-tools button { font: inherit; }
#review-tally { color: var(--fg); font-weight: 600; }
.review-message { color: var(--muted); font-size: 12px; }
.next-step { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; margin-top: 6px; font-size: 13px; }
.replaced { display: flex; flex-direction: column; gap: 4px; }
.replaced-attempt { border: 1px dashed var(--line); border-radius: 6px; padding: 4px; font-size: 12px; color: var(--muted); }
.replaced-attempt.rejected { border-color: var(--bad); }
.replaced-attempt.rejected .replaced-caption { color: var(--bad); }
.replaced-files { display: flex; gap: 4px; }
.replaced-file img { display: block; max-width: 96px; max-height: 72px; object-fit: contain; opacity: 0.8; }
.lb-details .replaced-file img { max-width: 320px; max-height: 240px; }
.replaced-note { white-space: pre-wrap; word-break: break-word; color: var(--fg); }
table.grid .tile { position: relative; }
.tile-review { position: absolute; top: 3px; right: 3px; z-index: 1; border: 0; margin: 0; padding: 0; display: none; }
.tile:hover > .tile-review, .tile:focus-within > .tile-review { display: flex; }
.tile-review .review-bar { flex-wrap: nowrap; gap: 2px; }
.tile-review .review-bar button { font-size: 13px; line-height: 18px; padding: 0 5px; }
.tile[data-verdict="approved"]::after, .tile[data-verdict="rejected"]::after, .tile[data-replaced]::before {
  position: absolute; left: 3px; width: 18px; height: 18px; border-radius: 9px; text-align: center; font-size: 12px;
  line-height: 18px; color: var(--card); pointer-events: none; z-index: 1; }
.tile[data-verdict="approved"]::after { content: "✓"; top: 3px; background: var(--ok); }
.tile[data-verdict="rejected"]::after { content: "✗"; top: 3px; background: var(--bad); }
.tile[data-replaced]::before { content: "↻"; bottom: 3px; background: var(--muted); }
.tile[data-replaced="rejected"]::before { background: var(--bad); }
.lb-details .review-bar button { background: #2a2a2e; color: #eee; border-color: #444; }
@media print { .review, .review-tools, label:has(#filter-review) { display: none; } }
`;
