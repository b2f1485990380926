/**
 * The report page's printing (plain ES2017), in the same function scope as `REPORT_PAGE_SCRIPT`,
 * whose `lazyImage` reads `printing`.
 *
 * Images load lazily, so a PDF printed from the page would lack every image not yet scrolled into
 * view (#19.7). The Print button turns every image of the current view eager and waits until each
 * has loaded or failed before it opens the print dialog; Ctrl+P's `beforeprint` turns them eager too
 * (a browser does not wait for them there, so the button is the sure way).
 *
 * (Letting images far from the view drop their source was tried for memory, #19.4: with 2,000
 * results scrolled in Chromium it changed nothing, 542 against 572 MB resident, since Chromium
 * already drops the decoded images of cards that `content-visibility` skips. See bench/README.md.)
 */
export const REPORT_PAGE_MEDIA_SCRIPT = String.raw`
var printing = false;

// Every image of the current view, loading now.
function loadEveryImage() {
  printing = true;
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
    button.textContent = label;
    button.disabled = false;
    window.print();
  });
}

function setupMedia() {
  var button = byId('print');
  if (button) button.addEventListener('click', function () { printWithImages(button); });
  window.addEventListener('beforeprint', loadEveryImage);
  window.addEventListener('afterprint', function () { printing = false; });
}
`;
