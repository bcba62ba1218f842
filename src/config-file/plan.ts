/**
 * From a parsed file to what will be applied, checked whole before anything is: the file's shape
 * (TypeBox, the API's schemas), endpoint names, every rule (the API's rule parser), every state seed
 * (the state command's checks), and the files it names: `blobFile` of a mock action, read relative to the
 * configuration file and named by its content, `openapi` documents (validated as an upload is) and
 * `har` captures (their entries appended to the rules, har.ts).
 * Problems come back with the file's line and field.
 */
import { createHash } from 'node:crypto';
import { basename, dirname, extname, resolve } from 'node:path';
import type { Config } from '../config.js';
import { readRegularFile } from '../regular-file.js';
import { stateItemsOf } from '../admin/index.js';
import { ECHO_ENDPOINT, endpointNameProblem } from '../endpoint/index.js';
import type { ErrorDetail } from '../errors.js';
import { parseRuleList, type RuleData, type SettingsPatch } from '../mock/index.js';
import { validateSpec, type ValidSpec } from '../oas/index.js';
import { compileInWorker, GRPC_SPEC_LIMIT } from '../grpc/index.js';
import { explain } from '../schema/index.js';
import { stateLimits } from '../state/index.js';
import type { StateItem } from '../store/index.js';
import { sourceLimits } from '../template/index.js';
import { planHar } from './har.js';
import { ConfigFile } from './model.js';
import { located, type Problem, type Source } from './source.js';

export interface BlobFile {
  /** The blob's name on the server: `res-body-file-<sha256 prefix>.<extension>`. */
  name: string;
  contentType: string;
  data: Buffer;
}

export interface PlannedEndpoint {
  name: string;
  settings: SettingsPatch;
  /** Rule inputs, `blobFile` replaced by the `blobPath` of its blob; then the rules of `har`. */
  rules: unknown[];
  blobs: BlobFile[];
  state: Omit<StateItem, 'lastModified'>[];
  openapi?: { spec: ValidSpec; text: string; intelligenceMock: boolean };
  /** gRPC descriptors: the file as read, and the descriptor set it compiles to (base64, as stored). */
  grpc?: { data: Buffer; filename: string; descriptorSet: string };
}

const TYPES: Record<string, string> = {
  json: 'application/json',
  xml: 'application/xml',
  txt: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
  csv: 'text/csv',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
};

/**
 * Reads a file the configuration names, relative to the configuration file: a regular file of at
 * most `limit` bytes (checked before reading), never a device, FIFO or directory (regular-file.ts).
 */
function readNamed(base: string, path: string, limit: number): Buffer {
  return readRegularFile(resolve(dirname(base), path), limit);
}

function why(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The API's error details (paths relative to a request body) as the file's fields. */
function under(details: ErrorDetail[] | undefined, from: string, to: string, fallback: string): Problem[] {
  if (!details || details.length === 0) return [{ path: to, message: fallback }];
  return details.map((d) => ({
    path: d.path.startsWith(from) ? to + d.path.slice(from.length) : to + (d.path === '/' ? '' : d.path),
    message: d.message,
  }));
}

function errorDetails(err: unknown): ErrorDetail[] | undefined {
  return (err as { details?: ErrorDetail[] }).details;
}

/** Replaces each `blobFile` of a mock action by the `blobPath` of the file's blob. */
function withBlobs(
  src: Source,
  rules: unknown[],
  at: string,
  config: Config,
  blobs: Map<string, BlobFile>,
  problems: Problem[],
): unknown[] {
  return rules.map((rule, i) => {
    const action = (rule as { action?: Record<string, unknown> } | null)?.action;
    if (typeof action !== 'object' || action === null || !('blobFile' in action)) return rule;
    const path = `${at}/rules/${i}/action/blobFile`;
    const file = action['blobFile'];
    if (typeof file !== 'string' || file === '') {
      problems.push({ path, message: 'Expected the path of a file, relative to this file' });
      return rule;
    }
    if (action['type'] !== 'mock' || 'blobPath' in action) {
      problems.push({ path, message: 'Only a mock action without blobPath takes blobFile' });
      return rule;
    }
    try {
      const data = readNamed(src.file, file, config.blobLimit);
      const ext = extname(file).slice(1).toLowerCase();
      const safeExt = /^[a-z0-9]{1,10}$/.test(ext) ? ext : 'bin';
      const hash = createHash('sha256').update(data).digest('hex').slice(0, 20);
      const blob: BlobFile = {
        name: `res-body-file-${hash}.${safeExt}`,
        contentType: TYPES[safeExt] ?? 'application/octet-stream',
        data,
      };
      blobs.set(blob.name, blob);
      const { blobFile: _file, ...rest } = action;
      return { ...(rule as object), action: { ...rest, blobPath: blob.name } };
    } catch (err) {
      problems.push({ path, message: `The file cannot be read: ${why(err)}` });
      return rule;
    }
  });
}

/** Checks the whole file; throws ConfigFileError with every problem found. */
export async function planConfig(src: Source, config: Config): Promise<PlannedEndpoint[]> {
  const shape = explain(ConfigFile, src.data);
  if (shape.length > 0)
    throw located(
      src,
      shape.map((d) => ({ path: d.path, message: d.message })),
    );
  const file = src.data as ConfigFile;
  const problems: Problem[] = [];
  const out: PlannedEndpoint[] = [];
  const limits = stateLimits(config);
  for (const [name, ep] of Object.entries(file.endpoints)) {
    const at = `/endpoints/${name}`;
    const nameProblem =
      name === ECHO_ENDPOINT ? 'The built-in echo endpoint cannot be configured' : endpointNameProblem(name);
    if (nameProblem) {
      problems.push({ path: at, message: nameProblem });
      continue;
    }
    const blobs = new Map<string, BlobFile>();
    const rules = withBlobs(src, ep.rules ?? [], at, config, blobs, problems);
    let checked: RuleData[] = [];
    try {
      let n = 0;
      checked = await parseRuleList(rules, () => `checked-${n++}`, sourceLimits(config));
    } catch (err) {
      problems.push(...under(errorDetails(err), '/rules', `${at}/rules`, why(err)));
    }
    if (ep.har !== undefined) {
      const path = typeof ep.har === 'string' ? `${at}/har` : `${at}/har/file`;
      try {
        rules.push(...planHar(src.file, ep.har, config.harImportLimit, checked).rules);
      } catch (err) {
        problems.push({ path, message: `The HAR file cannot be imported: ${why(err)}` });
      }
    }
    let state: PlannedEndpoint['state'] = [];
    try {
      state = stateItemsOf(limits, ep.state ?? []);
    } catch (err) {
      problems.push(...under(errorDetails(err), '/items', `${at}/state`, why(err)));
    }
    const planned: PlannedEndpoint = {
      name,
      settings: ep.settings ?? {},
      rules,
      blobs: [...blobs.values()],
      state,
    };
    if (ep.openapi !== undefined) {
      const ref = typeof ep.openapi === 'string' ? { file: ep.openapi } : ep.openapi;
      const path = typeof ep.openapi === 'string' ? `${at}/openapi` : `${at}/openapi/file`;
      try {
        const text = readNamed(src.file, ref.file, config.oasSpecLimit).toString('utf8');
        const spec = await validateSpec(text, { schemaBudget: config.oasSchemaBudget });
        planned.openapi = { spec, text, intelligenceMock: ref.intelligenceMock ?? false };
      } catch (err) {
        const found = errorDetails(err)?.map((d) => `${d.path}: ${d.message}`) ?? [];
        problems.push({ path, message: [why(err), ...found.slice(0, 5)].join('; ') });
      }
    }
    if (ep.grpc !== undefined) {
      const path = `${at}/grpc`;
      if (ep.openapi !== undefined)
        problems.push({ path, message: 'an endpoint has one document: openapi or grpc, not both' });
      else
        try {
          const data = readNamed(src.file, ep.grpc, GRPC_SPEC_LIMIT);
          const filename = basename(ep.grpc);
          const compiled = await compileInWorker({ data, filename });
          planned.grpc = {
            data,
            filename,
            descriptorSet: Buffer.from(compiled.descriptorSet).toString('base64'),
          };
        } catch (err) {
          const found = errorDetails(err)?.map((d) => `${d.path}: ${d.message}`) ?? [];
          problems.push({ path, message: [why(err), ...found.slice(0, 5)].join('; ') });
        }
    }
    out.push(planned);
  }
  if (problems.length > 0) throw located(src, problems);
  return out;
}
