import type { ExecutionEvent } from '../../execute/events.js';
import type { Style } from '../../text-style.js';
import { readableUtcTime } from '../../readable-time.js';

/**
 * One line of text for an event worth a line, or undefined for one that is not (progress ticks).
 * Used as is without a terminal (CI logs), and above the live view on one.
 */
export function formatEventLine(event: ExecutionEvent, style: Style): string | undefined {
  switch (event.type) {
    case 'job-skipped':
      return `${style.dim('skip')}      ${event.id}: ${event.detail}`;
    case 'uploaded':
      return event.cached ? undefined : `${style.dim('upload')}    ${event.file} (for ${event.id})`;
    case 'job-created': {
      const cost =
        event.chargeSource === 'Subscription'
          ? 'subscription'
          : event.creditCost === undefined
            ? 'cost unknown'
            : `${event.creditCost} credits`;
      const queue = (event.queuePosition ?? 0) > 0 ? `, queue position ${event.queuePosition}` : '';
      const verb = event.resent ? 'resumed' : 'created';
      return `${style.cyan(verb.padEnd(9))} ${event.id} (job ${event.jobId}, ${cost}${queue})`;
    }
    case 'job-status':
      return undefined;
    case 'job-completed':
      return `${style.green('done'.padEnd(9))} ${event.id} (${event.resultUrls.length} result${event.resultUrls.length === 1 ? '' : 's'})`;
    case 'job-failed': {
      const kind = event.failureKind ?? event.code ?? 'error';
      const advice = event.advice === undefined ? '' : ` ${style.dim(`— ${event.advice}`)}`;
      return `${style.red('failed'.padEnd(9))} ${event.id}: ${kind}: ${event.message}${advice}`;
    }
    case 'job-retry':
      return `${style.yellow('retry'.padEnd(9))} ${event.id}: ${event.failureKind}, attempt ${event.nextAttempt} in ${Math.round(event.delayMs / 1000)}s`;
    case 'job-deferred':
      return `${style.yellow('deferred'.padEnd(9))} ${event.id}: ${event.failureKind}; retry after ${readableUtcTime(event.notBefore, { seconds: true })}`;
    case 'job-uncertain':
      return `${style.yellow('uncertain')} ${event.id}: ${event.reason} (${event.action})`;
    case 'job-still-running':
      return `${style.yellow('running'.padEnd(9))} ${event.id}: still ${event.status} at the deadline; job ${event.jobId} kept, run apply again to follow it`;
    case 'downloaded':
      return `${style.dim('saved'.padEnd(9))} ${event.file} (${event.bytes} bytes)`;
    case 'concurrency-changed':
      return `${style.dim('limit')}     ${event.from} → ${event.to} jobs at once: ${event.reason}`;
    case 'stopped-creating':
      return `${style.yellow('stopping')}  ${event.message}`;
    case 'warning':
      return `${style.yellow('warning')}   ${event.id === undefined ? '' : `${event.id}: `}${event.message}`;
  }
}
