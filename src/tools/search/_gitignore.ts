/**
 * .gitignore rules as the search tools apply them, kept the same as ripgrep
 * run with `--no-require-git` so grep's two engines agree:
 * - every `.gitignore` from the search root down applies to its own folder;
 * - `.gitignore` files in the folders above the root apply too, up to and
 *   including the nearest folder that holds `.git` (the repository root);
 * - a folder holding `.git` (a nested repository) starts afresh: rules from
 *   outside it stop there;
 * - the deepest file with a matching rule decides (so `!keep.log` deeper down
 *   re-includes what a parent ignored).
 * Global excludes, `.git/info/exclude` and `.ignore` files are not read.
 */
import type { Ignore } from "ignore";
import { searchLibraries } from "./_search_libraries.ts";
import * as path from "../../lib/path.ts";

interface Layer {
  /** Absolute folder the rules are relative to. */
  dir: string;
  test: (relative: string) => { ignored: boolean; unignored: boolean };
}

/**
 * One path against one file's rules, without also testing the path's parent
 * folders. The walk has already judged each parent against every layer (and
 * pruned the ignored ones), and ripgrep does not re-test parents either: a
 * parent re-included by a deeper `!dir/`, or a search root inside an ignored
 * folder, must not be ignored again through its parent. npm:ignore's public
 * `test` always re-tests parents; its rule set's own `test` does not.
 */
function singlePathTest(rules: Ignore): Layer["test"] {
  const internal = (rules as unknown as {
    _rules?: { test?: (path: string, mode: string) => { ignored: boolean; unignored: boolean } };
  })._rules;
  if (typeof internal?.test === "function") {
    return (relative) => internal.test!(relative, "regex");
  }
  return (relative) => rules.test(relative);
}

export class IgnoreStack {
  private constructor(private readonly layers: readonly Layer[]) {}

  static empty(): IgnoreStack {
    return new IgnoreStack([]);
  }

  /**
   * The rules in force at `root` from the folders above it. Folders we may
   * not read (a sandboxed run) end the climb quietly.
   */
  static above(root: string): IgnoreStack {
    const found: Layer[] = [];
    if (exists(path.join(root, ".git"))) return new IgnoreStack([]);
    let dir = root;
    for (;;) {
      const parent = path.dirname(dir);
      if (parent === dir) break;
      dir = parent;
      try {
        const layer = loadLayer(dir);
        if (layer) found.push(layer);
        if (exists(path.join(dir, ".git"))) break;
      } catch {
        break;
      }
    }
    return new IgnoreStack(found.reverse());
  }

  /**
   * The rules inside `dir`, whose entry names are known already (so no extra
   * system call is spent looking for `.git` or `.gitignore`).
   */
  enter(dir: string, hasGit: boolean, hasGitignore: boolean): IgnoreStack {
    const base = hasGit ? [] : this.layers;
    if (!hasGitignore) return hasGit ? new IgnoreStack(base) : this;
    let layer: Layer | null = null;
    try {
      layer = loadLayer(dir);
    } catch {
      // Unreadable rules: search as if absent, like git does.
    }
    return layer ? new IgnoreStack([...base, layer]) : new IgnoreStack(base);
  }

  /** Whether `absolute` (a child of the folder this stack was entered for) is ignored. */
  ignores(absolute: string, isDirectory: boolean): boolean {
    for (let index = this.layers.length - 1; index >= 0; index--) {
      const layer = this.layers[index];
      const relative = toPosix(
        absolute.slice(layer.dir.length + (layer.dir.endsWith("/") ? 0 : 1)),
      );
      if (!relative) continue;
      const verdict = layer.test(isDirectory ? `${relative}/` : relative);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }
}

function loadLayer(dir: string): Layer | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(path.join(dir, ".gitignore"));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.IsADirectory) {
      return null;
    }
    throw error;
  }
  return {
    dir,
    test: singlePathTest(
      searchLibraries().ignore({ allowRelativePaths: true, ignorecase: false }).add(text),
    ),
  };
}

function exists(file: string): boolean {
  try {
    Deno.lstatSync(file);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

const toPosix = path.sep === "/" ? (p: string) => p : (p: string) => p.split(path.sep).join("/");
