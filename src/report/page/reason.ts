import type { PageEntry } from '../page-data.js';
import { copyText } from './copy.js';
import { el, formatTime } from './dom.js';
import { data } from './model.js';
import { isExpired } from './thumbs.js';

const WAITING: Partial<Record<string, string>> = {
  pending: 'Not sent yet: the next apply sends it.',
  creating: 'Sent; the answer did not arrive yet.',
  open: 'Running at the service: the next apply collects it.',
  done: 'Done, without a result file.',
};

/** Why a job has no result (its failure and advice, when it may be retried), for cards and the lightbox. */
export function reasonOf(entry: PageEntry): HTMLDivElement {
  const box = el('div', 'reason');
  if (entry.failureKind !== undefined || entry.error !== undefined) {
    box.appendChild(el('div', 'failure', [entry.failureKind, entry.error].filter(Boolean).join(': ')));
  } else if (WAITING[entry.status]) {
    box.appendChild(el('div', 'waiting', WAITING[entry.status]));
  }
  if (entry.notBefore !== undefined)
    box.appendChild(el('div', 'retry', 'Retry after ' + formatTime(entry.notBefore)));
  if (entry.advice !== undefined) box.appendChild(adviceNode(entry.advice));
  const owed = owedAdvice(entry);
  if (owed) box.appendChild(adviceNode(owed));
  return box;
}

/** Advice names commands in backticks, as runner status prints it: each shows as code with a Copy button. */
function adviceNode(text: string): HTMLDivElement {
  const box = el('div', 'advice');
  const parts = text.split('`');
  if (parts.length % 2 === 0) {
    box.textContent = text;
    return box;
  }
  parts.forEach((part, at) => {
    if (at % 2 === 1) box.appendChild(commandNode(part));
    else if (part !== '') box.appendChild(document.createTextNode(part));
  });
  return box;
}

/** A command as code, with a button that copies it. */
export function commandNode(command: string): HTMLSpanElement {
  const box = el('span', 'command');
  box.appendChild(el('code', '', command));
  const copy = el('button', 'copy copy-command', 'Copy');
  copy.type = 'button';
  copy.title = 'Copy this command';
  copy.setAttribute('aria-label', 'Copy the command ' + command);
  copy.addEventListener('click', () => copyText(command, copy));
  box.appendChild(copy);
  return box;
}

/** A done job whose results are not all here: the command that fetches them, as runner status says. */
function owedAdvice(entry: PageEntry): string | undefined {
  if (entry.status !== 'downloading') return undefined;
  const owed = entry.files.filter((file) => file.remote);
  if (owed.length > 0 && owed.every(isExpired))
    return (
      'The service deleted ' +
      (owed.length === 1 ? 'this result' : 'these results') +
      ': it cannot be fetched again.'
    );
  const command = data.commands ? data.commands.downloadOnly : 'runner apply … --download-only';
  return (
    '`' +
    command +
    '` fetches ' +
    (owed.length === 1 ? 'it' : 'them') +
    ' while the links live; it creates and pays for nothing.'
  );
}
