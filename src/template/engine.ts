/**
 * Response templates (SPEC §6): Handlebars, in an environment of our own, compiled once per rule
 * change and rendered with an EMPTY context: request data is reachable only through helpers, and
 * Handlebars' prototype guards stay on, so `{{constructor.name}}` or `{{lookup this '__proto__'}}`
 * render nothing and no template can run code. Problems never stop a response: an unknown helper,
 * a helper that throws or a bad argument renders empty and is noted; a syntax error is recovered by
 * turning the broken `{{` into literal text; only a template that cannot be recovered, or a render that
 * runs out of its loop or output budget, gives `{ ok: false }` (the caller answers 561).
 */
import Handlebars from 'handlebars';
import type { Config } from '../config.js';
import type { Faker } from '@faker-js/faker';
import { HELPERS, makeEach } from './helpers/index.js';
import { stateUseOf, type StateUse } from './state-refs.js';
import { measureTemplate, SOURCE_LIMITS, sourceLimits } from './source-limits.js';
import {
  RenderLimitError,
  RenderState,
  type HelperOptions,
  type TemplateInput,
  type TemplateLimits,
} from './state.js';

export type RenderResult = { ok: true; text: string; problems: string[] } | { ok: false; error: string };

export interface CompiledTemplate {
  render(input: TemplateInput): RenderResult;
  /** Problems found while compiling (recovered syntax errors), reported with every render. */
  readonly problems: readonly string[];
  /** The endpoint state its helpers name; undefined when it uses none (state-refs.ts). */
  readonly state: StateUse | undefined;
}

/** The default bounds of a render. */
export const TEMPLATE_LIMITS: TemplateLimits = {
  ...SOURCE_LIMITS,
  maxIterations: 10_000,
  maxOutput: 1024 * 1024,
  maxFakeData: 100_000,
  maxLoopWork: 200_000,
  imageHost: 'https://loremflickr.com',
};

/** The bounds the configuration sets (TEMPLATE_MAX_*, IMAGE_HOST). */
export function templateLimits(
  config: Pick<
    Config,
    | 'imageHost'
    | 'templateMaxBytes'
    | 'templateMaxMustaches'
    | 'templateMaxNesting'
    | 'templateMaxFakeData'
    | 'templateMaxLoopWork'
  >,
): Partial<TemplateLimits> {
  return {
    ...sourceLimits(config),
    maxFakeData: config.templateMaxFakeData,
    maxLoopWork: config.templateMaxLoopWork,
    imageHost: config.imageHost,
  };
}

/** Most syntax errors recovered in one template before it is declared broken. */
const MAX_RECOVERIES = 20;
/**
 * Most characters parsed for one template, all recovery attempts together: each attempt parses the
 * whole template again, and 20 attempts on a 1 MiB template would hold the event loop for 0.4 s.
 */
const MAX_PARSED = 4 * 1024 * 1024;

const env = Handlebars.create();
const builtInEach = env.helpers['each'] as (...args: unknown[]) => unknown;

/** Wraps a helper: a throw becomes empty text and a noted problem (limits still stop the render). */
function guarded(name: string, helper: (...args: unknown[]) => unknown) {
  return function (this: unknown, ...args: unknown[]): unknown {
    try {
      return helper.apply(this, args);
    } catch (err) {
      if (err instanceof RenderLimitError) throw err;
      const options = args[args.length - 1] as HelperOptions;
      options.data.mb.problem(`${name}: ${(err as Error).message}`);
      return '';
    }
  };
}

for (const [name, helper] of Object.entries(HELPERS)) env.registerHelper(name, guarded(name, helper));
env.registerHelper('each', guarded('each', makeEach(builtInEach)));
// A template must not write to the service's output: `log` renders nothing and says so.
env.registerHelper('log', function (...args: unknown[]) {
  const options = args[args.length - 1] as HelperOptions;
  options.data.mb.problem('log: not available in response templates');
  return '';
});
env.registerHelper('helperMissing', function (...args: unknown[]) {
  const options = args[args.length - 1] as HelperOptions;
  options.data.mb.problem(`unknown helper "${options.name}"`);
  return '';
});
env.registerHelper('blockHelperMissing', function (...args: unknown[]) {
  const options = args[args.length - 1] as HelperOptions;
  options.data.mb.problem(`unknown block helper "${options.name}"`);
  return '';
});

/** Handlebars' compilers, which its type declarations leave out. */
interface Compilers {
  Compiler: new () => { compile(ast: hbs.AST.Program, options: CompileOptions): unknown };
  JavaScriptCompiler: new () => {
    compile(
      environment: unknown,
      options: CompileOptions,
      context: undefined,
      asObject: true,
    ): TemplateSpecification;
  };
}
type Template = HandlebarsTemplateDelegate & { _setup: (options: { partial?: boolean }) => void };

const COMPILE_OPTIONS: CompileOptions = { knownHelpersOnly: false, strict: false, data: true };

/**
 * The template `env.compile` makes on its first call (as Handlebars' own compileInput does), with
 * one difference: the set-up that Handlebars repeats on every top-level call, merging and wrapping
 * every registered helper and building the prototype access rules, runs once. It sets only what
 * depends on this environment, whose helpers are all registered when the module loads, and on the
 * options `render` passes, the same on every call (most of a render's time before:
 * docs/performance.md). A call as a partial (which sets the container from its options) makes the next
 * top-level call set it up again.
 */
function templateOf(ast: hbs.AST.Program): Template {
  const compilers = env as unknown as Compilers;
  const program = env.parse(ast as unknown as string, COMPILE_OPTIONS);
  const environment = new compilers.Compiler().compile(program, COMPILE_OPTIONS);
  const spec = new compilers.JavaScriptCompiler().compile(environment, COMPILE_OPTIONS, undefined, true);
  const template = env.template(spec) as Template;
  const setup = template._setup;
  let ready = false;
  template._setup = (options) => {
    if (ready && !options.partial) return;
    setup(options);
    ready = !options.partial;
  };
  return template;
}

let fakers: Record<string, Faker> | undefined;

/**
 * Loads fake data (all locales, ~50 MB and ~0.2 s once): called before the first templated rule of
 * the process is compiled, so that a service without templates never pays for it.
 */
export async function loadFakeData(): Promise<void> {
  fakers ??= (await import('@faker-js/faker')).allFakers as unknown as Record<string, Faker>;
}

function fakerFor(locale: string, problems: string[]): Faker | undefined {
  if (!fakers) return undefined;
  if (Object.hasOwn(fakers, locale)) return fakers[locale];
  const language = locale.split('_')[0]!;
  if (Object.hasOwn(fakers, language)) return fakers[language];
  problems.push(`faker has no locale "${locale}"; English is used`);
  return fakers['en'];
}

/**
 * The faker of `locale` (or of its language, else English) once `loadFakeData` has run: fake data
 * outside templates (OpenAPI mocking's generated bodies) comes from the same instances.
 */
export function fakerOf(locale: string): Faker | undefined {
  return fakerFor(locale, []);
}

function lineOf(err: Error): number | undefined {
  const e = err as Error & { lineNumber?: number };
  if (typeof e.lineNumber === 'number') return e.lineNumber;
  const m = /line (\d+)/.exec(err.message);
  return m ? Number(m[1]) : undefined;
}

/** Escapes the last unescaped `{{` on line `line` (or, failing that, before it) as literal text. */
function escapeBroken(source: string, line: number): string | undefined {
  const lines = source.split('\n');
  for (let l = Math.min(line, lines.length) - 1; l >= 0; l--) {
    const text = lines[l]!;
    for (let i = text.lastIndexOf('{{'); i !== -1; i = i === 0 ? -1 : text.lastIndexOf('{{', i - 1)) {
      if (i > 0 && text[i - 1] === '\\') continue;
      if (i > 0 && text[i - 1] === '{') continue; // inside a `{{{`: escape at its first brace
      lines[l] = text.slice(0, i) + '\\' + text.slice(i);
      return lines.join('\n');
    }
  }
  return undefined;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!;
}

/** Compiles `source` once; the result renders it for each request. */
export function compileTemplate(source: string, limits: Partial<TemplateLimits> = {}): CompiledTemplate {
  const bounds: TemplateLimits = { ...TEMPLATE_LIMITS, ...limits };
  const problems: string[] = [];
  let text = source;
  let ast: hbs.AST.Program | undefined;
  // Built at the first render, as env.compile would: an error of Handlebars' compiler is a render's.
  let template: Template | undefined;
  let failure: string | undefined;
  let state: StateUse | undefined;
  // Bounded before Handlebars sees it: its parser and compiler are not linear (source-limits.ts).
  const measured = measureTemplate(source, bounds);
  if (typeof measured === 'string') failure = measured;
  // A loop iteration runs at most every statement of the template once.
  const iterationCost = typeof measured === 'string' ? 1 : Math.max(1, measured.mustaches);
  let parsed = 0;
  for (let attempt = 0; failure === undefined && attempt <= MAX_RECOVERIES; attempt++) {
    parsed += text.length;
    try {
      ast = env.parse(text);
      state = stateUseOf(ast);
      break;
    } catch (err) {
      const line = lineOf(err as Error);
      const fixed = line === undefined ? undefined : escapeBroken(text, line);
      const message = `template syntax error${line !== undefined ? ` on line ${line}` : ''}: ${firstLine((err as Error).message)}`;
      if (fixed === undefined || attempt === MAX_RECOVERIES || parsed + fixed.length > MAX_PARSED) {
        failure = message;
        break;
      }
      problems.push(`${message} (output as text)`);
      text = fixed;
    }
  }
  return {
    problems,
    state,
    render(input) {
      if (!ast) return { ok: false, error: failure ?? 'template syntax error' };
      const noted = [...problems];
      const state = new RenderState(input, bounds, fakerFor(input.locale, noted), iterationCost);
      state.problems.push(...noted);
      try {
        template ??= templateOf(ast);
        const out = template(
          {},
          {
            data: { mb: state },
            allowProtoPropertiesByDefault: false,
            allowProtoMethodsByDefault: false,
            // `{{helperMissing}}` written by name calls ours (an unknown helper, noted), not a hook
            // Handlebars removed from the helpers: that failed with a JavaScript message in a 561.
            allowCallsToHelperMissing: true,
          },
        );
        if (out.length > bounds.maxOutput)
          return { ok: false, error: `the template produced more than ${bounds.maxOutput} characters` };
        return { ok: true, text: out, problems: state.problems };
      } catch (err) {
        return { ok: false, error: (err as Error).message };
      }
    },
  };
}

/**
 * Whether a header value may be sent: tab, visible ASCII and Latin-1 only, as Node writes them. No CR,
 * LF or NUL (no header injection), and nothing past U+00FF, which Node refuses with an error at send
 * time (every answer of the endpoint was a 500).
 */
export function isSafeHeaderValue(v: string): boolean {
  return !UNSENDABLE.test(v);
}

/** Why a header value may not be sent; undefined when it may. */
export function headerValueProblem(v: string): string | undefined {
  if (!UNSENDABLE.test(v)) return undefined;
  return /[\r\n]/.test(v)
    ? 'its value holds a line break'
    : 'its value holds a character a header cannot carry (only Latin-1: tab, U+0020-U+007E, U+0080-U+00FF)';
}

const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/;
