/**
 * The chat's slash commands, each run against fake session controls: what
 * they print, what they send to the model, and what they switch.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { chatCommands, type SessionControls } from "../../src/cli/chat/commands/mod.ts";
import { CommandRegistry } from "../../src/ui/chat/input/commands.ts";
import { INIT_PROMPT } from "../../src/cli/chat/commands/prompts.ts";
import { listModels } from "../../src/cli/chat/commands/model.ts";
import { replayItems } from "../../src/cli/chat/replay.ts";
import type { EngineSpec } from "../../src/engine/types.ts";
import type { EngineHandle } from "../../src/engine/handle.ts";
import { openStore } from "../../src/store/store.ts";
import { testSpec } from "../engine/_spec.ts";

interface Fake {
  controls: SessionControls;
  printed: string[];
  sent: string[];
  reopened: { model?: string; agent?: string; sessionId?: string }[];
  spec: EngineSpec;
  engineCalls: string[];
  /** What the commands asked of the reasoning display, in order. */
  reasoning: string[];
  /** The reasoning the fake renderer has seen this chat; "" for none. */
  seenReasoning: string;
}

function write(file: string, text: string): void {
  Deno.mkdirSync(path.dirname(file), { recursive: true });
  Deno.writeTextFileSync(file, text);
}

async function withChat(
  work: (fake: Fake, root: string) => Promise<void>,
  options: { sessionId?: string; picks?: number[]; spec?: Partial<EngineSpec> } = {},
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-chatcmd-" }));
  Deno.mkdirSync(path.join(root, "project", ".git"), { recursive: true });
  try {
    let sessionId = options.sessionId;
    const picks = [...(options.picks ?? [])];
    const fake: Fake = {
      printed: [],
      sent: [],
      reopened: [],
      engineCalls: [],
      reasoning: [],
      seenReasoning: "",
      spec: testSpec({
        workspace: path.join(root, "project"),
        dataDir: path.join(root, "data"),
        configDir: path.join(root, "config"),
        ...options.spec,
      }),
      controls: undefined as unknown as SessionControls,
    };
    const engine: EngineHandle = {
      open: () => Promise.resolve("ses_x"),
      run: () => Promise.reject(new Error("not used")),
      runTool: () => Promise.reject(new Error("not used")),
      abort: () => {},
      close: () => Promise.resolve(),
      compact: (focus) => {
        fake.engineCalls.push(`compact ${focus ?? "(none)"}`);
        return Promise.resolve({ changed: true, text: "Compacted: summarised 4 older messages." });
      },
      mcpStatus: () =>
        Promise.resolve([{
          name: "docs",
          transport: "stdio",
          state: "connected",
          source: "config",
          tools: [{ name: "docs_search", description: "search" }],
        } as never]),
    };
    fake.controls = {
      print: (text) => void fake.printed.push(text),
      confirm: () => Promise.resolve(true),
      newSession: () => Promise.resolve(),
      exit: () => {},
      send: async (message) => {
        const text = typeof message === "string" ? message : await message.build(() => false);
        fake.sent.push(`${fake.spec.model}/${fake.spec.agent}: ${text}`);
      },
      sessionId: () => sessionId,
      spec: () => fake.spec,
      engine: () => Promise.resolve(engine),
      reopen: (change) => {
        fake.reopened.push(change);
        fake.spec = {
          ...fake.spec,
          model: change.model ?? fake.spec.model,
          agent: change.agent ?? fake.spec.agent,
        };
        sessionId = change.sessionId ?? sessionId;
        return Promise.resolve();
      },
      pick: () => Promise.resolve(picks.shift()),
      tellModel: (note) => void fake.sent.push(`(note) ${note}`),
      showEarlier: (sessionId) => {
        // The chat draws these through its renderer; the prompts are what a test can read.
        const items = replayItems(fake.spec, sessionId);
        fake.printed.push(
          items.flatMap((item) => item.kind === "prompt" ? [`› ${item.text}`] : []).join("\n"),
        );
        return Promise.resolve(items.length > 0);
      },
      reasoning: {
        reasoningShown: false,
        showReasoning: (on) => void fake.reasoning.push(on ? "show" : "collapse"),
        expandReasoning: (stored) => {
          const text = fake.seenReasoning || (stored?.() ?? "");
          fake.reasoning.push(`expand ${text || "(none)"}`);
          return Boolean(text);
        },
      },
    };
    await work(fake, root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function run(fake: Fake, text: string, home?: string): Promise<void> {
  const commands = await chatCommands(fake.controls, { home: home ?? "/nonexistent-home" });
  const parsed = CommandRegistry.parse(text)!;
  const command = commands.get(parsed.name);
  assert(command, `no command /${parsed.name}`);
  await command.run(parsed.args, fake.controls);
}

Deno.test("/help lists every built-in command with its description, and completion finds them", async () => {
  await withChat(async (fake) => {
    await run(fake, "/help");
    const help = fake.printed.join("\n");
    for (
      const name of [
        "help",
        "new",
        "resume",
        "sessions",
        "undo",
        "model",
        "agent",
        "compact",
        "usage",
        "permissions",
        "mcp",
        "init",
        "thinking",
        "exit",
      ]
    ) {
      assert.match(help, new RegExp(`^  /${name}\\b.*\\S`, "m"), `/${name} missing:\n${help}`);
    }
    assert.match(help, /\/model \[name\]\s+show or switch the model/);
    assert.match(help, /\/thinking \[on\|off\]/);
    assert.match(help, /Ctrl-T shows or collapses reasoning/);
    const commands = await chatCommands(fake.controls, { home: "/nonexistent-home" });
    assert.deepEqual(commands.complete("u"), ["undo", "usage"]);
    assert.deepEqual(commands.complete("pe"), ["permissions"]);
  });
});

Deno.test("custom commands: listed in /help with their source, run with arguments substituted; a project file cannot replace a built-in", async () => {
  await withChat(async (fake, root) => {
    const workspace = fake.spec.workspace;
    write(
      path.join(workspace, ".claude/commands/fix.md"),
      "---\ndescription: Fix an issue\nargument-hint: <issue>\n---\nFix issue $1: $ARGUMENTS",
    );
    write(path.join(workspace, ".skiff/commands/undo.md"), "Delete everything");
    const home = path.join(root, "home");
    write(path.join(home, ".claude/commands/mine.md"), "Mine: $ARGUMENTS");
    await run(fake, "/help", home);
    const help = fake.printed.join("\n");
    assert.match(help, /^note: .*undo\.md: \/undo is a built-in command and keeps its meaning/m);
    assert.match(help, /Custom commands:\n.*\/fix <issue>\s+Fix an issue\s+\(\.claude\/commands\)/);
    assert.match(help, /\/mine\s+Mine: \$ARGUMENTS\s+\(~\/\.claude\/commands\)/);
    await run(fake, "/fix 42 in the parser", home);
    assert.deepEqual(fake.sent, ["m/build: Fix issue 42: 42 in the parser"]);
    // /undo is still the built-in: it sends nothing.
    await run(fake, "/undo", home);
    assert.equal(fake.sent.length, 1);
    assert.match(fake.printed.at(-1)!, /Nothing to undo/);
  });
});

Deno.test("custom commands: model and agent apply for that prompt only, and not from a project you have not trusted", async () => {
  await withChat(async (fake) => {
    write(
      path.join(fake.spec.workspace, ".opencode/command/review.md"),
      "---\nagent: plan\nmodel: big\n---\nReview $ARGUMENTS",
    );
    await run(fake, "/review src/a.ts");
    assert.deepEqual(fake.sent, ["big/plan: Review src/a.ts"]);
    assert.deepEqual(fake.reopened, [{ model: "big", agent: "plan" }, {
      model: "m",
      agent: "build",
    }]);
    assert.equal(fake.spec.model, "m");
  }, { spec: { projectTrusted: true } });
  // Untrusted, and a spec that does not say (counted as untrusted).
  for (const projectTrusted of [false, undefined]) {
    await withChat(async (fake) => {
      write(
        path.join(fake.spec.workspace, ".opencode/command/review.md"),
        "---\nagent: plan\nmodel: big\n---\nReview $ARGUMENTS",
      );
      await run(fake, "/review x");
      assert.deepEqual(fake.sent, ["m/build: Review x"]);
      assert.deepEqual(fake.reopened, []);
      assert.match(fake.printed.join("\n"), /ignored, as you have not trusted this project/);
      assert.match(fake.printed.join("\n"), /--trust-project/);
    }, { spec: { projectTrusted } });
  }
});

Deno.test("custom commands: your own command keeps its name; the project's of the same name is /project:<name>, and its model and agent still need trust", async () => {
  await withChat(async (fake, root) => {
    const home = path.join(root, "home");
    write(path.join(home, ".claude/commands/deploy.md"), "My deploy $ARGUMENTS");
    write(
      path.join(fake.spec.workspace, ".claude/commands/deploy.md"),
      "---\nagent: plan\n---\nProject deploy $ARGUMENTS",
    );
    await run(fake, "/help", home);
    const help = fake.printed.join("\n");
    assert.match(
      help,
      /^note: .*deploy\.md: \/deploy stays your own .*; the project's is \/project:deploy/m,
    );
    assert.match(help, /\/deploy\s+My deploy \$ARGUMENTS\s+\(~\/\.claude\/commands\)/);
    assert.match(help, /\/project:deploy\s+Project deploy \$ARGUMENTS\s+\(\.claude\/commands\)/);
    await run(fake, "/deploy prod", home);
    await run(fake, "/project:deploy prod", home);
    assert.deepEqual(fake.sent, ["m/build: My deploy prod", "m/build: Project deploy prod"]);
    assert.deepEqual(fake.reopened, []);
  }, { spec: { projectTrusted: false } });
});

Deno.test("/init sends the dedicated prompt through the normal path; it writes nothing itself", async () => {
  await withChat(async (fake) => {
    await run(fake, "/init");
    assert.deepEqual(fake.sent, [`m/build: ${INIT_PROMPT}`]);
    assert.match(INIT_PROMPT, /write an AGENTS\.md/);
    assert.equal(
      [...Deno.readDirSync(fake.spec.workspace)].some((entry) => entry.name === "AGENTS.md"),
      false,
    );
  });
});

Deno.test("/compact goes to the engine with the focus; without a session it says there is nothing yet", async () => {
  await withChat(async (fake) => {
    await run(fake, "/compact");
    assert.match(fake.printed.at(-1)!, /Nothing to compact: no prompt has run yet/);
    assert.deepEqual(fake.engineCalls, []);
  });
  await withChat(async (fake) => {
    await run(fake, "/compact the parser work");
    assert.deepEqual(fake.engineCalls, ["compact the parser work"]);
    assert.match(fake.printed.at(-1)!, /Compacted: summarised 4 older messages/);
  }, { sessionId: "ses_1" });
});

Deno.test("/sessions lists this folder's sessions; /resume picks one and shows its messages; /resume 2 goes straight there", async () => {
  await withChat(async (fake) => {
    const store = openStore(fake.spec.dataDir);
    const ids: string[] = [];
    try {
      for (const title of ["older work", "newer work"]) {
        const session = store.createSession({
          workspace: fake.spec.workspace,
          model: "m",
          agent: "build",
          title,
        });
        const message = store.appendMessage(session.id, "user");
        store.appendPart(session.id, message, "text", {
          type: "text",
          text: `hello from ${title}`,
        });
        ids.push(session.id);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      store.createSession({ workspace: "/elsewhere", model: "m", agent: "build", title: "other" });
    } finally {
      store.close();
    }
    await run(fake, "/sessions");
    const listed = fake.printed.at(-1)!;
    assert.match(listed, /1\. newer work .*\n 2\. older work/);
    assert.doesNotMatch(listed, /other/);
    await run(fake, "/resume");
    assert.deepEqual(fake.reopened.at(-1), { sessionId: ids[1] });
    assert.match(fake.printed.at(-1)!, /hello from newer work/);
    await run(fake, "/resume 2");
    assert.deepEqual(fake.reopened.at(-1), { sessionId: ids[0] });
    assert.match(fake.printed.at(-1)!, /hello from older work/);
    await run(fake, "/resume 7");
    assert.match(fake.printed.at(-1)!, /No session number 7/);
  }, { picks: [1] });
});

Deno.test("/model lists the endpoint's models and switches for the next prompt; an endpoint without /models is said so", async () => {
  const served = (() =>
    Promise.resolve(
      new Response(JSON.stringify({ data: [{ id: "zeta" }, { id: "m" }] })),
    )) as typeof fetch;
  await withChat(async (fake) => {
    const commands = await chatCommands(fake.controls, {
      fetch: served,
      home: "/nonexistent-home",
    });
    await commands.get("model")!.run("", fake.controls);
    assert.match(fake.printed.at(-1)!, /Model: m\nAvailable:\n {2}● m\n {4}zeta/);
    await commands.get("model")!.run("zeta", fake.controls);
    assert.deepEqual(fake.reopened, [{ model: "zeta" }]);
    assert.match(fake.printed.at(-1)!, /Model: zeta from the next prompt/);
  });
  const missing = (() => Promise.resolve(new Response("no", { status: 404 }))) as typeof fetch;
  const listed = await listModels({ baseURL: "http://x/v1/", apiKey: "" }, missing);
  assert.deepEqual(listed, {
    ok: false,
    why: "the endpoint does not list its models (http://x/v1/models: 404)",
  });
});

Deno.test("/agent lists primary agents and switches; a subagent or an unknown name is refused", async () => {
  await withChat(async (fake) => {
    await run(fake, "/agent");
    assert.match(fake.printed.at(-1)!, /Agent: build\n.*● build/);
    assert.match(fake.printed.at(-1)!, /plan/);
    await run(fake, "/agent plan");
    assert.deepEqual(fake.reopened, [{ agent: "plan" }]);
    await run(fake, "/agent nobody");
    assert.match(fake.printed.at(-1)!, /No agent "nobody" to switch to/);
    assert.equal(fake.reopened.length, 1);
  });
});

Deno.test("/usage shows this session's tokens and cost from the store's usage rows", async () => {
  await withChat(async (fake) => {
    await run(fake, "/usage");
    assert.match(fake.printed.at(-1)!, /Nothing spent yet/);
    const store = openStore(fake.spec.dataDir);
    let id: string;
    try {
      id = store.createSession({ workspace: fake.spec.workspace, model: "m", agent: "build" }).id;
      store.usage.record(id, "m", {
        input_tokens: 1200,
        output_tokens: 80,
        total_tokens: 1280,
        cost_usd: 0.0123,
      });
      store.usage.record(id, "m", {
        input_tokens: 300,
        output_tokens: 20,
        total_tokens: 320,
        cost_usd: 0.002,
      });
    } finally {
      store.close();
    }
    await fake.controls.reopen({ sessionId: id });
    await run(fake, "/usage");
    const shown = fake.printed.at(-1)!;
    assert.match(shown, /2 requests/);
    assert.match(shown, /tokens: 1500 in, 100 out/);
    assert.match(shown, /cost:\s+\$0\.014/);
  });
});

Deno.test("/permissions lists each rule with the layer it came from", async () => {
  await withChat(async (fake) => {
    await run(fake, "/permissions");
    const shown = fake.printed.at(-1)!;
    assert.match(
      shown,
      /^global \(\/home\/me\/\.config\/skiff\/config\.json\):\n {2}bash\(git \*\) → allow \[global\]/m,
    );
    assert.match(shown, /^project \(.*skiff\.json\):\n {2}webfetch → deny \[project\]/m);
    assert.match(shown, /^flags \(command line\):\n {2}read\(\*\.env\) → deny \[flags\]/m);
    assert.match(shown, /^defaults \(defaults\):/m);
  }, {
    spec: {
      permissionLayers: [
        {
          source: "global",
          path: "/home/me/.config/skiff/config.json",
          permission: { bash: { "git *": "allow" } },
        },
        { source: "project", path: "/p/skiff.json", permission: { webfetch: "deny" } },
      ],
      flags: { allow: [], ask: [], deny: ["read(*.env)"], yes: false },
    },
  });
});

Deno.test("/permissions names Claude Code's settings files as the layers they fill", async () => {
  await withChat(async (fake) => {
    await run(fake, "/permissions");
    const shown = fake.printed.at(-1)!;
    assert.match(
      shown,
      /^claude-user \(\/home\/me\/\.claude\/settings\.json\):\n {2}bash\(git status \*\) → allow \[claude-user\]/m,
    );
    assert.match(
      shown,
      /^claude-project \(\/p\/\.claude\/settings\.json\):\n {2}read\(\.env\) → deny \[claude-project\]/m,
    );
    // Lowest precedence first: the user's Claude Code rules sit below skiff's own global config.
    assert.ok(shown.indexOf("claude-user (") < shown.indexOf("global ("));
    assert.ok(shown.indexOf("global (") < shown.indexOf("claude-project ("));
  }, {
    spec: {
      permissionLayers: [
        {
          source: "claude-user",
          path: "/home/me/.claude/settings.json",
          permission: { bash: { "git status *": "allow" } },
        },
        {
          source: "claude-project",
          path: "/p/.claude/settings.json",
          permission: { read: { ".env": "deny" } },
        },
        { source: "global", path: "/c/config.json", permission: { webfetch: "ask" } },
      ],
    },
  });
});

Deno.test("/mcp shows each server's state and tools from the engine", async () => {
  await withChat(async (fake) => {
    await run(fake, "/mcp");
    assert.match(fake.printed.at(-1)!, /^docs \(stdio, config\): .*\n {2}docs_search$/);
  }, { spec: { mcp: { enabled: true, env: {}, blocked: [] } } });
  await withChat(async (fake) => {
    await run(fake, "/mcp");
    assert.match(fake.printed.at(-1)!, /MCP is off/);
  });
});

Deno.test("/thinking writes out the last reasoning (a resumed session's from the store); on/off switch the live display", async () => {
  await withChat(async (fake) => {
    await run(fake, "/thinking");
    assert.deepEqual(fake.reasoning, ["expand (none)"]);
    assert.match(fake.printed.join("\n"), /No reasoning yet/);
    fake.seenReasoning = "thought live";
    await run(fake, "/thinking");
    await run(fake, "/thinking on");
    await run(fake, "/thinking OFF");
    await run(fake, "/thinking maybe");
    assert.deepEqual(fake.reasoning, ["expand (none)", "expand thought live", "show", "collapse"]);
    assert.match(fake.printed.join("\n"), /Usage: \/thinking, \/thinking on, \/thinking off/);
  });
  await withChat(async (fake) => {
    const store = openStore(fake.spec.dataDir);
    const session = store.createSession({
      workspace: fake.spec.workspace,
      model: "m",
      agent: "build",
    });
    const add = (role: string, parts: { type: "text" | "reasoning"; text: string }[]) => {
      const message = store.appendMessage(session.id, role);
      for (const part of parts) store.appendPart(session.id, message, part.type, part);
    };
    add("user", [{ type: "text", text: "old question" }]);
    add("assistant", [{ type: "reasoning", text: "old thought" }]);
    add("user", [{ type: "text", text: "last question" }]);
    add("assistant", [
      { type: "reasoning", text: "first of the last\nsecond line" },
      { type: "text", text: "the answer" },
    ]);
    add("assistant", [{ type: "reasoning", text: "second of the last" }]);
    store.close();
    await fake.controls.reopen({ sessionId: session.id });
    // The replay of a resumed session puts back what the person typed.
    assert.deepEqual(
      replayItems(fake.spec, session.id).flatMap((item) =>
        item.kind === "prompt" ? [item.text] : []
      ),
      ["old question", "last question"],
    );
    await run(fake, "/thinking");
    assert.deepEqual(fake.reasoning, [
      "expand first of the last\nsecond line\n\nsecond of the last",
    ]);
  });
});
