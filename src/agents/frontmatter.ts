/**
 * Splits a markdown file into its YAML frontmatter and body. Agents and skills
 * are both written this way; a mistake in the frontmatter is reported with the
 * file and the line in that file, so a user can go straight to it.
 */
import { LineCounter, parseDocument } from "yaml";

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

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;

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
  const yamlText = rest.slice(0, closing.index);
  const body = rest.slice(closing.index + closing[0].length).trim();
  // The YAML starts on line 2 of the file (line 1 is the opening ---).
  const firstLine = 2;
  const lines = new LineCounter();
  const document = parseDocument(yamlText, { lineCounter: lines, prettyErrors: false });
  const problem = document.errors[0];
  if (problem) {
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
