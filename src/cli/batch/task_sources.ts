/**
 * The tasks a `skiff batch` command line names: a JSONL file (or stdin),
 * `--each '<glob>'` or `--dirs <folder…>` with a `--prompt` template (and a
 * `--until` template filled per task), checked before anything runs.
 */
import * as path from "../../lib/path.ts";
import { resolveWorkspace } from "../../host/setup.ts";
import { UsageError } from "../exit_codes.ts";
import { shellQuote } from "../../permission/hints.ts";
import { type BatchTask, globFiles, tasksForDirs, tasksForFiles, tasksFromJsonl } from "./tasks.ts";

/** The options that name the tasks. */
export interface TaskSourceOptions {
  dir?: string;
  each?: string;
  dirs?: string[];
  prompt?: string;
  until?: string;
}

/** The tasks the options name (before sharding), checked. */
export async function collectTasks(
  file: string | undefined,
  options: TaskSourceOptions,
): Promise<BatchTask[]> {
  const sources = [file !== undefined, options.each !== undefined, options.dirs !== undefined];
  if (file !== undefined && (sources[1] || sources[2]) && !options.prompt) {
    // `skiff batch --each '*.ts' 'add a header to {file}'`: the template was taken as a task file.
    const names = options.each !== undefined
      ? `--each ${shellQuote(options.each)}`
      : `--dirs ${options.dirs!.map(shellQuote).join(" ")}`;
    throw new UsageError(
      `the template of ${names.split(" ")[0]} goes after --prompt (${shellQuote(file)} was taken ` +
        `as a JSONL file of tasks): skiff batch ${names} --prompt ${shellQuote(file)}`,
    );
  }
  if (sources.filter(Boolean).length !== 1) {
    throw new UsageError(
      "name the tasks one way: a JSONL file (skiff batch tasks.jsonl), --each '<glob>' --prompt " +
        "'<template>', or --dirs <folder…> --prompt '<template>'.",
    );
  }
  const workspace = resolveWorkspace(options.dir);
  if (file !== undefined) {
    let text: string;
    try {
      text = file === "-"
        ? await new Response(Deno.stdin.readable).text()
        : Deno.readTextFileSync(file);
    } catch (error) {
      throw new UsageError(`cannot read ${file} (${(error as Error).message}).`);
    }
    return tasksFromJsonl(text, workspace, file);
  }
  if (!options.prompt) throw new UsageError("--each and --dirs need --prompt '<template>'.");
  if (options.each !== undefined) {
    const files = await globFiles(workspace, options.each);
    if (!files.length) {
      throw new UsageError(`--each '${options.each}' matches no file in ${workspace}.`);
    }
    return tasksForFiles(workspace, files, options.prompt, options.until);
  }
  const dirs: string[] = [];
  for (const pattern of options.dirs!) {
    if (/[*?[{]/.test(pattern)) {
      const { default: picomatch } = await import("picomatch");
      const matches = picomatch(pattern);
      for (const entry of Deno.readDirSync(workspace)) {
        if (entry.isDirectory && matches(entry.name)) dirs.push(entry.name);
      }
    } else dirs.push(pattern);
  }
  for (const dir of dirs) {
    if (!Deno.statSync(path.resolve(workspace, dir)).isDirectory) {
      throw new UsageError(`--dirs ${dir} is not a folder.`);
    }
  }
  return tasksForDirs(workspace, dirs.sort(), options.prompt, options.until);
}
