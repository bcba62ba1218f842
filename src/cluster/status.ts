/**
 * What this instance knows of its shared dependencies and of the modes it fell back to, for
 * `/api/v2/health` and `/metrics`. Each part reports under its own name (`redis`, `postgres`,
 * `rate_limits`, `events`, …); a part that never reported is not shown.
 */
export type DependencyState = 'up' | 'down' | 'degraded';

export interface DependencyReport {
  state: DependencyState;
  /** What a person reads: why it is down, which fallback is in use. */
  detail?: string;
  /** When this state began (epoch ms). */
  since: number;
}

export class DependencyStatus {
  private readonly reports = new Map<string, DependencyReport>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Records `name`'s state; `since` moves only when the state changes. */
  report(name: string, state: DependencyState, detail?: string): void {
    const prev = this.reports.get(name);
    const since = prev && prev.state === state ? prev.since : this.now();
    this.reports.set(name, detail === undefined ? { state, since } : { state, detail, since });
  }

  get(name: string): DependencyReport | undefined {
    return this.reports.get(name);
  }

  /** Every report, by name. */
  snapshot(): Record<string, DependencyReport> {
    return Object.fromEntries(this.reports);
  }

  /** Whether any part is down or degraded. */
  get degraded(): boolean {
    for (const r of this.reports.values()) if (r.state !== 'up') return true;
    return false;
  }
}
