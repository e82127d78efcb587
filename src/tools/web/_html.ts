/**
 * HTML for a reader that wants words: markdown through turndown (loaded on
 * first use, it is not small), or plain text with the markup stripped.
 * Scripts, styles and the document head never reach the model, nor does
 * text the page hides from a person (`hidden`, `aria-hidden`, an inline
 * style hiding it or making it zero-size): a carrier for instructions only
 * a model would read. Both conversions are bounded: the text one is a
 * single linear pass (`_html_scan.ts`), and a page too big or too deeply
 * nested for turndown (whose parser and walk grow with depth, and recurse)
 * is given as text instead.
 */
import type TurndownService from "turndown";
import {
  hiddenReason,
  type HtmlShape,
  htmlShape,
  scanHtml,
  tagAttributes,
  VOID_ELEMENTS,
} from "./_html_scan.ts";

/** What turndown is given at most; past either, the page is converted as text. */
export const MARKDOWN_LIMITS: Readonly<HtmlShape> = { elements: 20_000, depth: 128 };
/** Cells a table may have to become a pipe table (each cell is converted on its own). */
const MAX_PIPE_TABLE_CELLS = 2_000;

let converter: TurndownService | null = null;
/** The little of the DOM the rules below use (no DOM types in Deno's default lib). */
interface HtmlNode {
  nodeName: string;
  parentNode: HtmlNode | null;
  children: ArrayLike<HtmlNode>;
  innerHTML: string;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<HtmlNode>;
}

/** The page being converted: relative links are resolved against it. */
let pageUrl: string | undefined;

/**
 * `html` as markdown. Links and images become absolute when `baseUrl` is
 * given, so the model can fetch what a page points to; tables become pipe
 * tables rather than a column of loose words.
 */
export async function htmlToMarkdown(html: string, baseUrl?: string): Promise<string> {
  const shape = htmlShape(html, MARKDOWN_LIMITS);
  if (shape.elements > MARKDOWN_LIMITS.elements || shape.depth > MARKDOWN_LIMITS.depth) {
    const why = shape.depth > MARKDOWN_LIMITS.depth
      ? `nests elements more than ${MARKDOWN_LIMITS.depth} deep`
      : `has more than ${MARKDOWN_LIMITS.elements} elements`;
    return `(This page ${why}, more than is converted to markdown; here it is as plain text.)\n\n${
      htmlToText(html)
    }`;
  }
  if (!converter) {
    const { default: Turndown } = await import("turndown");
    converter = new Turndown({
      headingStyle: "atx",
      codeBlockStyle: "fenced",
      bulletListMarker: "-",
    }).remove(["script", "style", "noscript", "template", "head", "title", "iframe"]);
    converter.addRule("absoluteLinks", {
      filter: (node: HtmlNode) => node.nodeName === "A" && !!node.getAttribute("href"),
      replacement: (content: string, node: HtmlNode) => {
        const href = absolute(node.getAttribute("href")!);
        const title = node.getAttribute("title");
        return `[${content}](${href}${title ? ` "${title.replaceAll('"', '\\"')}"` : ""})`;
      },
    });
    converter.addRule("absoluteImages", {
      filter: "img",
      replacement: (_content: string, node: HtmlNode) => {
        const src = node.getAttribute("src");
        if (!src) return "";
        return `![${node.getAttribute("alt") ?? ""}](${absolute(src)})`;
      },
    });
    converter.addRule("tables", {
      filter: "table",
      replacement: (content: string, node: HtmlNode) => pipeTable(node) ?? content,
    });
    // Added last, so turndown tries it first: hidden text goes, whatever element holds it.
    converter.addRule("hiddenText", {
      filter: (node: HtmlNode) => hiddenReason((name) => node.getAttribute(name)) !== null,
      replacement: () => "",
    });
  }
  pageUrl = baseUrl;
  try {
    return converter.turndown(html).replace(/\n{3,}/g, "\n\n").trim();
  } catch (error) {
    // Nesting the count above could not see (a parser's own repairs): too deep to walk.
    if (!(error instanceof RangeError)) throw error;
    return `(This page nests elements too deeply to convert to markdown; here it is as plain text.)\n\n${
      htmlToText(html)
    }`;
  } finally {
    pageUrl = undefined;
  }
}

function absolute(link: string): string {
  if (!pageUrl || link.startsWith("#")) return link;
  try {
    return new URL(link, pageUrl).href;
  } catch {
    return link;
  }
}

/** The rows of `table` as a markdown pipe table; null when it is not a plain table. */
function pipeTable(table: HtmlNode): string | null {
  // A layout table holding tables: its cells are no data; the inner tables convert on their own.
  if (table.querySelectorAll("table").length > 0) return null;
  const rows: string[][] = [];
  const rowNodes = Array.from(table.querySelectorAll("tr"));
  let cells = 0;
  for (const row of rowNodes) cells += row.children.length;
  if (cells > MAX_PIPE_TABLE_CELLS) return null;
  for (const row of rowNodes) {
    const cells = Array.from(row.children).filter((cell) => /^T[HD]$/.test(cell.nodeName));
    rows.push(cells.map((cell) => cellText(cell)));
  }
  const width = Math.max(0, ...rows.map((row) => row.length));
  if (rows.length === 0 || width === 0) return null;
  const line = (row: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => row[i] ?? "").join(" | ")} |`;
  const [header, ...body] = rows;
  const separator = `| ${Array(width).fill("---").join(" | ")} |`;
  return `\n\n${[line(header), separator, ...body.map(line)].join("\n")}\n\n`;
}

function cellText(cell: HtmlNode): string {
  return converter!.turndown(cell.innerHTML).replace(/\s*\n+\s*/g, " ").replaceAll("|", "\\|")
    .trim();
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/** Elements whose end starts a new line of text. */
const BLOCK_ENDS = new Set([
  "p",
  "div",
  "li",
  "tr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "pre",
  "blockquote",
  "section",
  "article",
  "table",
  "ul",
  "ol",
]);

/** The words of `html`, in one pass: no markup, scripts, styles, comments or hidden text. */
export function htmlToText(html: string): string {
  const pieces: string[] = [];
  /** The hidden element being skipped, and how many of its name are open inside it. */
  let hidden: { name: string; depth: number } | null = null;
  scanHtml(html, {
    text(text) {
      if (!hidden) pieces.push(text);
    },
    open(name, attributes, selfClosing) {
      const empty = selfClosing || VOID_ELEMENTS.has(name);
      if (hidden) {
        if (name === hidden.name && !empty) hidden.depth++;
        return;
      }
      if (name === "br" || name === "hr") pieces.push("\n");
      if (empty || !/hidden|style/i.test(attributes)) return;
      const values = tagAttributes(attributes);
      if (hiddenReason((key) => values.get(key) ?? null)) hidden = { name, depth: 1 };
    },
    close(name) {
      if (hidden) {
        if (name === hidden.name && --hidden.depth === 0) hidden = null;
        return;
      }
      if (BLOCK_ENDS.has(name)) pieces.push("\n");
    },
  });
  return pieces.join("")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === "#") {
        const code = name[1].toLowerCase() === "x"
          ? parseInt(name.slice(2), 16)
          : Number(name.slice(1));
        return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .split("\n")
    .map((line) => line.replace(/[ \t]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
