/**
 * Files grep must not show: those the read rules keep back (a read would
 * ask or be denied, like `.env` under the default `*.env` ask rule). grep
 * would otherwise print their lines with no one asked. The set is found by
 * listing, not by searching, so the count the model is told does not
 * depend on what the files hold (a count of matching files would let a
 * pattern probe a secret one guess at a time).
 */
import * as path from "../../lib/path.ts";
import type { FileHits } from "./_grep_results.ts";
import { walkTree } from "./_walk.ts";
import type { ReadVerdict, ToolContext } from "../tool.ts";

export interface KeptBack {
  /** Root-relative paths ("" when the root is the file) grep leaves out. */
  files: Set<string>;
  /** The deciding rule of each kind, e.g. "read(.env): ask by default rule *.env". */
  reasons: Set<string>;
  /** One pattern per left-out file name shape, for the hint (`*.env`). */
  patterns: Set<string>;
}

/**
 * Walk what grep will search and ask the read rules about each file.
 * `display` turns a root-relative path into what the rules match.
 */
export async function keptBackFiles(
  ctx: Pick<ToolContext, "readVerdict" | "signal">,
  root: { real: string; isFile: boolean },
  include: ((relative: string) => boolean) | undefined,
  display: (relative: string) => string,
): Promise<KeptBack> {
  const kept: KeptBack = { files: new Set(), reasons: new Set(), patterns: new Set() };
  const judge = ctx.readVerdict;
  if (!judge) return kept;
  const consider = (real: string, relative: string) => {
    const verdict: ReadVerdict = judge(real, display(relative));
    if (verdict.action === "allow") return;
    kept.files.add(relative);
    kept.reasons.add(verdict.reason);
    kept.patterns.add(verdict.pattern ?? display(relative));
  };
  if (root.isFile) {
    const name = path.basename(root.real);
    if (!include || include(name)) consider(root.real, "");
    return kept;
  }
  for await (const entry of walkTree(root.real, { signal: ctx.signal })) {
    if (include && !include(entry.relative)) continue;
    consider(entry.path, entry.relative);
  }
  return kept;
}

/** A collector's `add` that drops the files kept back. */
export function withoutKeptBack(
  kept: KeptBack,
  add: (file: FileHits) => void,
): (file: FileHits) => void {
  return (file) => {
    if (!kept.files.has(file.relative)) add(file);
  };
}

/** The note at the end of grep's answer, or "" when nothing was kept back. */
export function keptBackNote(kept: KeptBack): string {
  const count = kept.files.size;
  if (!count) return "";
  const allow = [...kept.patterns].slice(0, 3).map((pattern) => `--allow 'read(${pattern})'`);
  return `\n\n[${count} file${count === 1 ? " was" : "s were"} not searched: the read rules ` +
    `ask or deny reading ${count === 1 ? "it" : "them"} (${
      [...kept.reasons].slice(0, 3).join("; ")
    }). ` +
    `Read such a file with the read tool (a person is asked where the rule asks), or the ` +
    `user can allow it: ${allow.join(" or ")}.]`;
}
