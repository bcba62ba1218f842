/**
 * User regular expressions (rule conditions, history filters) are untrusted: they run in RE2's
 * linear-time engine (re2js), never in V8's backtracking one, so `(a+)+$` over a long input costs
 * a few milliseconds instead of freezing the process. Patterns RE2 does not support (backreferences,
 * lookaround) are refused when a rule is saved. The input a pattern sees is capped as well.
 */
import { RE2JS } from 're2js';

/** Longest input a user regex is run over: longer text is cut to this many characters. */
export const REGEX_INPUT_MAX = 64 * 1024;

/** Longest pattern accepted. */
export const REGEX_PATTERN_MAX = 1024;

export type UserRegex = RE2JS;

/** Why `pattern` cannot be a user regex, or undefined when it can. */
export function userRegexProblem(pattern: string): string | undefined {
  if (pattern.length > REGEX_PATTERN_MAX)
    return `A regular expression has at most ${REGEX_PATTERN_MAX} characters`;
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    return `Not a valid regular expression for the linear-time engine (RE2 syntax: no backreferences or lookaround): ${(err as Error).message}`;
  }
}

/** Compiles a pattern already checked by `userRegexProblem`. */
export function compileUserRegex(pattern: string): UserRegex {
  return RE2JS.compile(pattern);
}

function capped(input: string): string {
  return input.length > REGEX_INPUT_MAX ? input.slice(0, REGEX_INPUT_MAX) : input;
}

/** Whether the pattern matches anywhere in the (capped) input. */
export function regexTest(re: UserRegex, input: string): boolean {
  return re.test(capped(input));
}

/** The named groups of the first match in the (capped) input, or undefined when there is none. */
export function regexGroups(re: UserRegex, input: string): Record<string, string> | undefined {
  const m = re.exec(capped(input)) as (string[] & { groups?: Record<string, string | undefined> }) | null;
  if (!m) return undefined;
  // fromEntries defines each name: a group named `__proto__` stays a field.
  return Object.fromEntries(Object.entries(m.groups ?? {}).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
}
