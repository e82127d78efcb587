/**
 * Splits a markdown file into its YAML frontmatter and body. Agents, skills
 * and custom commands are written this way; a mistake in the frontmatter is
 * reported with the file and the line in that file, so a user can go straight
 * to it. A frontmatter that is not strict YAML is read as `key: value`
 * lines first (`_lenient_frontmatter.ts`); only when that fails too is it an
 * error.
 *
 * The YAML library is evaluated only once a file with frontmatter is found:
 * every engine start reaches this module, most workspaces have no such file,
 * and evaluating the library costs tens of ms (docs/performance.md,
 * "Start-up"). So a caller awaits `loadFrontmatterParser()` (or
 * `loadFrontmatterParserFor`) before it parses; `parseFrontmatter` itself
 * stays synchronous.
 */
import type * as Yaml from "yaml";
import { readLeniently } from "./_lenient_frontmatter.ts";

export interface Frontmatter {
  /** The parsed frontmatter object; empty when the file has none. */
  data: Record<string, unknown>;
  /** Everything after the closing `---`, trimmed. */
  body: string;
  /** 1-based line in the file where the value of a top-level key starts. */
  lineOf(key: string): number;
}

/** A frontmatter problem, with the place in the file it was found. */
export class FrontmatterError extends Error {
  constructor(readonly file: string, readonly line: number, readonly reason: string) {
    super(`${file}:${line}: ${reason}`);
    this.name = "FrontmatterError";
  }
}

/** A file with frontmatter was parsed before the parser was loaded: a bug in skiff, not in the file. */
export class FrontmatterParserNotLoaded extends Error {
  constructor(file: string) {
    super(
      `internal error: ${file} has frontmatter but the YAML parser is not loaded; ` +
        "await loadFrontmatterParser() (src/definitions/frontmatter.ts) before parseFrontmatter()",
    );
    this.name = "FrontmatterParserNotLoaded";
  }
}

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;

/** The package's exports (its CommonJS module.exports). */
let yaml: typeof Yaml.default | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the YAML library `parseFrontmatter` needs for a file with
 * frontmatter. Idempotent: later calls return the first call's promise.
 */
export function loadFrontmatterParser(): Promise<void> {
  // Written out, not computed: the engine's Worker may only import what its module graph holds.
  return loading ??= import("yaml").then((module) => {
    // yaml is a CommonJS package: `default` is its module.exports, in Deno's
    // namespace and in the bundled engine's (`deno task build`), which has no other.
    yaml = module.default;
  });
}

/** Loads the parser only if one of these texts (an undefined one was not read) has frontmatter. */
export async function loadFrontmatterParserFor(
  texts: Iterable<string | undefined>,
): Promise<void> {
  for (const text of texts) {
    if (text !== undefined && hasFrontmatter(text)) return await loadFrontmatterParser();
  }
}

/** Whether `text` opens with a `---` line, so parsing it needs the YAML parser. */
export function hasFrontmatter(text: string): boolean {
  return OPENING.test(text);
}

/**
 * A file without frontmatter is all body; one with it needs
 * `loadFrontmatterParser()` to have finished first.
 */
export function parseFrontmatter(file: string, text: string): Frontmatter {
  const opening = OPENING.exec(text);
  if (!opening) return { data: {}, body: text.trim(), lineOf: () => 1 };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) {
    throw new FrontmatterError(
      file,
      1,
      "frontmatter opened with --- but never closed; add a --- line after it",
    );
  }
  if (!yaml) throw new FrontmatterParserNotLoaded(file);
  const yamlText = rest.slice(0, closing.index);
  const body = rest.slice(closing.index + closing[0].length).trim();
  // The YAML starts on line 2 of the file (line 1 is the opening ---).
  const firstLine = 2;
  const lines = new yaml.LineCounter();
  const document = yaml.parseDocument(yamlText, { lineCounter: lines, prettyErrors: false });
  const problem = document.errors[0];
  if (problem) {
    // Files written for other tools are read as those tools read them (_lenient_frontmatter.ts).
    const lenient = readLeniently(yaml, yamlText);
    if (lenient) {
      return {
        data: lenient.data,
        body,
        lineOf: (key) => (lenient.lines.get(key) ?? 0) + firstLine,
      };
    }
    const at = lines.linePos(problem.pos[0]).line + firstLine - 1;
    throw new FrontmatterError(file, at, `invalid YAML: ${problem.message.split("\n")[0]}`);
  }
  const data = document.toJS() ?? {};
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new FrontmatterError(file, firstLine, "frontmatter must be a mapping of keys to values");
  }
  const lineOf = (key: string): number => {
    const node = document.get(key, true) as { range?: [number, number, number] } | undefined;
    const offset = node?.range?.[0];
    return offset === undefined ? firstLine : lines.linePos(offset).line + firstLine - 1;
  };
  return { data: data as Record<string, unknown>, body, lineOf };
}
