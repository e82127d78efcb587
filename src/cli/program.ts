/**
 * The command line: parses argv with commander and hands each command to its
 * own module (src/cli/command_loader.ts), loaded only when that command runs.
 * Loaded by src/cli/main.ts for any command line the plain reading of `run`,
 * `tool` and the chat (src/boot/engine_options.ts) leaves to it.
 */
import { Command, CommanderError, Option } from "commander";
import { VERSION } from "../version.ts";
import { ExitCode, UsageError } from "./exit_codes.ts";
import { reportFatal } from "./report_fatal.ts";
import { mark, reportTimings } from "../boot/timings.ts";
import { loadCommandModule as load } from "./command_loader.ts";
import {
  CHAT_OPTIONS,
  type OptionSpec,
  REASONING_EFFORT_OPTION,
  RUN_OPTIONS,
  SANDBOX_OPTIONS,
} from "../boot/engine_options.ts";
import { runEngineCommand } from "./engine_commands.ts";
import {
  headlessRunOptions,
  mistypedCommand,
  PRINT_FLAGS,
  RUN_ONLY_OPTIONS,
  runOnlyFlagsGiven,
  runsHeadless,
  unknownCommand,
} from "./bare_prompt.ts";

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds `specs` (src/boot/engine_options.ts) to `command`, in order. */
function addOptions(command: Command, specs: readonly OptionSpec[]): Command {
  for (const spec of specs) {
    const option = new Option(spec.flags, spec.description);
    if (spec.choices) option.choices(spec.choices);
    if (spec.repeatable) option.argParser(collect);
    command.addOption(option);
  }
  return command;
}

/** Flags shared by every command that runs tools (`run`, `tool`). */
function addSandboxFlags(command: Command): Command {
  return addOptions(command, SANDBOX_OPTIONS);
}

/** Flags of the interactive session (`skiff`, `skiff chat`). */
function addChatFlags(command: Command): Command {
  return addOptions(command, CHAT_OPTIONS);
}

/**
 * Examples of the commands whose help states none beside its other notes,
 * by path (`memory list`); every command's help ends with examples
 * (tests/docs/readme_commands_test.ts parses each of them).
 */
const EXAMPLES: Record<string, string[]> = {
  memory: ["skiff memory list", "skiff memory show m12", "skiff memory rm m12 h7"],
  "memory list": ["skiff memory list", "skiff memory list --all --json"],
  "memory show": ["skiff memory show m12", "skiff memory show h7 --json"],
  "memory rm": ["skiff memory rm m12", "skiff memory rm m12 m13 h7"],
  "memory export": ["skiff memory export > memory.json", "skiff memory export --all"],
  usage: ["skiff usage", "skiff usage --since 7d --by day", "skiff usage --by project --json"],
  sessions: [
    "skiff sessions list",
    "skiff sessions show ses_4wos",
    "skiff sessions stats --since 7d",
  ],
  "sessions list": ["skiff sessions list", "skiff sessions list --all -n 50 --json"],
  "sessions show": ["skiff sessions show ses_4wos"],
  "sessions export": [
    "skiff sessions export ses_4wos > session.json",
    "skiff sessions export ses_4wos --format md > session.md",
  ],
  "sessions stats": ["skiff sessions stats", "skiff sessions stats --all --since 2w --json"],
  "sessions rm": ["skiff sessions rm ses_4wos"],
  undo: [
    "skiff undo",
    "skiff undo --session ses_4wos",
    "skiff undo --cycle",
    "skiff undo --batch bat_1a2b3c",
  ],
  agents: ["skiff agents list"],
  "agents list": ["skiff agents list", "skiff agents list --dir ../other-project"],
  mcp: ["skiff mcp list", "skiff mcp serve", "skiff mcp login docs"],
  "mcp serve": [
    "skiff mcp serve",
    "skiff mcp serve --http 0",
    "skiff mcp serve --sandbox read-only",
  ],
  "mcp list": ["skiff mcp list", "skiff mcp list --allow 'mcp_server(github)'"],
  "mcp login": ["skiff mcp login docs", "skiff mcp login docs --timeout 600"],
  "mcp logout": ["skiff mcp logout docs"],
  acp: [
    "skiff acp",
    "skiff acp --model qwen2.5-coder:32b --agent plan",
    "skiff acp --sandbox read-only",
  ],
};

/** Appends each command's examples from EXAMPLES to its help. */
function addExamples(program: Command): void {
  const walk = (command: Command, path: string[]) => {
    const lines = EXAMPLES[path.join(" ")];
    if (lines) {
      command.addHelpText("after", `\nExamples:\n${lines.map((line) => `  ${line}`).join("\n")}`);
    }
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);
}

export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command("skiff")
    .description("A coding agent for any OpenAI-compatible endpoint, in one binary.")
    .version(`skiff ${VERSION}`, "-V, --version", "print the version")
    .showHelpAfterError("(run with --help for usage)")
    // Set before subcommands are added so they inherit it: usage errors
    // return here (exit 2) instead of ending the process.
    .exitOverride()
    .addHelpText(
      "after",
      `
Examples:
  skiff "explain this repo"            # the chat, with this first message
  skiff -p "explain this repo"         # headless: the answer on stdout, as skiff run
  skiff run "explain what main.ts does"
  echo "fix the failing test" | skiff run --json
  skiff run --continue "now add a test for it"
  skiff sessions list
  skiff undo

Environment: OPENAI_API_KEY, OPENAI_BASE_URL, SKIFF_MODEL, SKIFF_CONFIG_DIR, SKIFF_DATA_DIR.
Docs: README.md and docs/ in the skiff repository.`,
    );

  // `skiff` alone (or with -c / --resume) opens the interactive session; with
  // a prompt it opens it with that message, or runs it headless (bare_prompt.ts).
  const root = addChatFlags(
    addSandboxFlags(
      program.enablePositionalOptions().argument(
        "[prompt...]",
        "a first message; headless (or with -p) it runs as `skiff run` does",
      ),
    ),
  ).option(PRINT_FLAGS, "run the prompt headless and print the answer, as `skiff run`");
  for (const spec of RUN_ONLY_OPTIONS) {
    const option = new Option(spec.flags, spec.description).hideHelp();
    if (spec.repeatable) option.argParser(collect);
    root.addOption(option);
  }
  root.action(async (prompt: string[], options: Record<string, unknown>) => {
    setExit(await rootCommand(prompt, options, program.commands.map((command) => command.name())));
  });
  addChatFlags(
    addSandboxFlags(
      program.command("chat").argument("[prompt...]", "a first message (optional)"),
    ),
  )
    .description("talk with the agent in this terminal (the default command)")
    .addHelpText(
      "after",
      `
Examples:
  skiff chat
  skiff chat "why does the parser test fail?"
  skiff chat --sandbox read-only --model qwen2.5-coder:32b
  skiff -c`,
    )
    .action(async (prompt: string[], options) => {
      const { chatCommand } = await load<typeof import("./chat/chat.ts")>("./chat/chat.ts");
      setExit(await chatCommand(prompt, options));
    });

  const run = addSandboxFlags(
    program.command("run").argument("[prompt...]", "what to do (default: read from piped stdin)"),
  )
    .description("run the agent on one prompt, headless, and exit");
  addOptions(run, RUN_OPTIONS)
    .addHelpText(
      "after",
      `
Examples:
  skiff run "add input validation to src/api.ts"
  git diff | skiff run "review this change"
  skiff run --json --max-turns 20 "make the tests pass" > events.jsonl
  skiff run --until 'npm test' --protect 'tests/**' "make the tests pass"
  skiff run --sandbox read-only "where is the config loaded?"

Exit codes: 0 done, 1 agent failed, 2 usage/config error, 3 permission denied,
4 provider unreachable, 5 limit hit, 130 interrupted.`,
    )
    .action(async (prompt: string[], options) => {
      setExit(await runEngineCommand({ command: "run", prompt, options }));
    });

  const batch = addSandboxFlags(
    program.command("batch").argument("[tasks]", "a JSONL file of tasks ('-': stdin)"),
  )
    .description("run many tasks, -j at once, each its own session (docs/batch.md)")
    .option("--each <glob>", "one task per file matching the glob (needs --prompt)")
    .option("--dirs <folders...>", "one task per folder or repository, listed or matched")
    .option("--prompt <template>", "the prompt of --each/--dirs tasks; {file} {dir} {name}")
    .option("-j, --jobs <n>", "tasks at once (default: min(4, 2 x cores))")
    .option("-m, --model <name>", 'model to use (a task\'s own "model" wins)')
    .option("--agent <name>", 'agent to run as (a task\'s own "agent" wins)')
    .option("--max-turns <n>", "each task stops after this many model turns")
    .option("--max-time <seconds>", "each task stops after this much wall-clock time")
    .option("--until <command>", "verification command for tasks that name none")
    .option("--max-cycles <n>", "verification cycles with --until")
    .option("--dry-run", "list the tasks it would run, run nothing")
    .option("--json", "one JSON event per line on stdout, each task's tagged with its id")
    .option("--report <file>", "write the summary to a .md or .json file")
    .option("--resume <batch>", "run what a stopped batch did not finish")
    .option("--shard <K/N>", "run a stable 1/N of the tasks (for a CI matrix)")
    .addHelpText(
      "after",
      `
Examples:
  skiff batch --each 'src/**/*.ts' --prompt 'add a doc comment to each export in {file}'
  skiff batch tasks.jsonl -j 4 --until 'npm test' --report report.md
  skiff batch --dirs 'services/*' --prompt 'update the README of {name}' --dry-run
  skiff batch --resume bat_1a2b3c

Exit codes: 0 every task succeeded, 1 some failed (counts on stderr), 3/4/5 when
every task failed the same way, 2 usage error (nothing ran), 130 interrupted.`,
    )
    .action(async (file: string | undefined, options) => {
      const { batchCommand } = await load<typeof import("./batch/batch.ts")>("./batch/batch.ts");
      setExit(await batchCommand(file, options));
    });
  batch.command("merge").argument("<reports...>", "JSON reports of a batch's shards")
    .description("join the shards' reports into one summary")
    .option("--report <file>", "also write the merged summary to a .md or .json file")
    .addHelpText(
      "after",
      `
Examples:
  skiff batch merge shard-1.json shard-2.json shard-3.json
  skiff batch merge reports/*.json --report summary.md`,
    )
    .action(async (files: string[], options) => {
      const { mergeCommand } = await load<typeof import("./batch/batch.ts")>("./batch/batch.ts");
      setExit(await mergeCommand(files, options));
    });

  program.command("doctor")
    .description(
      "what works here: sandbox backends, versions, folders, whether the endpoint answers",
    )
    .option("--model <id>", "also probe this model: wire, tool calls, reasoning, window")
    .addHelpText(
      "after",
      `
Ends with what a run needs, each check ok or FAIL with what to do; exit 1 when any fails.
Examples:
  skiff doctor
  skiff doctor --model qwen2.5-coder:32b
  OPENAI_BASE_URL=http://localhost:11434/v1 skiff doctor`,
    )
    .action(async (options: { model?: string }) => {
      const { doctorCommand } = await load<typeof import("./doctor/doctor.ts")>(
        "./doctor/doctor.ts",
      );
      setExit(await doctorCommand(options.model ? { model: options.model } : {}));
    });

  const memory = program.command("memory")
    .description("what sessions remembered and recorded for this workspace (docs/memory.md)");
  memory.command("list").description("remembered entries (m<id>) and harness records (h<id>)")
    .option("--dir <path>", "workspace folder (default: the current folder)")
    .option("--all", "every workspace, not only this one")
    .option("--json", "JSON output")
    .action(async (options) => {
      const { memoryList } = await load<typeof import("./memory.ts")>("./memory.ts");
      setExit(memoryList(options));
    });
  memory.command("show <id>").description("one entry or record in full")
    .option("--json", "JSON output")
    .action(async (id: string, options) => {
      const { memoryShow } = await load<typeof import("./memory.ts")>("./memory.ts");
      setExit(memoryShow(id, options));
    });
  memory.command("rm <ids...>").description("delete entries or records (m12 h7 …)")
    .action(async (ids: string[]) => {
      const { memoryRemove } = await load<typeof import("./memory.ts")>("./memory.ts");
      setExit(memoryRemove(ids));
    });
  memory.command("export").description("everything of this workspace as JSON on stdout")
    .option("--dir <path>", "workspace folder (default: the current folder)")
    .option("--all", "every workspace, not only this one")
    .action(async (options) => {
      const { memoryExport } = await load<typeof import("./memory.ts")>("./memory.ts");
      setExit(memoryExport(options));
    });

  program.command("usage")
    .description("tokens and cost over the stored sessions")
    .option("--since <age>", "only usage since then: 7d, 12h, 2w or a date (default: all)")
    .option("--by <what>", "one row per model, day (UTC) or project", "model")
    .option("--json", "JSON output")
    .action(async (options) => {
      const { usageCommand } = await load<typeof import("./sessions/usage.ts")>(
        "./sessions/usage.ts",
      );
      setExit(await usageCommand(options));
    });

  const sessions = program.command("sessions").description(
    "list, show, export, delete or count the outcomes of stored sessions",
  );
  sessions.command("list").description("list sessions, newest first")
    .option("--dir <path>", "only sessions of this workspace")
    .option("--all", "sessions of every workspace")
    .option("-n, --limit <n>", "how many", "20")
    .option("--json", "JSON output")
    .action(async (options) => {
      const { listSessions } = await load<typeof import("./sessions/sessions.ts")>(
        "./sessions/sessions.ts",
      );
      setExit(await listSessions(options));
    });
  sessions.command("show").argument("<id>").description("print a session's transcript")
    .action(async (id: string) => {
      const { showSession } = await load<typeof import("./sessions/sessions.ts")>(
        "./sessions/sessions.ts",
      );
      setExit(await showSession(id));
    });
  sessions.command("export").argument("<id>").description("export a session")
    .addOption(
      new Option("--format <format>", "output format").choices(["json", "md"]).default("json"),
    )
    .action(async (id: string, options) => {
      const { exportSession } = await load<typeof import("./sessions/sessions.ts")>(
        "./sessions/sessions.ts",
      );
      setExit(await exportSession(id, options.format));
    });
  sessions.command("stats")
    .description("where failed runs failed: counts and shares per layer and reason")
    .option("--dir <path>", "only runs of this workspace")
    .option("--all", "runs of every workspace")
    .option(
      "--since <age>",
      "only runs that ended since then: 7d, 12h, 2w or a date (default: all)",
    )
    .option("--json", "JSON output")
    .action(async (options) => {
      const { sessionsStats } = await load<typeof import("./sessions/stats.ts")>(
        "./sessions/stats.ts",
      );
      setExit(await sessionsStats(options));
    });
  sessions.command("rm").argument("<id>").description("delete a session and its history")
    .action(async (id: string) => {
      const { removeSession } = await load<typeof import("./sessions/sessions.ts")>(
        "./sessions/sessions.ts",
      );
      setExit(await removeSession(id));
    });

  program.command("compact").argument("<session>", "session id (or a prefix that names one)")
    .description("summarise a stored session's older turns now, so continuing it sends less")
    .option("--focus <text>", 'what the summary must keep, e.g. "the failing parser test"')
    .option("-m, --model <name>", "model that writes the summary (default: the session's)")
    .addHelpText(
      "after",
      `
The model writes a structured handoff of the older turns (the task in your
words, decisions, files, commands and results, open problems, next steps);
the last two model turns stay verbatim. The next \`skiff run --session <id>\`
(or --continue) sends the handoff instead of the turns it replaced. Nothing is
deleted: \`skiff sessions show <id>\` still prints every message and marks the
compaction. A session with nothing old or large enough to summarise is left
as it is, with no model request (exit 0). A summary that fails is not used:
old tool outputs are pruned instead, or nothing is changed when there are
none, and the command says so (exit 1).
Runs also compact on their own near the model's window (docs/context.md).
Examples:
  skiff compact ses_4wos
  skiff compact ses_4wos --focus "the migration plan and the failing test"`,
    )
    .action(async (session: string, options) => {
      const { compactCommand } = await load<typeof import("./sessions/compact.ts")>(
        "./sessions/compact.ts",
      );
      setExit(await compactCommand(session, options));
    });

  program.command("undo")
    .description("put back the files the last prompt (or --until run) of a session changed")
    .option("--session <id>", "session to undo (default: latest in this workspace)")
    .option("--batch <id>", "put back every task's changes of a `skiff batch`")
    .option("--cycle", "only the last --until cycle (plain undo takes back every cycle of the run)")
    .option("--dir <path>", "workspace folder (default: the current folder)")
    .option(
      "--add-dir <folder>",
      "a folder outside the workspace that undo may write in (repeatable)",
      collect,
    )
    .addHelpText(
      "after",
      `
Files changed on disk since skiff changed them are left alone and named, and so
are files whose path now leads elsewhere (a folder on it became a symlink).`,
    )
    .action(async (options) => {
      const { undoCommand } = await load<typeof import("./undo.ts")>("./undo.ts");
      setExit(await undoCommand(options));
    });

  addSandboxFlags(
    program.command("tool")
      .argument("[name]", "tool to run once")
      .argument("[input]", "its input as JSON"),
  )
    .description("run tools without a model (JSON Lines in, JSON Lines out)")
    .addHelpText(
      "after",
      `
Reads {"tool": "read", "input": {...}} lines from stdin when no name is given.
Prints one {"tool","ok","output","error","metadata"} line per call.
Examples:
  skiff tool read '{"file_path":"src/app.ts"}'
  printf '%s\\n' '{"tool":"read","input":{"file_path":"a.ts"}}' \\
    '{"tool":"edit","input":{"file_path":"a.ts","old_string":"x","new_string":"y"}}' | skiff tool`,
    )
    .action(async (name: string | undefined, input: string | undefined, options) => {
      setExit(await runEngineCommand({ command: "tool", name, input, options }));
    });

  program.command("agents").description("agents you can run").command("list")
    .description("list built-in and user-defined agents")
    .option("--dir <path>", "workspace folder")
    .action(async (options) => {
      const { listAgents } = await load<typeof import("./agents.ts")>("./agents.ts");
      setExit(await listAgents(options));
    });

  const mcp = program.command("mcp").description("MCP servers");
  addSandboxFlags(mcp.command("serve"))
    .description("offer skiff's tools to an MCP client, over stdio (default) or --http")
    .option("--http <port>", "serve over HTTP on 127.0.0.1 with a bearer token (0: a free port)")
    .option("--host <address>", "only a loopback address is accepted (127.0.0.1, ::1)")
    .action(async (options) => {
      const { mcpServeCommand } = await load<typeof import("./mcp/mcp_serve.ts")>(
        "./mcp/mcp_serve.ts",
      );
      setExit(await mcpServeCommand(options));
    });
  mcp.command("list")
    .description("start each configured MCP server and show its status and tools")
    .option("--dir <path>", "workspace folder")
    .option(
      "--allow <rule>",
      "start a project-defined server: 'mcp_server(name)' (repeatable)",
      collect,
    )
    .action(async (options) => {
      const { listMcp } = await load<typeof import("./mcp/mcp.ts")>("./mcp/mcp.ts");
      setExit(await listMcp(options));
    });
  const projectServer = "log in to a project-defined server: 'mcp_server(name)' (repeatable)";
  mcp.command("login")
    .description("log in to a remote MCP server with OAuth (prints a URL to open in a browser)")
    .argument("<server>", "the server's name in config or .mcp.json")
    .option("--dir <path>", "workspace folder")
    .option("--allow <rule>", projectServer, collect)
    .option("--timeout <seconds>", "how long to wait for the browser (default 300)")
    .action(async (server: string, options) => {
      const { loginMcp } = await load<typeof import("./mcp/mcp_login.ts")>("./mcp/mcp_login.ts");
      setExit(await loginMcp(server, options));
    });
  mcp.command("logout")
    .description("delete the OAuth login stored for a remote MCP server's URL")
    .argument("<server>", "the server's name in config or .mcp.json")
    .option("--dir <path>", "workspace folder")
    .option("--allow <rule>", projectServer, collect)
    .action(async (server: string, options) => {
      const { logoutMcp } = await load<typeof import("./mcp/mcp_login.ts")>("./mcp/mcp_login.ts");
      setExit(await logoutMcp(server, options));
    });

  addOptions(addSandboxFlags(program.command("acp")), [REASONING_EFFORT_OPTION])
    .description("serve an editor over the Agent Client Protocol on stdio (docs/editors.md)")
    .option("-m, --model <name>", "model to use (overrides config)")
    .option("--agent <name>", "agent (mode) a new session starts in (default: build)")
    .action(async (options) => {
      const { acpCommand } = await load<typeof import("./acp/acp.ts")>("./acp/acp.ts");
      setExit(await acpCommand(options));
    });

  addExamples(program);
  return program;
}

/** `skiff [prompt…]`: the chat, with a first message when there is one, or a headless run. */
async function rootCommand(
  prompt: string[],
  options: Record<string, unknown>,
  commands: string[],
): Promise<number> {
  try {
    const suggestion = mistypedCommand(prompt, [...commands, "help"]);
    if (suggestion) throw unknownCommand(prompt, suggestion);
    const atTerminal = Deno.stdin.isTerminal() && Deno.stdout.isTerminal();
    if ((prompt.length || options.print) && runsHeadless(options, atTerminal)) {
      return await runEngineCommand({
        command: "run",
        prompt,
        options: headlessRunOptions(options),
      });
    }
    const runOnly = runOnlyFlagsGiven(options);
    if (runOnly.length) {
      throw new UsageError(
        `${runOnly.join(", ")} ${runOnly.length === 1 ? "is" : "are"} for a headless run.`,
        'Add -p to run the prompt headless: skiff -p "…", or use skiff run.',
      );
    }
  } catch (error) {
    return reportFatal(error);
  }
  const { chatCommand } = await load<typeof import("./chat/chat.ts")>("./chat/chat.ts");
  return await chatCommand(prompt, options);
}

/** Parses `args` and runs the command; returns the exit code. */
export async function runProgram(args: string[]): Promise<number> {
  let code: number = ExitCode.ok;
  const program = buildProgram((value) => (code = value));
  try {
    await program.parseAsync(args, { from: "user" });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit through here with code 0.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    return reportFatal(error);
  } finally {
    mark("exit");
    reportTimings();
  }
}
