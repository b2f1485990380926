/** The help text's exit code table; the README carries the same table. */
export const EXIT_CODE_HELP = `Exit codes:
  0    success (apply: every job done)
  1    some jobs failed or are still running, or the service could not be used;
       apply/status: a paid job's results are not all saved (downloading)
  2    invalid input or usage (manifest errors, unknown command or option)
  3    insufficient credits, or over the budget / --max-credits
  4    authentication failed (HTTP 401/403, or no API key)
  130  interrupted (Ctrl-C)`;
