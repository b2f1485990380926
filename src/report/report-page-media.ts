/**
 * The report page's printing (plain ES2017), in the same function scope as `REPORT_PAGE_SCRIPT`,
 * whose `lazyImage` reads `printing`.
 *
 * Only the cards near the view are in the page and images load lazily, so a PDF printed from it
 * would lack every card and image far from the view (#19.7). The Print button makes every card of
 * the current view (`renderWholeView`), turns their images eager and waits until each has loaded or
 * failed, and its canvas is drawn, before it opens the print dialog; Ctrl+P's `beforeprint` makes them and turns them eager too
 * (a browser does not wait for them there, so the button is the sure way). After printing, the cards
 * far from the view go again.
 */
export const REPORT_PAGE_MEDIA_SCRIPT = String.raw`
var printing = false;

// Every image of the current view, loading now.
function loadEveryImage() {
  printing = true;
  renderWholeView();
  var root = state.view === 'grid' ? byId('grid') : byId('gallery');
  var images = Array.prototype.filter.call(root.querySelectorAll('img'), function (img) { return !img.closest('[hidden]'); });
  images.forEach(function (img) { img.loading = 'eager'; });
  return images;
}
function whenLoaded(img) {
  if (img.complete) return Promise.resolve();
  return new Promise(function (resolve) {
    img.addEventListener('load', resolve, { once: true });
    img.addEventListener('error', resolve, { once: true });
  });
}

function printWithImages(button) {
  var waiting = loadEveryImage().filter(function (img) { return !img.complete; });
  var done = 0;
  var label = button.textContent;
  var tell = function () { button.textContent = 'Loading images ' + done + '/' + waiting.length + '…'; };
  tell();
  button.disabled = true;
  Promise.all(waiting.map(function (img) { return whenLoaded(img).then(function () { done++; tell(); }); })).then(function () {
    // Each thumbnail shows on its canvas once drawn from its loaded image.
    return Promise.all(Array.from(thumbDraws));
  }).then(function () {
    button.textContent = label;
    button.disabled = false;
    window.print();
  });
}

function setupMedia() {
  var button = byId('print');
  if (button) button.addEventListener('click', function () { printWithImages(button); });
  window.addEventListener('beforeprint', loadEveryImage);
  window.addEventListener('afterprint', function () { printing = false; scheduleWindow(); });
}
`;
