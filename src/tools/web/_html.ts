/**
 * HTML for a reader that wants words: markdown through turndown (loaded on
 * first use, it is not small), or plain text with the markup stripped.
 * Scripts, styles and the document head never reach the model.
 */
import type TurndownService from "turndown";

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
  }
  pageUrl = baseUrl;
  try {
    return converter.turndown(html).replace(/\n{3,}/g, "\n\n").trim();
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
  for (const row of Array.from(table.querySelectorAll("tr"))) {
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

export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|noscript|template|head)\b[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(br|hr)\b[^>]*>/gi, "\n")
    .replace(/<\/(p|div|li|tr|h[1-6]|pre|blockquote|section|article|table|ul|ol)\s*>/gi, "\n")
    .replace(/<[^>]+>/g, "")
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
