/**
 * The flags of `skiff run`, `skiff tool` and the chat, defined once:
 * src/cli/program.ts builds commander's options from them (help, errors,
 * every other command), and `parseEngineCommand` reads a command line of
 * those commands without loading commander, whose module graph (with Deno's
 * Node modules for child processes, files and events) would be the largest
 * part of their start (docs/performance.md). It reads only the plain forms;
 * anything else (help, `--`, joined short flags, an unknown flag, a missing
 * or refused value, too many arguments, the chat's `--resume` and a prompt
 * given to `skiff` itself) is left to commander, which answers it.
 * tests/cli/startup_args_test.ts holds the two side by side.
 */
import { REASONING_EFFORTS } from "../contracts/reasoning_effort.ts";

/** One option, as commander's `new Option(flags, description)` takes it. */
export interface OptionSpec {
  flags: string;
  description: string;
  /** The values it accepts (commander's `.choices`). */
  choices?: readonly string[];
  /** Given again, it adds to a list (commander's argument parser `collect`). */
  repeatable?: boolean;
}

/** Flags shared by every command that runs tools (`run`, `tool`, the chat, batch, `mcp serve`). */
export const SANDBOX_OPTIONS: readonly OptionSpec[] = [
  { flags: "--dir <path>", description: "workspace folder (default: the current folder)" },
  {
    flags: "--sandbox <mode>",
    description: "what commands and tools may change",
    choices: ["read-only", "workspace-write", "full-access"],
  },
  {
    flags: "--sandbox-backend <name>",
    description: "the OS sandbox for commands on Linux (default: auto)",
    choices: ["auto", "bwrap", "landlock"],
  },
  {
    flags: "--add-dir <path>",
    description: "another folder tools may use (repeatable)",
    repeatable: true,
  },
  {
    flags: "--allow <rule>",
    description: "allow rule, e.g. 'bash(npm test *)' (repeatable)",
    repeatable: true,
  },
  {
    flags: "--ask <rule>",
    description: "ask rule, e.g. 'edit(*.lock)' (repeatable)",
    repeatable: true,
  },
  {
    flags: "--deny <rule>",
    description: "deny rule, e.g. 'webfetch' (repeatable)",
    repeatable: true,
  },
  { flags: "-y, --yes", description: "approve every call that would ask (a deny still wins)" },
  {
    flags: "--trust-project",
    description: "apply the allow rules of the project's own config and agent files",
  },
  {
    flags: "--no-memory",
    description: "neither show nor offer harness memory this run (docs/memory.md)",
  },
];

/** How hard a reasoning model thinks: `skiff run` and the chat (docs/models.md#reasoning-effort). */
export const REASONING_EFFORT_OPTION: OptionSpec = {
  flags: "--reasoning-effort <level>",
  description: "how hard a reasoning model thinks (overrides config; default: the server's)",
  choices: REASONING_EFFORTS,
};

/** The chat's own flags (`skiff`, `skiff chat`), after the sandbox flags. */
export const CHAT_OPTIONS: readonly OptionSpec[] = [
  { flags: "-m, --model <name>", description: "model to use (overrides config)" },
  REASONING_EFFORT_OPTION,
  { flags: "--agent <name>", description: "agent to run as (default: build)" },
  { flags: "-c, --continue", description: "resume the latest session in this folder" },
  { flags: "--resume [id]", description: "resume a session: pick from this folder's, or name one" },
];

/** `skiff run`'s own flags, after the sandbox flags. */
export const RUN_OPTIONS: readonly OptionSpec[] = [
  { flags: "-m, --model <name>", description: "model to use (overrides config)" },
  { flags: "--agent <name>", description: "agent to run as (default: build)" },
  REASONING_EFFORT_OPTION,
  {
    flags: "--max-turns <n>",
    description: "stop after this many model turns (default: config maxTurns, else no limit)",
  },
  {
    flags: "--max-time <seconds>",
    description: "stop after this much wall-clock time (default: config maxTime, else no limit)",
  },
  {
    flags: "--max-cost <usd>",
    description:
      "stop once this prompt has cost this many US dollars (default: config maxCost, else no limit)",
  },
  {
    flags: "--max-tokens <n>",
    description:
      "stop once this prompt has used this many tokens, in + out (default: config maxTokens)",
  },
  { flags: "-c, --continue", description: "continue the latest session in this workspace" },
  { flags: "-s, --session <id>", description: "continue the given session" },
  { flags: "--json", description: "print one JSON event per line on stdout (see docs/events.md)" },
  {
    flags: "-o, --output-last-message <file>",
    description: "also write the final answer to this file",
  },
  {
    flags: "--summary <file.md>",
    description:
      "also write a Markdown summary (answer, files changed, checks, tokens, denials) to this file",
  },
  { flags: "-q, --quiet", description: "print only the final answer (no tool activity on stderr)" },
  {
    flags: "--until <command>",
    description:
      "when the agent says it is done, run this check; on failure its output goes back to the agent",
  },
  {
    flags: "--max-cycles <n>",
    description: "attempts the agent gets at the --until/--done check (default 3)",
  },
  {
    flags: "--done",
    description: "use the criteria in .skiff/done.json (from the plan agent) as the check",
  },
  {
    flags: "--protect <glob>",
    description: "the agent may not change these paths this run, e.g. 'tests/**' (repeatable)",
    repeatable: true,
  },
];

/**
 * A command line of `run`, `tool` or the chat as commander's action would
 * receive it (`chat`: `skiff chat` with its first message, or `skiff` with
 * none).
 */
export type ParsedEngineCommand =
  | { command: "run"; prompt: string[]; options: Record<string, unknown> }
  | { command: "chat"; prompt: string[]; options: Record<string, unknown> }
  | {
    command: "tool";
    name: string | undefined;
    input: string | undefined;
    options: Record<string, unknown>;
  };

interface Flag {
  spec: OptionSpec;
  /** The key in the options object (commander's attribute name). */
  key: string;
  takesValue: boolean;
  negate: boolean;
}

/** What commander makes of `spec.flags`, for the plain forms read here. */
function flagOf(spec: OptionSpec): { names: string[]; flag: Flag } | undefined {
  const match = spec.flags.match(/^(?:(-[A-Za-z]), )?(--[a-z][a-z-]*)(?: <([^>]+)>)?$/);
  // An optional (`[id]`) or variadic (`<dirs...>`) value: such a command is left to commander.
  if (!match || match[3]?.endsWith("...")) return undefined;
  const [, short, long, value] = match;
  const negate = long.startsWith("--no-");
  const key = long.slice(negate ? 5 : 2).replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());
  return {
    names: short ? [short, long] : [long],
    flag: { spec, key, takesValue: value !== undefined, negate },
  };
}

/**
 * The flags read here. `optional`: flags this reader cannot read (an
 * optional value) are left out, so a line holding one goes to commander;
 * otherwise such a flag leaves the whole command to commander.
 */
function flagTable(
  specs: readonly OptionSpec[],
  optional: readonly OptionSpec[] = [],
): Map<string, Flag> | undefined {
  const table = new Map<string, Flag>();
  for (const spec of specs) {
    const found = flagOf(spec);
    if (!found && optional.includes(spec)) continue;
    if (!found) return undefined;
    for (const name of found.names) table.set(name, found.flag);
  }
  return table;
}

const TABLES = {
  run: flagTable([...SANDBOX_OPTIONS, ...RUN_OPTIONS]),
  tool: flagTable(SANDBOX_OPTIONS),
  chat: flagTable([...SANDBOX_OPTIONS, ...CHAT_OPTIONS], CHAT_OPTIONS),
};

/**
 * The command `args` name for this reader: `skiff` alone or with flags only
 * is the chat (`root`), which takes no words here (a prompt given to `skiff`
 * itself is commander's: it may be a mistyped command).
 */
function commandOf(args: readonly string[]): "run" | "tool" | "chat" | "root" | undefined {
  const first = args[0];
  if (first === "run" || first === "tool" || first === "chat") return first;
  return first === undefined || first.startsWith("-") ? "root" : undefined;
}

/**
 * `args` (after the program's name) as `skiff run` or `skiff tool` would get
 * them from commander, or undefined for anything this does not read: then
 * commander parses the line.
 */
export function parseEngineCommand(args: readonly string[]): ParsedEngineCommand | undefined {
  const named = commandOf(args);
  if (named === undefined) return undefined;
  const command = named === "root" ? "chat" : named;
  const table = TABLES[command];
  if (!table) return undefined;
  const options: Record<string, unknown> = {};
  for (const flag of table.values()) if (flag.negate) options[flag.key] = true;
  const operands: string[] = [];
  for (let index = named === "root" ? 0 : 1; index < args.length; index++) {
    const arg = args[index];
    if (!arg.startsWith("-") || arg === "-") {
      operands.push(arg);
      continue;
    }
    const equals = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = equals === -1 ? arg : arg.slice(0, equals);
    const flag = table.get(name);
    if (!flag) return undefined; // help, `--`, joined short flags, an unknown flag
    if (!flag.takesValue) {
      if (equals !== -1) return undefined;
      options[flag.key] = !flag.negate;
      continue;
    }
    let value: string | undefined;
    if (equals !== -1) value = arg.slice(equals + 1);
    else value = args[++index];
    if (value === undefined) return undefined;
    if (flag.spec.choices && !flag.spec.choices.includes(value)) return undefined;
    options[flag.key] = flag.spec.repeatable
      ? [...(options[flag.key] as string[] | undefined ?? []), value]
      : value;
  }
  if (named === "root" && operands.length) return undefined;
  if (command !== "tool") return { command, prompt: operands, options };
  if (operands.length > 2) return undefined;
  return { command, name: operands[0], input: operands[1], options };
}
