/**
 * Whether this instance takes traffic, for `GET /readyz` (SPEC §8): `starting` until the app is built
 * (the database migrated, every route registered), `ready`, then `draining` from SIGTERM on. Only this
 * instance's own life moves it: a shared dependency being down never does, or every replica would
 * leave the load balancer at once.
 */
export type ReadinessState = 'starting' | 'ready' | 'draining';

export class Readiness {
  private current: ReadinessState = 'starting';

  get state(): ReadinessState {
    return this.current;
  }

  /** The instance can serve; a draining instance stays draining. */
  ready(): void {
    if (this.current === 'starting') this.current = 'ready';
  }

  /** The instance is leaving: readiness fails from now on, for good. */
  drain(): void {
    this.current = 'draining';
  }
}
