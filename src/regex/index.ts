/** Public surface of user regular expressions: rule conditions and history filters, in linear time. */
export {
  compileUserRegex,
  regexGroups,
  regexTest,
  userRegexProblem,
  REGEX_INPUT_MAX,
  REGEX_PATTERN_MAX,
  type UserRegex,
} from './user-regex.js';
