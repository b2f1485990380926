/**
 * Tracks credits against an optional cap. A create first reserves its estimate; the answer's actual
 * `creditCost` replaces the reservation; a failed job's cost is refunded (the service releases it).
 */
export interface Budget {
  /** Reserves `estimate` unless it would cross the cap. */
  tryReserve(estimate: number): boolean;
  /** The create answered: the reservation becomes the actual cost. */
  settle(estimate: number, actual: number): void;
  /** The create made nothing. */
  release(estimate: number): void;
  /** A charged job failed and was refunded. */
  refund(actual: number): void;
  /** Credits charged in this run, net of refunds (negative when only earlier runs' jobs were refunded). */
  readonly spent: number;
  /** This run plus earlier runs of the same state. */
  readonly spentTotal: number;
}

/** `limit` undefined: no cap. `alreadySpent` counts earlier runs against the cap too. */
export function createBudget(limit: number | undefined, alreadySpent: number): Budget {
  let spent = 0;
  let reserved = 0;
  return {
    tryReserve(estimate) {
      if (limit !== undefined && alreadySpent + spent + reserved + estimate > limit) return false;
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
    get spent() {
      return spent;
    },
    get spentTotal() {
      return alreadySpent + spent;
    },
  };
}
