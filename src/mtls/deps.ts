/** The services client certificates draw on (the CA, the pipeline step), typed from the folders below it. */
import type { Config } from '../config.js';
import type { Store } from '../store/index.js';

export interface MtlsDeps {
  config: Config;
  store: Store;
  /** The clock, injectable for tests. */
  now: () => number;
}
