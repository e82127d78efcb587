/**
 * Config errors in plain words. zod's issues are turned into one line per
 * problem that names the file, the key path (`provider.maxRetries`) and what
 * is wrong ("expected a number, got \"five\""), with a suggestion when a key
 * looks misspelt. The CLI exits 2 on a `ConfigError`.
 */
import type * as z from "zod";
import { SkiffError } from "../contracts/errors.ts";

export interface ConfigProblem {
  /** Dotted key path, e.g. `provider.maxRetries` or `permission.bash["git *"]`. */
  keyPath: string;
  message: string;
}

const HINT = "Fix the config and run skiff again; every key is described in docs/config.md.";
const ENV_HINT = "Fix or unset that environment variable and run skiff again.";
const FLAG_HINT = "Fix the option and run skiff again; `skiff <command> --help` lists the options.";

/** What to do next depends on where the bad value came from. */
function hintFor(source: string): string {
  if (source === "environment") return ENV_HINT;
  if (source === "command line") return FLAG_HINT;
  return HINT;
}

export class ConfigError extends SkiffError {
  /** The exit code the CLI uses for a config error. */
  readonly exitCode = 2;

  constructor(
    /** A file path, or "environment" / "command line". */
    readonly source: string,
    readonly problems: ConfigProblem[],
    /** Set for syntax errors. */
    readonly position?: { line: number; column: number },
  ) {
    super("config", ConfigError.#compose(source, problems, position));
    this.name = "ConfigError";
  }

  static #compose(
    source: string,
    problems: ConfigProblem[],
    position?: { line: number; column: number },
  ): string {
    const where = position ? `${source}:${position.line}:${position.column}` : source;
    const lines = problems.map((p) => (p.keyPath ? `${p.keyPath}: ${p.message}` : p.message));
    const hint = hintFor(source);
    if (lines.length === 1) return `${where}: ${lines[0]}\n${hint}`;
    return `${where}: ${lines.length} problems\n${
      lines.map((l) => `  - ${l}`).join("\n")
    }\n${hint}`;
  }
}

/** Turn zod issues into plain-word problems, each at its dotted key path. */
export function describeIssues(
  schema: z.ZodType,
  data: unknown,
  issues: readonly z.core.$ZodIssue[],
): ConfigProblem[] {
  return issueProblems(schema, data, issues).map((problem) => ({
    keyPath: formatPath(problem.path),
    message: problem.message,
  }));
}

/** One zod issue in plain words, at the path of the value it is about. */
export interface IssueProblem {
  path: PropertyKey[];
  message: string;
  /** Set when a required value is absent: the type zod expected there. */
  missing?: string;
}

/**
 * zod's issues in plain words: a union's most likely branch, misspelt keys
 * with a suggestion, the bad value named. The one reader of zod issues, for
 * config files and for tool arguments alike; each caller words the path.
 */
export function issueProblems(
  schema: z.ZodType,
  data: unknown,
  issues: readonly z.core.$ZodIssue[],
): IssueProblem[] {
  const out: IssueProblem[] = [];
  for (const issue of issues) collect(schema, data, issue, [], out);
  return out;
}

type Path = PropertyKey[];

function collect(
  schema: z.ZodType,
  data: unknown,
  issue: z.core.$ZodIssue,
  base: Path,
  out: IssueProblem[],
): void {
  const path = [...base, ...issue.path];
  const value = valueAt(data, path);
  switch (issue.code) {
    case "invalid_union": {
      // Every form wanted another type here: name them all ("a string or a list").
      const types = issue.errors.map((branch) =>
        branch.length === 1 && branch[0].code === "invalid_type" && branch[0].path.length === 0
          ? branch[0].expected
          : undefined
      );
      if (value !== undefined && types.length > 1 && types.every((t) => t !== undefined)) {
        const names = [...new Set(types.map((t) => expectedName(t!)))];
        out.push({
          path,
          message: `expected ${names.join(" or ")}, got ${describeValue(value)}`,
        });
        return;
      }
      const branch = bestBranch(data, path, issue.errors);
      if (!branch) break;
      for (const inner of branch) collect(schema, data, inner, path, out);
      return;
    }
    case "unrecognized_keys": {
      const known = knownKeysAt(schema, path);
      for (const key of issue.keys) {
        if (known.includes(key)) {
          // Known to another form of a union (an MCP server's `url` next to `command`).
          out.push({
            path: [...path, key],
            message: `"${key}" cannot be combined with the other keys of this entry`,
          });
          continue;
        }
        const guess = didYouMean(key, known);
        const tail = guess
          ? ` — did you mean "${guess}"?`
          : known.length
          ? ` (known keys: ${known.join(", ")})`
          : "";
        out.push({ path: [...path, key], message: `unknown key "${key}"${tail}` });
      }
      return;
    }
    case "invalid_type": {
      const message = value === undefined
        ? "missing — this key is required"
        : `expected ${expectedName(issue.expected)}, got ${describeValue(value)}`;
      out.push({ path, message, ...(value === undefined ? { missing: issue.expected } : {}) });
      return;
    }
    case "invalid_value": {
      const options = issue.values.map((v) => JSON.stringify(v));
      const guess = typeof value === "string"
        ? didYouMean(value, issue.values.filter((v): v is string => typeof v === "string"))
        : undefined;
      out.push({
        path,
        message: `expected one of ${options.join(", ")}, got ${describeValue(value)}` +
          (guess ? ` — did you mean "${guess}"?` : ""),
      });
      return;
    }
    case "too_small":
    case "too_big": {
      out.push({ path, message: sizeMessage(issue, value) });
      return;
    }
    case "invalid_format": {
      const what = issue.format === "url"
        ? "expected an http:// or https:// URL"
        : issue.message.startsWith("Invalid")
        ? `expected ${issue.format} format`
        : issue.message;
      out.push({ path, message: `${what}, got ${describeValue(value)}` });
      return;
    }
  }
  out.push({ path, message: issue.message });
}

/**
 * The union branch the user most likely meant: fewest problems, a missing
 * required key weighing most; on a tie, the branch whose problems lie deeper
 * (the value matched that branch's shape further).
 */
function bestBranch(
  data: unknown,
  path: Path,
  branches: z.core.$ZodIssue[][],
): z.core.$ZodIssue[] | undefined {
  let best: z.core.$ZodIssue[] | undefined;
  let bestScore = Infinity;
  let bestDepth = -1;
  for (const branch of branches) {
    let score = 0;
    let depth = 0;
    for (const issue of branch) {
      const missing = issue.code === "invalid_type" &&
        valueAt(data, [...path, ...issue.path]) === undefined;
      score += missing ? 10 : 1;
      depth = Math.max(depth, issue.path.length);
    }
    if (score < bestScore || (score === bestScore && depth > bestDepth)) {
      best = branch;
      bestScore = score;
      bestDepth = depth;
    }
  }
  return best;
}

function sizeMessage(issue: z.core.$ZodIssue & { code: "too_small" | "too_big" }, value: unknown) {
  const small = issue.code === "too_small";
  const limit = Number(
    small ? (issue as { minimum: unknown }).minimum : (issue as {
      maximum: unknown;
    }).maximum,
  );
  const inclusive = issue.inclusive !== false;
  if (issue.origin === "string" && small && limit === 1) return "must not be empty";
  if (issue.origin === "array" || issue.origin === "string") {
    const unit = issue.origin === "array"
      ? (limit === 1 ? "entry" : "entries")
      : (limit === 1 ? "character" : "characters");
    return `must have ${small ? "at least" : "at most"} ${limit} ${unit}`;
  }
  const bound = small
    ? (inclusive ? `at least ${limit}` : `greater than ${limit}`)
    : (inclusive ? `at most ${limit}` : `less than ${limit}`);
  return `must be ${bound}, got ${describeValue(value)}`;
}

function expectedName(expected: string): string {
  switch (expected) {
    case "number":
      return "a number";
    case "int":
      return "a whole number";
    case "string":
      return "a string";
    case "boolean":
      return "true or false";
    case "array":
      return "a list";
    case "object":
    case "record":
      return "an object";
    default:
      return expected;
  }
}

/** How a value reads in a message. */
function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
    return JSON.stringify(shown);
  }
  return String(value);
}

/** `["permission", "bash", "git *"]` → `permission.bash["git *"]`. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(String(segment))) {
      out += out ? `.${String(segment)}` : String(segment);
    } else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

// A minimal view of zod's internal definitions, enough to list an object's keys.
interface SchemaNode {
  _zod: {
    /** A lazy schema's, built once (the tools' input schemas are built at their first use). */
    innerType?: SchemaNode;
    def: {
      type: string;
      innerType?: SchemaNode;
      options?: SchemaNode[];
      shape?: Record<string, SchemaNode>;
      valueType?: SchemaNode;
      element?: SchemaNode;
    };
  };
}

function unwrap(node: SchemaNode): SchemaNode[] {
  const def = node._zod.def;
  if (def.innerType) return unwrap(def.innerType);
  if (def.type === "lazy" && node._zod.innerType) return unwrap(node._zod.innerType);
  if (def.type === "union" && def.options) return def.options.flatMap(unwrap);
  return [node];
}

/** Keys the schema allows for the object at `path` (all union branches together). */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let nodes = unwrap(schema as unknown as SchemaNode);
  for (const segment of path) {
    nodes = nodes.flatMap((node) => {
      const def = node._zod.def;
      if (def.type === "object" && def.shape) {
        const child = def.shape[String(segment)];
        return child ? unwrap(child) : [];
      }
      if (def.type === "record" && def.valueType) return unwrap(def.valueType);
      if (def.type === "array" && def.element) return unwrap(def.element);
      return [];
    });
  }
  const keys = new Set<string>();
  for (const node of nodes) {
    const def = node._zod.def;
    if (def.type === "object" && def.shape) {
      for (const key of Object.keys(def.shape)) keys.add(key);
    }
  }
  return [...keys];
}

/** The closest candidate to `word`, if it is close enough to be a likely typo. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate.toLowerCase() === word.toLowerCase()) return candidate;
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(1, Math.floor(word.length / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** Edit distance where swapping two neighbouring letters counts as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0][j] = j;
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2][j - 2] + 1);
      }
      rows[i][j] = best;
    }
  }
  return rows[a.length][b.length];
}
