/**
 * Finds skills: folders holding a `SKILL.md` whose frontmatter names the skill
 * and says when to use it. Only the name and description reach the model up
 * front; the body and the folder's files are handed over when the model asks
 * for the skill, so many skills cost little context.
 */
import { readRegularTextOrThrow, realPathInside } from "../config/regular_file.ts";
import * as path from "../lib/path.ts";
import {
  FrontmatterError,
  FrontmatterParserNotLoaded,
  loadFrontmatterParserFor,
  parseFrontmatter,
} from "./frontmatter.ts";
import { defaultConfigDir, exists, listDir, projectDirs } from "./agents/discovery.ts";
import { homeDir, realpathLenient } from "../sandbox/paths.ts";

export interface Skill {
  name: string;
  description: string;
  /** The markdown after the frontmatter: the instructions. */
  body: string;
  /** Absolute folder of the skill; its other files are resources. */
  dir: string;
  /** Absolute path of SKILL.md. */
  file: string;
  /** Frontmatter fields other than name and description, kept as written. */
  metadata: Record<string, unknown>;
}

export interface LoadSkillsOptions {
  workspace: string;
  /** @default `$SKIFF_CONFIG_DIR` or `~/.config/skiff` */
  configDir?: string;
  /** @default `$HOME` */
  home?: string;
}

export interface LoadedSkills {
  skills: Skill[];
  warnings: string[];
}

/** Skill folders inside a project directory, in rising priority. */
const PROJECT_SKILL_FOLDERS = [".claude/skills", ".agents/skills", ".skiff/skills"];

/** One SKILL.md as found and read: its text, or why it could not be read. */
export interface SkillFile {
  /** Absolute path of SKILL.md. */
  file: string;
  /** The skill's folder name, its name when the frontmatter gives none. */
  folderName: string;
  text?: string;
  /** The read failed: its message (the parse turns it into a warning). */
  error?: string;
}

/**
 * Every SKILL.md, global folders first, then project folders from the git
 * root down, each read once. Parses nothing, so it needs no YAML parser.
 * Needs --allow-read on those folders.
 */
export function readSkillFiles(options: LoadSkillsOptions): SkillFile[] {
  const home = options.home ?? homeDir();
  const configDir = options.configDir ?? defaultConfigDir((name) => Deno.env.get(name), home);
  const own = [
    path.join(home, ".claude", "skills"),
    path.join(home, ".agents", "skills"),
    path.join(configDir, "skills"),
  ];
  const dirs = projectDirs(options.workspace);
  const projectRoot = realpathLenient(dirs[0]);
  const folders = [
    ...own,
    ...dirs.flatMap((dir) => PROJECT_SKILL_FOLDERS.map((folder) => path.join(dir, folder))),
  ];
  const found: SkillFile[] = [];
  for (const folder of new Set(folders)) {
    const fromProject = !own.includes(folder);
    for (const entry of listDir(folder)) {
      if (!entry.isDirectory && !entry.isSymlink) continue;
      const file = path.join(folder, entry.name, "SKILL.md");
      if (!exists(file)) continue;
      // A project's skill is read by its real path, and only inside the
      // project: one linked elsewhere would send that file to the model.
      const readable = fromProject ? realPathInside(file, projectRoot) : file;
      if (readable === null) {
        found.push({
          file,
          folderName: entry.name,
          error: "it is a link leading outside the project",
        });
        continue;
      }
      try {
        found.push({ file, folderName: entry.name, text: readRegularTextOrThrow(readable) });
      } catch (error) {
        found.push({ file, folderName: entry.name, error: (error as Error).message });
      }
    }
  }
  return found;
}

/**
 * The skills of files already read; a later skill with the same name
 * replaces an earlier one. A file with frontmatter needs
 * `loadFrontmatterParser()` first (`loadSkillsAsync` does both).
 */
export function parseSkills(files: SkillFile[]): LoadedSkills {
  const warnings: string[] = [];
  const byName = new Map<string, Skill>();
  for (const found of files) {
    const skill = readSkill(found, warnings);
    if (skill) byName.set(skill.name, skill);
  }
  return { skills: [...byName.values()], warnings };
}

/**
 * Every skill, the YAML parser loaded first when some SKILL.md has
 * frontmatter; a workspace without skills never evaluates it.
 */
export async function loadSkillsAsync(options: LoadSkillsOptions): Promise<LoadedSkills> {
  const files = readSkillFiles(options);
  await loadFrontmatterParserFor(files.map((found) => found.text));
  return parseSkills(files);
}

/** `loadSkillsAsync` for a caller that has already loaded the frontmatter parser. */
export function loadSkills(options: LoadSkillsOptions): LoadedSkills {
  return parseSkills(readSkillFiles(options));
}

function readSkill(
  { file, folderName, text, error: readError }: SkillFile,
  warnings: string[],
): Skill | undefined {
  if (text === undefined) {
    warnings.push(`${file}: could not be read (${readError}); skill skipped`);
    return undefined;
  }
  try {
    const parsed = parseFrontmatter(file, text);
    const { name, description, ...metadata } = parsed.data;
    if (name !== undefined && typeof name !== "string") {
      throw new FrontmatterError(file, parsed.lineOf("name"), "name must be text");
    }
    if (typeof description !== "string" || !description.trim()) {
      throw new FrontmatterError(
        file,
        parsed.lineOf("description"),
        "a skill needs a description: line saying when to use it",
      );
    }
    return {
      name: (name as string | undefined)?.trim() || folderName,
      description: description.trim(),
      body: parsed.body,
      dir: path.dirname(file),
      file,
      metadata,
    };
  } catch (error) {
    if (error instanceof FrontmatterParserNotLoaded) throw error;
    warnings.push(
      error instanceof FrontmatterError
        ? `${error.file}:${error.line}: ${error.reason}; skill skipped`
        : `${file}: could not be read (${(error as Error).message}); skill skipped`,
    );
    return undefined;
  }
}

/** Files in a skill's folder, relative, sorted; at most `limit`, skipping dot folders. */
export async function listSkillFiles(dir: string, limit = 200): Promise<string[]> {
  const found: string[] = [];
  const walk = async (current: string, prefix: string): Promise<void> => {
    const entries: Deno.DirEntry[] = [];
    for await (const entry of Deno.readDir(current)) entries.push(entry);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (found.length >= limit) return;
      if (entry.name.startsWith(".")) continue;
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory) await walk(path.join(current, entry.name), relative);
      else found.push(relative);
    }
  };
  await walk(dir, "");
  return found;
}
