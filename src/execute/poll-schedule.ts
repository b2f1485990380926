/**
 * When to poll a job next. The service asks for a poll every 3 to 5 seconds (spec 4.4, 8), and a job's
 * end is only seen at the next poll: with blind uniform polling that costs about 2 s per job on
 * average (E[X²]/2E[X] for X uniform in [3 s, 5 s]), 4.5 % of a 45 s image job. While the job reports
 * `progress`, its completion time can be estimated, and the next poll, still 3 to 5 s away, is aimed
 * just after it.
 */

/** A `progress` reading (0–100) and when it was taken. */
export interface ProgressSample {
  at: number;
  progress: number;
}

/** A uniformly jittered delay in [min, max]: the policy when nothing better is known. */
export function computePollDelay(range: readonly [number, number], random: () => number): number {
  return Math.round(range[0] + (range[1] - range[0]) * random());
}

/**
 * Milliseconds until the job should reach 100 %, from the first and the latest sample (the longest
 * baseline, so the integer rounding of `progress` matters least). Undefined without two samples that
 * show progress moving forward.
 */
export function estimateRemainingMs(first: ProgressSample, latest: ProgressSample): number | undefined {
  const progressed = latest.progress - first.progress;
  const elapsed = latest.at - first.at;
  if (progressed <= 0 || elapsed <= 0 || latest.progress >= 100) return undefined;
  return ((100 - latest.progress) * elapsed) / progressed;
}

/**
 * The next delay, always within `range`. With an estimate `remainingMs`, it lands `margin` after the
 * expected end when that is reachable now; when the end is further away it is chosen so that the
 * poll after it can land there (the estimate is refined on the way). Without one, uniform jitter.
 */
export function nextPollDelay(
  range: readonly [number, number],
  random: () => number,
  remainingMs: number | undefined,
): number {
  const [min, max] = range;
  if (remainingMs === undefined || !Number.isFinite(remainingMs)) return computePollDelay(range, random);
  // Progress is reported in whole percent, rounded down: land a little after the estimate.
  const target = remainingMs + Math.max(1, Math.round(max * 0.03));
  const aim = target <= max ? target : target - (min + max) / 2;
  return Math.round(Math.min(max, Math.max(min, aim)));
}
