/**
 * Where a batch's tasks come from (a JSONL file, `--each` over a glob with a
 * prompt template, `--dirs`), and the checks made before anything runs:
 * every task is valid, ids are unique, and no two tasks in one workspace may
 * write the same path. `--shard K/N` keeps a stable 1/N of them.
 */
import * as path from "../../lib/path.ts";
import picomatch from "picomatch";
import { UsageError } from "../exit_codes.ts";
import { ownedPath } from "../../sandbox/paths.ts";
import { shellQuote } from "../../permission/hints.ts";

/** One task as the batch runs it: `dir` and `owns` absolute. */
export interface BatchTask {
  id: string;
  prompt: string;
  /** The task's workspace. */
  dir: string;
  /** Paths this task alone may write; empty: the whole workspace. */
  owns: string[];
  /** A verification command (`--until`; run by the engine where it supports it). */
  until?: string;
  agent?: string;
  model?: string;
}

const KEYS = new Set(["id", "prompt", "dir", "owns", "until", "agent", "model"]);

/** Tasks from JSONL text; a bad line is a UsageError naming its line, so nothing runs. */
export function tasksFromJsonl(text: string, base: string, file = "tasks"): BatchTask[] {
  const tasks: BatchTask[] = [];
  text.split("\n").forEach((line, index) => {
    if (!line.trim()) return;
    const where = `${file}:${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new UsageError(`${where}: not JSON (${(error as Error).message}). Fix the line.`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new UsageError(`${where}: expected an object like {"id": "…", "prompt": "…"}.`);
    }
    const record = value as Record<string, unknown>;
    const unknown = Object.keys(record).filter((key) => !KEYS.has(key));
    if (unknown.length) {
      throw new UsageError(
        `${where}: unknown field ${unknown.join(", ")}; a task has ${[...KEYS].join(", ")}.`,
      );
    }
    const text = (key: string, required: boolean): string | undefined => {
      const field = record[key];
      if (field === undefined && !required) return undefined;
      if (typeof field !== "string" || !field.trim()) {
        throw new UsageError(`${where}: "${key}" must be a non-empty string.`);
      }
      return field;
    };
    const owns = record.owns ?? [];
    if (!Array.isArray(owns) || owns.some((owned) => typeof owned !== "string" || !owned)) {
      throw new UsageError(`${where}: "owns" must be a list of paths.`);
    }
    const dir = path.resolve(base, text("dir", false) ?? ".");
    tasks.push({
      id: text("id", true)!,
      prompt: text("prompt", true)!,
      dir,
      owns: (owns as string[]).map((owned) => ownedInside(dir, owned, where)),
      until: text("until", false),
      agent: text("agent", false),
      model: text("model", false),
    });
  });
  return checkIds(tasks);
}

/**
 * An `owns` entry's real path, as the task tool judges a subagent's: one
 * that is, or passes through, a link leading out of the task's workspace
 * would make the link's target writable, so it is refused.
 */
function ownedInside(dir: string, owned: string, where: string): string {
  const resolved = ownedPath(dir, owned);
  if (!resolved.inside) {
    throw new UsageError(
      `${where}: "owns" path "${owned}" leads outside the task's workspace ${dir} ` +
        `(its real path is ${resolved.real}, through a symbolic link or "..")` +
        `; name paths inside the workspace, or make that folder the task's "dir".`,
    );
  }
  return resolved.real;
}

type Placeholders = Record<"file" | "dir" | "name", string>;

const PLACEHOLDER = /\{(file|dir|name)\}/g;

/** `{file}`, `{dir}`, `{name}` of one file (relative to the workspace). */
function fileValues(file: string): Placeholders {
  return { file, dir: path.dirname(file), name: path.basename(file) };
}

/** Fill `{file}`, `{dir}`, `{name}` of a prompt template for one file (relative to the workspace). */
export function fillTemplate(template: string, file: string): string {
  const values = fileValues(file);
  return template.replace(PLACEHOLDER, (_, key: keyof Placeholders) => values[key]);
}

/**
 * Fill the placeholders of a `--until` command, each value quoted for the
 * shell: a file named `$(…).txt` by a repository stays a name, never a
 * command. The values are quoted here, so a placeholder inside the
 * template's own quotes would be quoted twice (and `"{file}"` would let
 * `$(…)` run): such a template is refused.
 */
export function fillCommand(template: string, values: Placeholders): string {
  return template.replace(PLACEHOLDER, (_, key: keyof Placeholders) => shellQuote(values[key]));
}

/**
 * Refuse a `--until` template with a placeholder inside quotes (POSIX
 * shell quoting: '…' takes everything literally, "…" all but \ " $ `).
 */
export function checkCommandTemplate(template: string): void {
  let quote: "'" | '"' | undefined;
  for (let at = 0; at < template.length; at++) {
    const char = template[at];
    if (quote === undefined && char === "\\") at++;
    else if (quote === '"' && char === "\\") at++;
    else if (char === "'" && quote !== '"') quote = quote ? undefined : "'";
    else if (char === '"' && quote !== "'") quote = quote ? undefined : '"';
    else if (quote && char === "{") {
      const name = /^\{(file|dir|name)\}/.exec(template.slice(at))?.[0];
      if (name) {
        throw new UsageError(
          `--until ${shellQuote(template)}: write ${name} outside quotes; skiff quotes each ` +
            `value for the shell itself (so a file name cannot run as a command).`,
        );
      }
    }
  }
}

/** Files under `workspace` matching `glob` (sorted; .git and node_modules skipped). */
export async function globFiles(workspace: string, glob: string): Promise<string[]> {
  const matches = picomatch(glob, { dot: false });
  const found: string[] = [];
  async function walk(relative: string): Promise<void> {
    for await (const entry of Deno.readDir(path.join(workspace, relative))) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory) {
        if (entry.name === ".git" || entry.name === "node_modules") continue;
        await walk(child);
      } else if (entry.isFile && matches(child)) found.push(child);
    }
  }
  await walk("");
  return found.sort();
}

/**
 * `--each`: one task per file, owning that file alone; `until` (a `--until`
 * template) gets the task's placeholders filled, quoted.
 */
export function tasksForFiles(
  workspace: string,
  files: string[],
  template: string,
  until?: string,
): BatchTask[] {
  if (until !== undefined) checkCommandTemplate(until);
  return files.map((file) => ({
    id: file,
    prompt: fillTemplate(template, file),
    dir: workspace,
    owns: [path.join(workspace, file)],
    ...(until === undefined ? {} : { until: fillCommand(until, fileValues(file)) }),
  }));
}

/**
 * `--dirs`: one task per folder, each its own workspace; `{file}` and
 * `{dir}` are the folder's absolute path, `{name}` its name.
 */
export function tasksForDirs(
  base: string,
  dirs: string[],
  template: string,
  until?: string,
): BatchTask[] {
  if (until !== undefined) checkCommandTemplate(until);
  return checkIds(dirs.map((dir) => {
    const absolute = path.resolve(base, dir);
    const values = { file: absolute, dir: absolute, name: path.basename(absolute) };
    return {
      id: path.relative(base, absolute) || ".",
      prompt: template.replace(PLACEHOLDER, (_, key: keyof Placeholders) => values[key]),
      dir: absolute,
      owns: [],
      ...(until === undefined ? {} : { until: fillCommand(until, values) }),
    };
  }));
}

function checkIds(tasks: BatchTask[]): BatchTask[] {
  const seen = new Set<string>();
  for (const task of tasks) {
    if (seen.has(task.id)) {
      throw new UsageError(`two tasks have the id "${task.id}"; each task needs its own id.`);
    }
    seen.add(task.id);
  }
  return tasks;
}

function within(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * Why these tasks may not run together, or none: in one workspace, each task
 * must own its paths (a task owning nothing could write anything) and no two
 * may own the same file or folder, nor one inside the other's.
 */
export function ownsConflicts(tasks: BatchTask[]): string[] {
  const byDir = new Map<string, BatchTask[]>();
  for (const task of tasks) byDir.set(task.dir, [...byDir.get(task.dir) ?? [], task]);
  const problems: string[] = [];
  for (const [dir, group] of byDir) {
    if (group.length < 2) continue;
    for (const task of group.filter((task) => !task.owns.length)) {
      problems.push(
        `task "${task.id}" shares ${dir} with ${group.length - 1} other task(s) but owns no ` +
          `paths; give it "owns" so it cannot write what the others write.`,
      );
    }
    for (let a = 0; a < group.length; a++) {
      for (let b = a + 1; b < group.length; b++) {
        for (const left of group[a].owns) {
          const clash = group[b].owns.find((right) => within(left, right) || within(right, left));
          if (clash) {
            problems.push(
              `tasks "${group[a].id}" and "${group[b].id}" both own ${
                path.relative(dir, within(left, clash) ? clash : left) || "."
              }; two tasks may not write the same path.`,
            );
          }
        }
      }
    }
  }
  return problems;
}

/** `K/N` → [K, N], checked (1 ≤ K ≤ N). */
export function parseShard(value: string): [number, number] {
  const match = /^(\d+)\/(\d+)$/.exec(value.trim());
  const [k, n] = match ? [Number(match[1]), Number(match[2])] : [0, 0];
  if (!match || n < 1 || k < 1 || k > n) {
    throw new UsageError(`--shard takes K/N with 1 ≤ K ≤ N, such as 2/5; got "${value}".`);
  }
  return [k, n];
}

/** FNV-1a of the id: the same task lands in the same shard on every machine. */
function stableHash(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The tasks of shard K of N. */
export function shardTasks(tasks: BatchTask[], k: number, n: number): BatchTask[] {
  return tasks.filter((task) => stableHash(task.id) % n === k - 1);
}
