/**
 * Modes of everything the runner writes: results, output and state folders, `plan --out` reports,
 * logs. Private to the user by default: results and reports can be unreleased material, state names
 * jobs and prompts (#11.8). The umask can only narrow these. To share results, `chmod` them after the
 * run (docs/money.md "File modes").
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;
