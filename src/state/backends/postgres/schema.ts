import type { ClientBase } from 'pg';
import { RunnerError } from '../../../errors.js';

/**
 * The database's shape, one step per version: a newer runner adds a step and upgrades an older
 * database on first use; an older runner meets a version it does not know and refuses it (below).
 * Steps are never edited once released.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: runs, their records (the journal, in append order), and one lease per run.
  `CREATE TABLE runner_runs (
     pipeline text NOT NULL,
     run_id text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (pipeline, run_id)
   );
   CREATE TABLE runner_records (
     seq bigserial PRIMARY KEY,
     pipeline text NOT NULL,
     run_id text NOT NULL,
     record text NOT NULL,
     lease_token bigint NOT NULL,
     holder text NOT NULL,
     FOREIGN KEY (pipeline, run_id) REFERENCES runner_runs (pipeline, run_id)
   );
   CREATE INDEX runner_records_by_run ON runner_records (pipeline, run_id, seq);
   CREATE TABLE runner_leases (
     pipeline text NOT NULL,
     run_id text NOT NULL,
     holder text NOT NULL,
     token bigint NOT NULL,
     acquired_at timestamptz NOT NULL,
     expires_at timestamptz NOT NULL,
     released boolean NOT NULL DEFAULT false,
     PRIMARY KEY (pipeline, run_id),
     FOREIGN KEY (pipeline, run_id) REFERENCES runner_runs (pipeline, run_id)
   );`,
  // 2: several machines on one run (issue 17.4). A run holds one lease row per process (the token
  // stays unique per run, so each row is still found by its token); `shared` rows are applies that
  // cooperate, running the plan `plan_identity` names. Each record names its job, so a job whose
  // claim passes to another machine is rebuilt from its own records. `runner_claims` is the run's
  // job queue: which process holds each job (its lease token), whether it holds one of the
  // account's open-job slots for it, and whether it is finished for the processes running now.
  `ALTER TABLE runner_leases DROP CONSTRAINT runner_leases_pkey;
   ALTER TABLE runner_leases ADD PRIMARY KEY (pipeline, run_id, token);
   ALTER TABLE runner_leases ADD COLUMN machine text;
   ALTER TABLE runner_leases ADD COLUMN shared boolean NOT NULL DEFAULT false;
   ALTER TABLE runner_leases ADD COLUMN plan_identity text;
   ALTER TABLE runner_records ADD COLUMN job_id text;
   CREATE FUNCTION pg_temp.runner_record_job(record text) RETURNS text LANGUAGE plpgsql AS $$
   BEGIN
     RETURN record::jsonb ->> 'id';
   EXCEPTION WHEN others THEN
     RETURN NULL; -- a damaged record: the replay warns of it
   END $$;
   UPDATE runner_records SET job_id = pg_temp.runner_record_job(record) WHERE record LIKE '%"id"%';
   CREATE INDEX runner_records_by_job ON runner_records (pipeline, run_id, job_id, seq) WHERE job_id IS NOT NULL;
   CREATE TABLE runner_claims (
     pipeline text NOT NULL,
     run_id text NOT NULL,
     job_id text NOT NULL,
     ord integer NOT NULL,
     token bigint,
     claimed_at timestamptz,
     slot boolean NOT NULL DEFAULT false,
     finished boolean NOT NULL DEFAULT false,
     PRIMARY KEY (pipeline, run_id, job_id),
     FOREIGN KEY (pipeline, run_id) REFERENCES runner_runs (pipeline, run_id)
   );
   CREATE INDEX runner_claims_queue ON runner_claims (pipeline, run_id, ord) WHERE NOT finished;`,
  // 3: one state snapshot per run (snapshots.ts): the text the folder's snapshot.jsonl holds, in parts
  // of whole lines, about a megabyte each (written and read a part at a time: a 100,000-job snapshot
  // is ~100 MB), and which records it stands for. Text like the records (JSON is UTF-8), so it comes
  // back as it went in; stored uncompressed: pglz costs more time than it saves here.
  `CREATE TABLE runner_snapshots (
     pipeline text NOT NULL,
     run_id text NOT NULL,
     last_seq bigint NOT NULL,
     records bigint NOT NULL,
     parts integer NOT NULL,
     bytes bigint NOT NULL,
     lease_token bigint NOT NULL,
     holder text NOT NULL,
     written_at timestamptz NOT NULL DEFAULT clock_timestamp(),
     PRIMARY KEY (pipeline, run_id),
     FOREIGN KEY (pipeline, run_id) REFERENCES runner_runs (pipeline, run_id)
   );
   CREATE TABLE runner_snapshot_parts (
     pipeline text NOT NULL,
     run_id text NOT NULL,
     part integer NOT NULL,
     data text NOT NULL,
     PRIMARY KEY (pipeline, run_id, part),
     FOREIGN KEY (pipeline, run_id) REFERENCES runner_runs (pipeline, run_id)
   );
   ALTER TABLE runner_snapshot_parts ALTER COLUMN data SET STORAGE EXTERNAL;`,
  // 4: model prices the machines of one run share under a cap (issue #31.4): whether a create answer
  // or a polled job showed the model's credit price, the most one job was charged above its estimate,
  // and the process (lease token) whose first job of a model not yet priced is on its way.
  `CREATE TABLE runner_model_prices (
     pipeline text NOT NULL,
     run_id text NOT NULL,
     model text NOT NULL,
     priced boolean NOT NULL DEFAULT false,
     over_credits double precision,
     probe_token bigint,
     PRIMARY KEY (pipeline, run_id, model),
     FOREIGN KEY (pipeline, run_id) REFERENCES runner_runs (pipeline, run_id)
   );`,
  // 5: a run pulled into a folder (\`runner state pull\`) is marked moved: applying the database's copy
  // is refused from then on (#31.11), until \`state push\` brings the run back and clears the mark.
  `ALTER TABLE runner_runs ADD COLUMN moved_to text;
   ALTER TABLE runner_runs ADD COLUMN moved_at timestamptz;`,
  // 6: an open-job slot kept past its claim (issue #31.6): a create whose answer was lost may have
  // made a job that is open on the service; its slot counts until then, though the claim is finished.
  `ALTER TABLE runner_claims ADD COLUMN slot_until timestamptz;`,
  // 7: the account's limits are the account's, not a run's (#31.5). A claim names the account its run
  // pays from (a hash of the key, never the key), so runs of one account count their open-job slots
  // together; and a 429's Retry-After one machine met pauses every machine of the account until then.
  `ALTER TABLE runner_claims ADD COLUMN account text;
   CREATE INDEX runner_claims_slots_by_account ON runner_claims (account) WHERE slot AND account IS NOT NULL;
   CREATE TABLE runner_account_pauses (
     account text PRIMARY KEY,
     paused_until timestamptz NOT NULL
   );`,
  // 8: a late record (#31.9) that no longer fits its job is set aside by the apply that passes it over
  // (and warns of it, once): kept for a person to read, passed over quietly by every later replay.
  `ALTER TABLE runner_records ADD COLUMN set_aside_at timestamptz;`,
];

/** The schema version this runner writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Any number, the same in every runner: serializes two runners upgrading one database at once. */
const MIGRATION_LOCK = 0x72756e6e;

/**
 * Brings the database to {@link SCHEMA_VERSION}: creates `runner_schema_migrations` on first use and
 * runs the steps it lacks, in one transaction under an advisory lock. A database of a newer schema
 * is a STATE_VERSION error (nothing is read or written).
 */
export async function migrateSchema(client: ClientBase): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS runner_schema_migrations (
         version integer PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM runner_schema_migrations',
    );
    const current = rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) throw newerSchemaError(current);
    for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
      await client.query(MIGRATIONS[version - 1] ?? '');
      await client.query('INSERT INTO runner_schema_migrations (version) VALUES ($1)', [version]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

function newerSchemaError(version: number): RunnerError {
  return new RunnerError(
    'STATE_VERSION',
    `The state database has schema version ${version}; this runner knows versions up to ${SCHEMA_VERSION}. A newer runner upgraded it. Nothing was read or written.`,
    { hint: 'Use the runner version that upgraded the database (or a newer one).' },
  );
}

/**
 * The database's schema version without changing anything (read-only commands): 0 when the runner's
 * tables were never created; a STATE_VERSION error when it is newer than this runner.
 */
export async function readSchemaVersion(client: ClientBase): Promise<number> {
  const { rows } = await client.query<{ present: boolean }>(
    "SELECT to_regclass('runner_schema_migrations') IS NOT NULL AS present",
  );
  if (rows[0]?.present !== true) return 0;
  const result = await client.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM runner_schema_migrations',
  );
  const version = result.rows[0]?.version ?? 0;
  if (version > SCHEMA_VERSION) throw newerSchemaError(version);
  return version;
}
