/**
 * `deno task install`: writes the `skiff` command, a small shell script that
 * runs this clone's main.ts with the flags of deno.json's `skiff` task, read
 * from there at install time so the two never differ. The GitHub Action
 * writes its source-mode command with the same script (action.yml).
 *
 * The script sets DENO_NO_UPDATE_CHECK: otherwise Deno looks up its download
 * host at every start, which an air-gapped CI job must not do.
 *
 * Usage: deno run --allow-read --allow-write --allow-env scripts/install.ts
 *   [--to <file>]    where to write it (default: $DENO_INSTALL_ROOT/bin/skiff,
 *                    else ~/.deno/bin/skiff)
 *   [--deno <path>]  the Deno it starts (default: `deno`, found on PATH)
 *   [--deno-dir <dir>]  Deno's cache for it (default: Deno's own, or $DENO_DIR)
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { writeFileAtomicSync } from "../src/lib/atomic_write.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ENTRY = "main.ts";

/**
 * The flags `deno run` gets in deno.json's `skiff` task: the words between
 * `run` and main.ts. Throws, naming the task, when it has another shape.
 */
export function skiffTaskFlags(config: { tasks?: Record<string, unknown> }): string[] {
  const task = config.tasks?.skiff;
  const words = typeof task === "string" ? task.trim().split(/\s+/) : [];
  const run = words.findIndex((word, at) => word === "run" && words[at - 1] === "deno");
  const flags = words.slice(run + 1, -1);
  if (run < 0 || words.at(-1) !== ENTRY || flags.some((flag) => !flag.startsWith("-"))) {
    throw new Error(
      `deno.json's "skiff" task should read "deno run --flag… ${ENTRY}" (flags of one word each), not: ${
        String(task)
      }`,
    );
  }
  return flags;
}

/** `text` as one word for sh: as it is when that is safe, else in single quotes. */
function shellWord(text: string): string {
  if (/^[\w@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The text of the `skiff` command that starts the clone at `root` with
 * `deno`, keeping its downloads in `denoDir` when one is given.
 */
export function wrapperScript(
  root: string,
  deno: string,
  flags: string[],
  denoDir?: string,
): string {
  const command = [
    shellWord(deno),
    "run",
    ...flags.map(shellWord),
    "--config",
    shellWord(path.join(root, "deno.json")),
    shellWord(path.join(root, ENTRY)),
    '"$@"',
  ];
  return [
    "#!/bin/sh",
    `# skiff from the clone at ${JSON.stringify(root)}, written by its scripts/install.ts.`,
    "# Without this Deno looks up its download host at every start.",
    "export DENO_NO_UPDATE_CHECK=1",
    ...denoDir ? [`export DENO_DIR=${shellWord(denoDir)}`] : [],
    `exec ${command.join(" ")}`,
    "",
  ].join("\n");
}

/** Reads the options; `--to` defaults to where `deno install -g` puts commands. */
function parseArgs(args: string[]): { to: string; deno: string; denoDir?: string } {
  const options: Record<string, string> = {};
  for (let at = 0; at < args.length; at += 2) {
    const [name, value] = [args[at], args[at + 1]];
    if (!["--to", "--deno", "--deno-dir"].includes(name) || value === undefined) {
      throw new Error(
        `usage: scripts/install.ts [--to <file>] [--deno <path>] [--deno-dir <dir>] (got ${name})`,
      );
    }
    options[name.slice(2)] = value;
  }
  const root = Deno.env.get("DENO_INSTALL_ROOT") ||
    path.join(Deno.env.get("HOME") ?? "", ".deno");
  return {
    to: path.resolve(options.to ?? path.join(root, "bin", "skiff")),
    deno: options.deno ?? "deno",
    denoDir: options["deno-dir"] && path.resolve(options["deno-dir"]),
  };
}

if (import.meta.main) {
  try {
    const { to, deno, denoDir } = parseArgs(Deno.args);
    const config = JSON.parse(await Deno.readTextFile(path.join(ROOT, "deno.json")));
    const script = wrapperScript(ROOT, deno, skiffTaskFlags(config), denoDir);
    writeFileAtomicSync(to, new TextEncoder().encode(script), 0o755);
    console.log(`Wrote ${to}: it runs ${path.join(ROOT, ENTRY)} with deno.json's flags.`);
    const onPath = (Deno.env.get("PATH") ?? "").split(":").includes(path.dirname(to));
    if (!onPath) console.log(`Add its folder to PATH: export PATH="${path.dirname(to)}:$PATH"`);
  } catch (error) {
    console.error(`skiff install: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
