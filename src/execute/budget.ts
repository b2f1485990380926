/**
 * Tracks credits against an optional cap. A create first reserves its estimate; the answer's actual
 * `creditCost` replaces the reservation; a failed job's cost is refunded (the service releases it).
 *
 * The estimate comes from the catalog, which may be wrong (a price of 0 for a job charged 8, issue
 * #24.2), and a create answer may carry no cost at all (only `jobId`, api-notes): the charge then
 * arrives in the polled job (issue #31.4). So under a cap the first create of each model is sent alone
 * and the next one waits until a real price was seen (in the create's answer or in its job's poll; an
 * estimate of 0 is not a price), and once the service charged a job of a model more than its
 * estimate, that model's next jobs are estimated at no less than the charge: a wrong price lets the
 * cap be crossed by one job, not by a whole wave of them. With `shared` (several machines on one
 * run), the price one machine learns is every machine's, and one machine alone sends the first job.
 */
export interface Budget {
  /** What a create of `model` reserves: `estimate`, raised to the most a job of it was charged above its estimate. */
  estimateFor(model: string, estimate: number): number;
  /**
   * Resolves when a create of `model` may be reserved. Under a cap, while no price of the model has
   * been seen, job `id` becomes its one create on the way (`endProbe` or `learnPrice` lets the next
   * go), and other creates of the model wait. Resolves at once when `stopped()` says so.
   */
  admit(model: string, id: string, stopped?: () => boolean): Promise<void>;
  /** Job `id` ended (or its create made nothing) without showing its model's price: the next may go. */
  endProbe(id: string): Promise<void>;
  /**
   * A create answer or a polled job showed what a job of `model`, estimated at `estimate`, was
   * charged in credits (not a job the subscription covered).
   */
  learnPrice(model: string, estimate: number, actual: number): Promise<void>;
  /** Reserves `estimate` unless it would cross the cap. */
  tryReserve(estimate: number): boolean;
  /** The create answered: the reservation becomes the actual cost (the estimate when it had none). */
  settle(estimate: number, actual: number): void;
  /** The create made nothing. */
  release(estimate: number): void;
  /** A charged job failed and was refunded. */
  refund(actual: number): void;
  /** A job of an earlier create is counted at `actual` instead of `counted` (a polled or adopted job). */
  recount(counted: number, actual: number): void;
  /**
   * What other processes applying the same run have spent since this one started (several machines
   * on one run, issue 17.4): counted against the cap, and in `spentTotal`, from now on.
   */
  countOthers(credits: number): void;
  /** Credits charged in this run, net of refunds (negative when only earlier runs' jobs were refunded). */
  readonly spent: number;
  /** This run plus earlier runs of the same state. */
  readonly spentTotal: number;
}

/** Model prices shared by the machines applying one run (`RunCoordination`'s price methods). */
export interface SharedPrices {
  /**
   * Whether this process may send the first create of `model`: `priced` (a price was seen; `over`, the
   * most one job was charged above its estimate), `probe` (granted: no other machine sends one), or
   * `wait` (another machine's first job of it is on its way).
   */
  probeModel(
    model: string,
  ): Promise<{ kind: 'priced'; over?: number } | { kind: 'probe' } | { kind: 'wait' }>;
  /** Shares a price seen (`over` as in `probeModel`). */
  shareModelPrice(model: string, over: number | undefined): Promise<void>;
  /** This process's first job of `model` ended without a price: another machine may send one. */
  endModelProbe(model: string): Promise<void>;
  /** Resolves when another machine may have shared a price or ended its probe (or after a short while). */
  waitForChange(): Promise<void>;
}

interface Probe {
  id: string;
  done: Promise<void>;
  end: () => void;
}

/** `limit` undefined: no cap. `alreadySpent` counts earlier runs against the cap too. */
export function createBudget(limit: number | undefined, alreadySpent: number, shared?: SharedPrices): Budget {
  let spent = 0;
  let reserved = 0;
  let others = 0;
  /** Per model: the most one job was charged above its estimate. */
  const charged = new Map<string, number>();
  /** Models whose credit price a create answer or a polled job has shown. */
  const priced = new Set<string>();
  /** Per model not yet priced: the job whose create is on its way (or open, its price unknown). */
  const probes = new Map<string, Probe>();
  const raise = (model: string, over: number | undefined) => {
    if (over !== undefined) charged.set(model, Math.max(over, charged.get(model) ?? 0));
  };
  const endLocal = (model: string): Probe | undefined => {
    const probe = probes.get(model);
    if (probe === undefined) return undefined;
    probes.delete(model);
    probe.end();
    return probe;
  };
  return {
    estimateFor(model, estimate) {
      return Math.max(estimate, charged.get(model) ?? 0);
    },
    async admit(model, id, stopped = () => false) {
      if (limit === undefined) return;
      for (;;) {
        if (priced.has(model) || stopped()) return;
        const local = probes.get(model);
        if (local !== undefined) {
          await local.done;
          continue;
        }
        let end = (): void => undefined;
        const done = new Promise<void>((resolve) => (end = resolve));
        const probe: Probe = { id, done, end };
        probes.set(model, probe);
        if (shared === undefined) return;
        // The local probe stands while the machines are asked, so this process asks once per model.
        const answer = await shared.probeModel(model);
        if (answer.kind === 'probe') return;
        if (probes.get(model) === probe) endLocal(model);
        if (answer.kind === 'priced') {
          priced.add(model);
          raise(model, answer.over);
          return;
        }
        await shared.waitForChange();
      }
    },
    async endProbe(id) {
      for (const [model, probe] of probes) {
        if (probe.id !== id) continue;
        endLocal(model);
        // A failed write leaves the probe to end with this process's lease.
        await shared?.endModelProbe(model).catch(() => undefined);
      }
    },
    async learnPrice(model, estimate, actual) {
      const over = actual > estimate ? actual : undefined;
      const known = priced.has(model) && (over === undefined || over <= (charged.get(model) ?? 0));
      priced.add(model);
      raise(model, over);
      endLocal(model);
      // A failed write leaves the others waiting until this process's lease ends: never an overspend.
      if (!known) await shared?.shareModelPrice(model, over).catch(() => undefined);
    },
    tryReserve(estimate) {
      if (limit !== undefined && alreadySpent + others + spent + reserved + estimate > limit) return false;
      reserved += estimate;
      return true;
    },
    settle(estimate, actual) {
      reserved -= estimate;
      spent += actual;
    },
    release(estimate) {
      reserved -= estimate;
    },
    refund(actual) {
      spent -= actual;
    },
    recount(counted, actual) {
      spent += actual - counted;
    },
    countOthers(credits) {
      others = credits;
    },
    get spent() {
      return spent;
    },
    get spentTotal() {
      return alreadySpent + others + spent;
    },
  };
}
