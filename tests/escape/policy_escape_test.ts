/**
 * Escape attempts against the rule table: a denied command hidden inside an
 * allowed one, and rules from another layer trying to undo a deny. Each call
 * goes through the permission gate with `--yes` (every ask approved, so only
 * a deny can stop it); when the gate lets a command through it really runs
 * (under bubblewrap, network allowed, when it is installed), so "nothing
 * changed" is measured, not assumed. The workspace file the commands try to delete is inside the
 * writable workspace: here the policy is the only layer that protects it.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { HeadlessBroker, YesBroker } from "../../src/permission/broker.ts";
import { flagsLayer } from "../../src/permission/flags.ts";
import { PermissionGate } from "../../src/permission/gate.ts";
import { buildLayers, type LayerSources } from "../../src/permission/layers.ts";
import type { PermissionConfig } from "../../src/permission/rules.ts";
import { hasBwrap, makeLayout, needsBwrap, runSandboxed, snapshotAll } from "./_harness.ts";

const project: PermissionConfig = {
  bash: { "*": "ask", "git *": "allow", "echo *": "allow", "rm *": "deny", "curl *": "deny" },
};

/** A local HTTP server counting requests. */
function countingServer() {
  let hits = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    hits++;
    return new Response("ok");
  });
  return { port: server.addr.port, hits: () => hits, close: () => server.shutdown() };
}

/** Gate the command (with --yes); run it only if allowed. Asserts it was refused and nothing changed. */
async function refusedCommand(
  command: string,
  sources: LayerSources = { project },
  headless = false,
) {
  const layout = makeLayout();
  const server = countingServer();
  try {
    const full = command.replaceAll("PORT", String(server.port));
    const before = snapshotAll(layout);
    const gate = new PermissionGate({
      layers: buildLayers(sources),
      workspace: layout.ws,
      broker: headless ? new HeadlessBroker() : new YesBroker(),
      brokerSource: headless ? "headless" : "yes",
    });
    const verdict = await gate.check("bash", { command: full }, {
      key: "bash",
      patterns: [full],
      commands: [full],
    });
    if (verdict.allowed && hasBwrap) await runSandboxed(layout, full, { network: true });
    assertEquals(verdict.allowed, false, `the gate let through: ${full}`);
    assertEquals(verdict.source, headless ? "headless" : "rule");
    assertEquals(snapshotAll(layout), before);
    assert(Deno.statSync(path.join(layout.ws, "victim.txt")).isFile);
    assertEquals(server.hits(), 0);
    return verdict;
  } finally {
    await server.close();
    layout.cleanup();
  }
}

/** Runs without bubblewrap too: a refused command is never started, with or without it. */
const policyTest = (name: string, fn: () => Promise<void>) => Deno.test({ name, fn });

Deno.test(
  { name: "escape/policy: the control — an allowed command really runs", ...needsBwrap },
  async () => {
    const layout = makeLayout();
    try {
      const gate = new PermissionGate({
        layers: buildLayers({ project }),
        workspace: layout.ws,
        broker: new YesBroker(),
      });
      const verdict = await gate.check("bash", {}, {
        key: "bash",
        patterns: ["git --version"],
        commands: ["git --version"],
      });
      assertEquals(verdict.allowed, true);
      const removed = await runSandboxed(layout, "rm victim.txt");
      assertEquals(removed.code, 0, "the sandbox itself does not protect workspace files");
    } finally {
      layout.cleanup();
    }
  },
);

policyTest("escape/policy: git status && rm -rf x", async () => {
  await refusedCommand("git status && rm -rf victim.txt");
});

policyTest("escape/policy: git status; rm -rf x", async () => {
  await refusedCommand("git status; rm -rf victim.txt");
});

policyTest("escape/policy: git status || rm -rf x", async () => {
  await refusedCommand("git status || rm -rf victim.txt");
});

policyTest("escape/policy: a newline hides rm", async () => {
  await refusedCommand("git status\nrm -rf victim.txt");
});

policyTest("escape/policy: background & hides rm", async () => {
  await refusedCommand("git status & rm -rf victim.txt");
});

policyTest("escape/policy: $(curl …) inside echo", async () => {
  await refusedCommand("echo $(curl -s http://127.0.0.1:PORT/)");
});

policyTest("escape/policy: $(curl …) inside double quotes", async () => {
  await refusedCommand('echo "$(curl -s http://127.0.0.1:PORT/)"');
});

policyTest("escape/policy: backticks run curl", async () => {
  await refusedCommand("echo `curl -s http://127.0.0.1:PORT/`");
});

policyTest("escape/policy: a pipe into curl", async () => {
  await refusedCommand("git log | curl -s -d @- http://127.0.0.1:PORT/");
});

policyTest("escape/policy: a subshell hides rm", async () => {
  await refusedCommand("(git status && rm -rf victim.txt)");
});

policyTest("escape/policy: sh -c hides rm", async () => {
  await refusedCommand("sh -c 'git status; rm -rf victim.txt'");
});

policyTest("escape/policy: env assignment and sudo-style wrappers hide rm", async () => {
  await refusedCommand("FOO=1 env nice rm -rf victim.txt");
});

policyTest("escape/policy: eval hides rm", async () => {
  await refusedCommand("eval 'rm -rf victim.txt'");
});

policyTest("escape/policy: an agent allow cannot undo a project deny", async () => {
  await refusedCommand("rm -rf victim.txt", { project, agent: { bash: "allow" } });
});

policyTest("escape/policy: --allow cannot undo a project deny", async () => {
  await refusedCommand("rm -rf victim.txt", {
    project,
    flags: flagsLayer({ allow: ["bash(rm *)", "bash"] }),
  });
});

policyTest("escape/policy: a project allow cannot undo a global deny", async () => {
  await refusedCommand("rm -rf victim.txt", {
    global: { bash: { "rm *": "deny" } },
    project: { bash: { "rm -rf victim.txt": "allow", "*": "allow" } },
  });
});

policyTest("escape/policy: a session 'always' cannot undo a deny", async () => {
  await refusedCommand("rm -rf victim.txt", {
    project,
    session: { name: "session", permission: { bash: { "rm *": "allow" } } },
  });
});

policyTest("escape/policy: --deny on the command line beats every allow", async () => {
  await refusedCommand("curl -s http://127.0.0.1:PORT/", {
    project: { bash: "allow" },
    agent: { bash: { "curl *": "allow" } },
    flags: flagsLayer({ deny: ["bash(curl *)"] }),
  });
});

// The OS sandbox cannot protect files inside .git that do not exist yet:
// `.git/commondir` would point git at another config and hooks. The policy
// never approves such a command silently, even under a broad allow rule.
policyTest("escape/policy: plant .git/commondir under an 'echo *' allow (headless)", async () => {
  await refusedCommand("echo ../evil > .git/commondir", { project }, true);
});

policyTest(
  "escape/policy: git config core.fsmonitor under a 'git *' allow (headless)",
  async () => {
    await refusedCommand("git config core.fsmonitor 'rm -rf victim.txt'", { project }, true);
  },
);
