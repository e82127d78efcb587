/**
 * Custom slash commands: markdown files whose body is a prompt template, read
 * from skiff's own folders and, as they are, from Claude Code's and
 * opencode's (`.claude/commands/`, `.opencode/command/`), so people moving in
 * keep theirs. The name is the file's path without `.md`, folders joined by
 * `:` (`git/commit.md` is `/git:commit`). A command only ever becomes text
 * sent to the model; it grants nothing.
 *
 * A repository (or the agent, writing into it) can ship a command named like
 * one of yours: yours keeps its name, and the project's is offered as
 * `/project:<name>`. A project's file is read by its real path, and only
 * when that lies inside the project, as AGENTS.md is.
 */
import { readRegularTextOrThrow, realPathInside } from "../config/regular_file.ts";
import * as path from "../lib/path.ts";
import {
  FrontmatterError,
  FrontmatterParserNotLoaded,
  loadFrontmatterParserFor,
  parseFrontmatter,
} from "./frontmatter.ts";
import { defaultConfigDir, isDirectory, listDir, projectDirs } from "./agents/discovery.ts";
import { homeDir } from "../sandbox/paths.ts";

export interface CustomCommand {
  /** Lower case, `dir:name` for a file in a sub-folder. */
  name: string;
  description: string;
  /** Frontmatter `argument-hint`, shown by /help. */
  argumentHint?: string;
  /** Frontmatter `model` / `agent`: the prompt runs with these when honoured. */
  model?: string;
  agent?: string;
  /** The prompt template: `$ARGUMENTS`, `$1`… are filled in when it runs. */
  body: string;
  file: string;
  /** The folder it came from, as a person knows it (`.claude/commands`, `~/.config/skiff/commands`). */
  source: string;
  /** A project's file is trusted like the project; a user's like the user. */
  scope: "user" | "project";
}

export interface LoadCommandsOptions {
  workspace: string;
  /** @default `$SKIFF_CONFIG_DIR`, `$XDG_CONFIG_HOME/skiff` or `~/.config/skiff` */
  configDir?: string;
  /** @default `$HOME` */
  home?: string;
}

export interface LoadedCommands {
  commands: CustomCommand[];
  warnings: string[];
}

/** Command folders inside a project directory, in rising priority. */
const PROJECT_COMMAND_FOLDERS = [
  ".claude/commands",
  ".opencode/command",
  ".opencode/commands",
  ".skiff/commands",
];

/** Deeper than this a folder is not searched (a link loop stays harmless). */
const MAX_DEPTH = 4;

/** The prefix a project's command gets when one of your own has its name. */
export const PROJECT_PREFIX = "project:";

/** One command file as found and read: its text, or why it could not be read. */
export interface CommandFile {
  file: string;
  name: string;
  source: string;
  scope: "user" | "project";
  text?: string;
  /** The read failed: its message (the parse turns it into a warning). */
  error?: string;
}

export interface FoundCommands {
  /** The user's folders first, then the project's from the git root down. */
  files: CommandFile[];
  /** Files whose name cannot be typed as a command. */
  warnings: string[];
}

/**
 * Every command file, each read once. Parses nothing, so it needs no YAML parser.
 * Needs --allow-read on those folders and --allow-env for the config folder.
 */
export function readCommandFiles(options: LoadCommandsOptions): FoundCommands {
  const home = options.home ?? homeDir();
  const configDir = options.configDir ?? defaultConfigDir((name) => Deno.env.get(name), home);
  const folders: { dir: string; source: string; scope: "user" | "project" }[] = [
    { dir: path.join(home, ".claude", "commands"), source: "~/.claude/commands", scope: "user" },
    ...["command", "commands"].map((name) => ({
      dir: path.join(home, ".config", "opencode", name),
      source: `~/.config/opencode/${name}`,
      scope: "user" as const,
    })),
    { dir: path.join(configDir, "commands"), source: shortHome(configDir, home), scope: "user" },
    ...projectDirs(options.workspace).flatMap((dir) =>
      PROJECT_COMMAND_FOLDERS.map((folder) => ({
        dir: path.join(dir, folder),
        source: path.relative(options.workspace, path.join(dir, folder)) || folder,
        scope: "project" as const,
      }))
    ),
  ];
  const found: FoundCommands = { files: [], warnings: [] };
  const seen = new Set<string>();
  const projectRoot = realRoot(projectDirs(options.workspace)[0]);
  for (const folder of folders) {
    if (seen.has(folder.dir) || !isDirectory(folder.dir)) continue;
    seen.add(folder.dir);
    // A project's folder may hold links; what leads out of the project is not read.
    const inside = folder.scope === "project"
      ? (target: string) => realPathInside(target, projectRoot)
      : (target: string) => target;
    if (inside(folder.dir) === null) {
      found.warnings.push(
        `${folder.dir} leads outside the project; its commands are not read. Make it a folder of the project, or put your own commands in ${
          shortHome(configDir, home)
        }`,
      );
      continue;
    }
    const skipLink = (link: string) =>
      found.warnings.push(
        `${link} is a link leading outside the project; its commands are not read. Copy them into the project, or keep them in ${
          shortHome(configDir, home)
        }`,
      );
    for (const relative of markdownFiles(folder.dir, inside, skipLink)) {
      const file = path.join(folder.dir, relative);
      const name = relative.slice(0, -".md".length).split(path.sep).join(":").toLowerCase();
      if (!/^[a-z][\w:.-]*$/.test(name)) {
        found.warnings.push(
          `${file}: "${name}" cannot be typed as a command (start with a letter; letters, digits, - _ . only); skipped`,
        );
        continue;
      }
      const entry = { file, name, source: folder.source, scope: folder.scope };
      const real = inside(file);
      if (real === null) {
        found.warnings.push(
          `${file} is a link leading outside the project; skipped. Copy the command into the project, or keep it in ${
            shortHome(configDir, home)
          }`,
        );
        continue;
      }
      try {
        found.files.push({ ...entry, text: readRegularTextOrThrow(real) });
      } catch (error) {
        found.files.push({ ...entry, error: (error as Error).message });
      }
    }
  }
  return found;
}

function realRoot(root: string): string {
  try {
    return Deno.realPathSync(root);
  } catch {
    return root;
  }
}

/**
 * The commands of files already read. Within your folders, and within the
 * project's, a later command with the same name replaces an earlier one;
 * across them yours wins, and the project's is offered as `/project:<name>`
 * with a note. A file with frontmatter needs `loadFrontmatterParser()` first
 * (`loadCustomCommandsAsync` does both).
 */
export function parseCommands(found: FoundCommands): LoadedCommands {
  const warnings = [...found.warnings];
  const own = new Map<string, CustomCommand>();
  const project = new Map<string, CustomCommand>();
  for (const file of found.files) {
    const command = readCommand(file, warnings);
    if (command) (command.scope === "user" ? own : project).set(command.name, command);
  }
  const byName = new Map(own);
  for (const command of project.values()) {
    const yours = own.get(command.name);
    if (!yours) {
      if (!byName.has(command.name)) byName.set(command.name, command);
      continue;
    }
    const renamed = `${PROJECT_PREFIX}${command.name}`;
    if (byName.has(renamed) || project.has(renamed)) {
      warnings.push(
        `${command.file}: /${command.name} is your own command (${yours.file}) and /${renamed} is taken; the project's is skipped. Rename one of the files to use both`,
      );
      continue;
    }
    byName.set(renamed, { ...command, name: renamed });
    warnings.push(
      `${command.file}: /${command.name} stays your own (${yours.file}); the project's is /${renamed}`,
    );
  }
  return {
    commands: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)),
    warnings,
  };
}

/**
 * Every custom command, the YAML parser loaded first when some file has
 * frontmatter; without such a file it is never evaluated.
 */
export async function loadCustomCommandsAsync(
  options: LoadCommandsOptions,
): Promise<LoadedCommands> {
  const found = readCommandFiles(options);
  await loadFrontmatterParserFor(found.files.map((file) => file.text));
  return parseCommands(found);
}

/** `loadCustomCommandsAsync` for a caller that has already loaded the frontmatter parser. */
export function loadCustomCommands(options: LoadCommandsOptions): LoadedCommands {
  return parseCommands(readCommandFiles(options));
}

function shortHome(configDir: string, home: string): string {
  const folder = path.join(configDir, "commands");
  return folder.startsWith(home + path.sep) ? `~${folder.slice(home.length)}` : folder;
}

/**
 * `.md` files under `dir`, relative, sorted, sub-folders included; a
 * sub-folder `inside` refuses (a link leading out of the project) is not
 * entered, so a link to `/` costs no walk.
 */
function markdownFiles(
  dir: string,
  inside: (target: string) => string | null,
  skipLink: (link: string) => void,
  prefix = "",
  depth = 0,
): string[] {
  const found: string[] = [];
  for (const entry of listDir(dir)) {
    if (entry.name.startsWith(".")) continue;
    const relative = prefix ? path.join(prefix, entry.name) : entry.name;
    const full = path.join(dir, entry.name);
    if (isDirectory(full)) {
      if (entry.isSymlink && inside(full) === null) skipLink(full);
      else if (depth < MAX_DEPTH) {
        found.push(...markdownFiles(full, inside, skipLink, relative, depth + 1));
      }
    } else if (entry.name.endsWith(".md")) {
      found.push(relative);
    }
  }
  return found;
}

function readCommand(
  { file, name, source, scope, text, error: readError }: CommandFile,
  warnings: string[],
): CustomCommand | undefined {
  if (text === undefined) {
    warnings.push(`${file}: could not be read (${readError}); command skipped`);
    return undefined;
  }
  try {
    const parsed = parseFrontmatter(file, text);
    const field = (key: string): string | undefined => {
      const value = parsed.data[key];
      if (value === undefined || value === null) return undefined;
      if (typeof value !== "string") {
        throw new FrontmatterError(file, parsed.lineOf(key), `${key} must be text`);
      }
      return value.trim() || undefined;
    };
    if (!parsed.body) {
      throw new FrontmatterError(
        file,
        1,
        "the command has no prompt: write it after the frontmatter",
      );
    }
    return {
      name,
      // Claude Code falls back to the first line of the prompt; so do we.
      description: field("description") ?? parsed.body.split("\n")[0].slice(0, 80),
      argumentHint: argumentHint(parsed.data["argument-hint"]) ?? field("argument-hint"),
      model: field("model"),
      agent: field("agent"),
      body: parsed.body,
      file,
      source,
      scope,
    };
  } catch (error) {
    if (error instanceof FrontmatterParserNotLoaded) throw error;
    const where = error instanceof FrontmatterError
      ? `${error.file}:${error.line}: ${error.reason}`
      : `${file}: could not be read (${(error as Error).message})`;
    warnings.push(`${where}; command skipped`);
    return undefined;
  }
}

/**
 * `argument-hint: [project-name]`, as Claude Code's docs write it, is a YAML
 * list; it is meant as the text shown, brackets and all.
 */
function argumentHint(value: unknown): string | undefined {
  if (!Array.isArray(value) || !value.every((item) => ["string", "number"].includes(typeof item))) {
    return undefined;
  }
  return `[${value.join(", ")}]`;
}

/**
 * The prompt a command sends: `$ARGUMENTS` is everything typed after the
 * name, `$1`…`$9` its words (a "quoted phrase" is one word; a missing one is
 * empty). A template with neither gets the arguments on a line of their own
 * after it, so nothing typed is lost.
 */
export function expandCommand(body: string, args: string): string {
  if (!hasPlaceholders(body)) return args ? `${body}\n\n${args}` : body;
  return fillArguments(body, args);
}

const PLACEHOLDERS = /\$ARGUMENTS\b|\$([1-9])(?!\d)/g;

/** Whether a template names its arguments (`$ARGUMENTS`, `$1`…); without, they go after it. */
export function hasPlaceholders(template: string): boolean {
  return new RegExp(PLACEHOLDERS).test(template);
}

/** `template` with `$ARGUMENTS` and `$1`…`$9` filled from `args` (expandCommand's rules). */
export function fillArguments(template: string, args: string): string {
  const words = splitArguments(args);
  return template.replace(
    new RegExp(PLACEHOLDERS),
    (_match, index?: string) => index ? words[Number(index) - 1] ?? "" : args,
  );
}

/** Words separated by spaces; double or single quotes keep a phrase together. */
export function splitArguments(args: string): string[] {
  const words: string[] = [];
  for (const match of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    words.push(match[1] ?? match[2] ?? match[3]);
  }
  return words;
}
