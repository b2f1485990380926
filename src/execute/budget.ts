/**
 * Tracks credits against an optional cap. A create first reserves its estimate; the answer's actual
 * `creditCost` replaces the reservation; a failed job's cost is refunded (the service releases it).
 *
 * The estimate comes from the catalog, which may be wrong (a price of 0 for a job charged 8, issue
 * #24.2). So under a cap the first create of each model is sent alone, and once the service charged a
 * job of a model more than its estimate, that model's next jobs are estimated at no less than the
 * charge: a wrong price lets the cap be crossed by one job, not by a whole wave of them.
 */
export interface Budget {
  /** What a create of `model` reserves: `estimate`, raised to the most a job of it was charged above its estimate. */
  estimateFor(model: string, estimate: number): number;
  /**
   * Resolves when a create of `model` may be reserved, with the function to call once it is answered
   * or given up. Under a cap, a model whose price no answer has shown yet is sent one create at a time.
   */
  admit(model: string): Promise<() => void>;
  /** Reserves `estimate` unless it would cross the cap. */
  tryReserve(estimate: number): boolean;
  /**
   * The create answered: the reservation becomes the actual cost. `model` when the answer shows the
   * model's credit price (not a job the subscription covered).
   */
  settle(estimate: number, actual: number, model?: string): void;
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

/** `limit` undefined: no cap. `alreadySpent` counts earlier runs against the cap too. */
export function createBudget(limit: number | undefined, alreadySpent: number): Budget {
  let spent = 0;
  let reserved = 0;
  let others = 0;
  /** Per model: the most one job was charged above its estimate. */
  const charged = new Map<string, number>();
  /** Models whose credit price an answer has shown in this run. */
  const priced = new Set<string>();
  /** The create of a model not yet priced that is on its way, if any. */
  let probe: Promise<void> | undefined;
  return {
    estimateFor(model, estimate) {
      return Math.max(estimate, charged.get(model) ?? 0);
    },
    async admit(model) {
      if (limit === undefined) return () => undefined;
      while (probe !== undefined && !priced.has(model)) await probe;
      if (priced.has(model)) return () => undefined;
      let done = (): void => undefined;
      probe = new Promise((resolve) => {
        done = () => {
          probe = undefined;
          resolve();
        };
      });
      return done;
    },
    tryReserve(estimate) {
      if (limit !== undefined && alreadySpent + others + spent + reserved + estimate > limit) return false;
      reserved += estimate;
      return true;
    },
    settle(estimate, actual, model) {
      reserved -= estimate;
      spent += actual;
      if (model === undefined) return;
      priced.add(model);
      if (actual > estimate) charged.set(model, Math.max(actual, charged.get(model) ?? 0));
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
