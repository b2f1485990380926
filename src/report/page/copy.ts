import { el } from './dom.js';

/** Copies a prompt or a command; the button says it did, then reads as before. */
export function copyText(text: string, button: HTMLButtonElement): void {
  const label = button.getAttribute('data-label') || button.textContent || '';
  button.setAttribute('data-label', label);
  const copied = (): void => {
    button.textContent = 'Copied';
    setTimeout(() => {
      button.textContent = label;
    }, 1500);
  };
  // file:// pages may be refused the clipboard API: a selected text area and the copy command work there.
  const fallback = (): void => {
    const area = el('textarea', 'offscreen');
    area.value = text;
    area.setAttribute('readonly', '');
    // Inside the open dialog (the lightbox) when there is one: a modal dialog keeps the selection to itself.
    (document.querySelector('dialog#lightbox[open]') ?? document.body).appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    button.focus();
    if (ok) copied();
    else button.textContent = 'Copy failed: select the text';
  };
  if (navigator.clipboard && navigator.clipboard.writeText)
    navigator.clipboard.writeText(text).then(copied, fallback);
  else fallback();
}
