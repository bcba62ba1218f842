/**
 * Mocks as code: endpoints with their settings, rules, state seeds and OpenAPI documents in one YAML
 * or JSON file, loaded at start (`serve --config`), reloaded on change (`--watch`), written from a
 * running server (`export`) and applied to one through its API (`import`).
 */
import type { ConfigFileDeps } from './deps.js';
import { applyPlan } from './apply.js';
import { planConfig } from './plan.js';
import { readSource } from './source.js';
import { watchConfig, type ConfigWatcher, type WatchOptions } from './watch.js';

export { ConfigFileError, type Problem } from './source.js';
export { exportConfig, importConfig, type RemoteOptions } from './remote.js';
export { configCommand } from './command.js';
export type { ConfigWatcher } from './watch.js';
export type { ConfigFileDeps } from './deps.js';

/**
 * Loads the file into this server: checked whole first (ConfigFileError with every problem, its line
 * and field, and nothing applied), then applied endpoint by endpoint.
 */
export async function loadConfigFile(ctx: ConfigFileDeps, file: string): Promise<{ endpoints: string[] }> {
  const src = readSource(file, process.env, ctx.config.configFileLimit);
  const plan = await planConfig(src, ctx.config);
  await applyPlan(ctx, src, plan);
  return { endpoints: plan.map((p) => p.name) };
}

/** `--watch`: loads the file again after each change; a broken file is logged and changes nothing. */
export function watchConfigFile(ctx: ConfigFileDeps, file: string, opts: WatchOptions = {}): ConfigWatcher {
  return watchConfig(ctx, file, async () => void (await loadConfigFile(ctx, file)), opts);
}
