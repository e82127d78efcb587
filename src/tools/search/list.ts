/**
 * The list tool: a folder as an indented tree, .gitignore honoured. Folders
 * are expanded breadth-first, so when the entry cap is reached the top of the
 * tree is complete and only deep folders are summarised by their entry count.
 * A chain of folders that each hold one folder (`src/main/java/org/`) is shown
 * on one line, down to its first branch point, and counts as one level.
 * Symbolic links are shown with their target (`current -> releases/v2`) and
 * never followed.
 */
import * as path from "../../lib/path.ts";
import * as z from "zod";
import { IgnoreStack } from "./_gitignore.ts";
import { readVisible } from "./_walk.ts";
import { resolveSearchRoot, searchAccess, statRoot } from "./_search_root.ts";
import { loadSearchLibraries } from "./_search_libraries.ts";
import { defineTool, ToolError } from "../tool.ts";

export const LIST_ENTRY_LIMIT = 400;
export const DEFAULT_LIST_DEPTH = 3;
const MAX_DEPTH = 20;

interface Node {
  /** Shown name: one folder, or a collapsed chain `a/b/c`. */
  name: string;
  path: string;
  isDirectory: boolean;
  /** A symbolic link's target: shown, never followed. */
  linkTarget?: string;
  rules: IgnoreStack;
  children: Node[] | null;
  /** Entries inside a folder that was not expanded. */
  count: number;
}

const schema = z.lazy(() =>
  z.object({
    path: z.string().optional().describe(
      "Folder to list, relative to the workspace root (default: the workspace root).",
    ),
    depth: z.number().int().min(1).max(MAX_DEPTH).optional().describe(
      `How many levels of folders to expand (default ${DEFAULT_LIST_DEPTH}). Deeper folders show their entry count.`,
    ),
  })
);

export const listTool = defineTool({
  name: "list",
  description: [
    "Show a folder's files and subfolders as a tree, to learn a project's layout.",
    "- Files ignored by .gitignore and the .git folder are left out; folders beyond `depth` show how many entries they hold.",
    "- Use glob to find files by pattern and grep to search their contents.",
  ].join("\n"),
  schema,
  declare(input, ctx) {
    const root = resolveSearchRoot(ctx, input.path);
    return searchAccess("list", root, `list ${root.display}`);
  },
  async execute(input, ctx) {
    await loadSearchLibraries(); // ignore and picomatch: evaluated at the first search
    const root = resolveSearchRoot(ctx, input.path);
    const info = await statRoot(root, input.path);
    if (!info.isDirectory) {
      throw new ToolError(
        "bad_input",
        `"${input.path}" is a file, not a folder.`,
        "Use read to see a file; give list a folder.",
      );
    }
    const depth = input.depth ?? DEFAULT_LIST_DEPTH;
    const top: Node = {
      name: root.display,
      path: root.real,
      isDirectory: true,
      rules: IgnoreStack.above(root.real),
      children: null,
      count: 0,
    };
    const roots = [ctx.workspace, ...ctx.extraDirs];
    const { shown, capped } = expand(top, depth, roots, ctx.signal);
    const lines = [`${top.name === "." ? "." : top.name}/`];
    render(top.children ?? [], 1, lines);
    if (capped) {
      lines.push(
        `[Listing stopped at ${LIST_ENTRY_LIMIT} entries; folders with a count were not expanded. List one of them with path, or lower depth.]`,
      );
    }
    return {
      output: lines.join("\n"),
      title: `${root.display} (${shown} entries)`,
      metadata: { entries: shown, truncated: capped },
    };
  },
});

/** Breadth-first expansion within the entry cap. */
function expand(
  top: Node,
  depth: number,
  roots: string[],
  signal?: AbortSignal,
): { shown: number; capped: boolean } {
  let shown = 0;
  let capped = false;
  let level: Node[] = [top];
  for (let levelIndex = 0; level.length; levelIndex++) {
    signal?.throwIfAborted();
    const next: Node[] = [];
    for (const node of level) {
      const children = childrenOf(node, roots);
      if (levelIndex >= depth) {
        node.count = children.length;
        continue;
      }
      if (shown + children.length > LIST_ENTRY_LIMIT) {
        node.count = children.length;
        capped = true;
        continue;
      }
      node.children = children;
      shown += children.length;
      for (const child of children) if (child.isDirectory) next.push(child);
    }
    level = next;
  }
  return { shown, capped };
}

/** Sorted children, folders first, each folder chain collapsed. */
function childrenOf(node: Node, roots: string[]): Node[] {
  const { rules, entries } = readVisible(node.path, node.rules, true);
  entries.sort((a, b) =>
    a.isDirectory !== b.isDirectory ? (a.isDirectory ? -1 : 1) : a.name < b.name ? -1 : 1
  );
  return entries.map((entry) => {
    const child: Node = {
      name: entry.name,
      path: entry.path,
      isDirectory: entry.isDirectory,
      linkTarget: entry.linkTarget === undefined
        ? undefined
        : shownTarget(entry.path, entry.linkTarget, roots),
      rules,
      children: null,
      count: 0,
    };
    return entry.isDirectory ? collapse(child) : child;
  });
}

/**
 * A link's target as written when it stays inside the folders the session
 * may use; a name from outside them is not the model's to see.
 */
function shownTarget(link: string, target: string, roots: string[]): string {
  const resolved = path.resolve(path.dirname(link), target);
  const inside = roots.some((root) => {
    const relative = path.relative(root, resolved);
    return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
  });
  return inside ? target : "(outside the workspace)";
}

/** Follows single-folder chains: `a/` holding only `b/` becomes `a/b/`. */
function collapse(node: Node): Node {
  for (let hops = 0; hops < 50; hops++) {
    const { rules, entries } = readVisible(node.path, node.rules, true);
    if (entries.length !== 1 || !entries[0].isDirectory) return node;
    node.name = `${node.name}/${entries[0].name}`;
    node.path = entries[0].path;
    node.rules = rules;
  }
  return node;
}

function render(nodes: Node[], indent: number, lines: string[]): void {
  const pad = "  ".repeat(indent);
  for (const node of nodes) {
    if (!node.isDirectory) {
      lines.push(
        `${pad}${node.name}${node.linkTarget === undefined ? "" : ` -> ${node.linkTarget}`}`,
      );
      continue;
    }
    const count = node.children === null && node.count
      ? ` (${node.count} ${node.count === 1 ? "entry" : "entries"})`
      : "";
    lines.push(`${pad}${node.name}/${count}`);
    if (node.children) render(node.children, indent + 1, lines);
  }
}
