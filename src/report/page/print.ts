import { byId } from './dom.js';
import { state } from './model.js';
import { setPrinting, thumbDraws } from './thumbs.js';
import { renderWholeView, scheduleWindow } from './window.js';

/**
 * Printing. Only the cards near the view are in the page and images load lazily, so a PDF printed
 * from it would lack every card and image far from the view (#19.7). The Print button makes every
 * card of the current view (`renderWholeView`), turns their images eager and waits until each has
 * loaded or failed, and its canvas is drawn, before it opens the print dialog; Ctrl+P's `beforeprint`
 * makes them and turns them eager too (a browser does not wait for them there, so the button is the
 * sure way). After printing, the cards far from the view go again.
 */

// Every image of the current view, loading now.
function loadEveryImage(): HTMLImageElement[] {
  setPrinting(true);
  renderWholeView();
  const root = state.view === 'grid' ? byId('grid') : byId('gallery');
  const images = Array.from(root.querySelectorAll('img')).filter((img) => !img.closest('[hidden]'));
  images.forEach((img) => {
    img.loading = 'eager';
  });
  return images;
}

function whenLoaded(img: HTMLImageElement): Promise<unknown> {
  if (img.complete) return Promise.resolve();
  return new Promise((resolve) => {
    img.addEventListener('load', resolve, { once: true });
    img.addEventListener('error', resolve, { once: true });
  });
}

function printWithImages(button: HTMLButtonElement): void {
  const waiting = loadEveryImage().filter((img) => !img.complete);
  let done = 0;
  const label = button.textContent;
  const tell = (): void => {
    button.textContent = 'Loading images ' + done + '/' + waiting.length + '…';
  };
  tell();
  button.disabled = true;
  void Promise.all(
    waiting.map((img) =>
      whenLoaded(img).then(() => {
        done++;
        tell();
      }),
    ),
  )
    // Each thumbnail shows on its canvas once drawn from its loaded image.
    .then(() => Promise.all(Array.from(thumbDraws)))
    .then(() => {
      button.textContent = label;
      button.disabled = false;
      window.print();
    });
}

export function setupMedia(): void {
  const button = document.getElementById('print') as HTMLButtonElement | null;
  if (button) button.addEventListener('click', () => printWithImages(button));
  window.addEventListener('beforeprint', loadEveryImage);
  window.addEventListener('afterprint', () => {
    setPrinting(false);
    scheduleWindow();
  });
}
