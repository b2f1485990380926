/**
 * The report page's image loading and printing (plain ES2017), in the same function scope as
 * `REPORT_PAGE_SCRIPT`, whose `lazyImage` calls `watchImage` for every gallery and grid image.
 *
 * - Memory: an image far from the view (beyond `FAR_MARGIN`, a screen and a half) gives up its source and takes it
 *   back as it comes near, so the renderer holds the decoded images near the view only: scrolled
 *   through 5,000 results, it no longer keeps all 5,000 (#19.4). `loading="lazy"` still defers the
 *   first load.
 * - Print (#19.7): the Print button (and, as far as a browser waits, Ctrl+P's `beforeprint`) gives
 *   every image of the current view back its source, loads it eagerly and waits until each has
 *   loaded or failed before opening the print dialog, so a PDF has every image, not only those once
 *   scrolled into view.
 */
export const REPORT_PAGE_MEDIA_SCRIPT = String.raw`
var FAR_MARGIN = '150%';
var printing = false;
var imageObserver = 'IntersectionObserver' in window ? new IntersectionObserver(function (seen) {
  seen.forEach(function (item) {
    var img = item.target;
    if (item.isIntersecting) restoreImage(img);
    else if (!printing && img.getAttribute('src')) {
      img.setAttribute('data-src', img.getAttribute('src'));
      img.removeAttribute('src'); // no src attribute: no error event, the decoded image can go
    }
  });
}, { rootMargin: FAR_MARGIN }) : null;

function watchImage(img) {
  if (imageObserver) imageObserver.observe(img);
}
function forgetImages(root) {
  if (imageObserver) Array.prototype.forEach.call(root.querySelectorAll('img'), function (img) { imageObserver.unobserve(img); });
}
function restoreImage(img) {
  var src = img.getAttribute('data-src');
  if (src === null) return;
  img.removeAttribute('data-src');
  img.src = src;
}

// Every image of the current view with its source, loading now.
function loadEveryImage() {
  printing = true;
  document.body.classList.add('printing');
  var root = state.view === 'grid' ? byId('grid') : byId('gallery');
  var images = Array.prototype.filter.call(root.querySelectorAll('img'), function (img) { return !img.closest('[hidden]'); });
  images.forEach(function (img) {
    img.loading = 'eager';
    restoreImage(img);
  });
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
  var images = loadEveryImage();
  var waiting = images.filter(function (img) { return !img.complete; });
  var done = 0;
  var label = button.textContent;
  var tell = function () { button.textContent = 'Loading images ' + done + '/' + waiting.length + '…'; };
  tell();
  button.disabled = true;
  Promise.all(waiting.map(function (img) { return whenLoaded(img).then(function () { done++; tell(); }); })).then(function () {
    button.textContent = label;
    button.disabled = false;
    document.body.setAttribute('data-print-ready', 'true');
    window.print();
  });
}

function setupMedia() {
  var button = byId('print');
  if (button) button.addEventListener('click', function () { printWithImages(button); });
  window.addEventListener('beforeprint', loadEveryImage);
  window.addEventListener('afterprint', function () {
    printing = false;
    document.body.classList.remove('printing');
    // Observed anew, each image far from the view lets its source go again.
    if (imageObserver) Array.prototype.forEach.call(document.querySelectorAll('#gallery img, #grid img'), function (img) {
      imageObserver.unobserve(img);
      imageObserver.observe(img);
    });
  });
}
`;
