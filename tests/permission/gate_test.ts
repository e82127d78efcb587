import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import {
  type ApprovalAnswer,
  type ApprovalBroker,
  type ApprovalRequest,
  HeadlessBroker,
  YesBroker,
} from "../../src/permission/broker.ts";
import { flagsLayer } from "../../src/permission/flags.ts";
import { PermissionGate } from "../../src/permission/gate.ts";
import { buildLayers } from "../../src/permission/layers.ts";
import type { PermissionConfig } from "../../src/permission/rules.ts";
import type { Access } from "../../src/tools/tool.ts";

const workspace = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-gate-" }));
globalThis.addEventListener("unload", () => Deno.removeSync(workspace, { recursive: true }));

const bash = (command: string): Access => ({
  key: "bash",
  patterns: [command],
  commands: [command],
});
const project: PermissionConfig = { bash: { "rm *": "deny" } };

/** A broker that answers from a script and remembers what it was asked. */
class ScriptedBroker implements ApprovalBroker {
  asked: ApprovalRequest[] = [];
  constructor(private answers: ApprovalAnswer[]) {}
  ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    this.asked.push(request);
    return Promise.resolve(this.answers.shift() ?? "deny");
  }
}

Deno.test("headless: an ask is denied, the model is told why and what flag allows it", async () => {
  const broker = new HeadlessBroker();
  const gate = new PermissionGate({
    layers: buildLayers({ project }),
    workspace,
    broker,
    brokerSource: "headless",
  });
  const result = await gate.check("bash", { command: "npm test" }, bash("npm test"));
  assert(!result.allowed);
  assertEquals(result.source, "headless");
  assertEquals(result.error.code, "denied");
  assertStringIncludes(result.error.message, "headless");
  assertStringIncludes(result.error.hint ?? "", "--allow 'bash(npm test *)'");
  assertStringIncludes(result.error.hint ?? "", '{"permission":{"bash":{"npm test *":"allow"}}}');
  // A rule's deny is reported too, without suggesting a flag that cannot work.
  const denied = await gate.check("bash", { command: "rm -rf x" }, bash("rm -rf x"));
  assert(!denied.allowed);
  assertEquals(denied.source, "rule");
  assertStringIncludes(denied.error.hint ?? "", "no flag overrides it");
  assertEquals(gate.denials().map((d) => d.patterns[0]), ["npm test", "rm -rf x"]);
  assertStringIncludes(gate.denials()[1].reason, "bash(rm *) → deny [project]");
  // The broker itself only saw the ask.
  assertEquals(broker.denials().length, 1);
});

Deno.test("--yes approves asks but never a deny", async () => {
  const flags = flagsLayer({ deny: ["webfetch"] });
  const gate = new PermissionGate({
    layers: buildLayers({ project, flags }),
    workspace,
    broker: new YesBroker(),
    brokerSource: "yes",
  });
  const asked = await gate.check("bash", { command: "npm install" }, bash("npm install"));
  assertEquals([asked.allowed, asked.asked, asked.source], [true, true, "yes"]);
  const rm = await gate.check(
    "bash",
    { command: "git status && rm -rf src" },
    bash("git status && rm -rf src"),
  );
  assertEquals([rm.allowed, rm.source], [false, "rule"]);
  const web = await gate.check("webfetch", { url: "https://x.dev" }, {
    key: "webfetch",
    patterns: ["https://x.dev"],
  });
  assertEquals(web.allowed, false);
});

Deno.test("'always' stores the command prefix for the session; never a bare *", async () => {
  const broker = new ScriptedBroker(["always"]);
  const gate = new PermissionGate({ layers: buildLayers({}), workspace, broker });
  const first = await gate.check("bash", { command: "git log -n5" }, bash("git log -n5"));
  assertEquals(first.allowed, true);
  assertEquals(broker.asked[0].always, [{ key: "bash", patterns: ["git log *"] }]);
  assertEquals(gate.sessionRules.layer().permission, { bash: { "git log *": "allow" } });
  const again = await gate.check(
    "bash",
    { command: "git log --oneline" },
    bash("git log --oneline"),
  );
  assertEquals([again.allowed, again.asked], [true, false]);
  // Another command still asks (and the scripted broker now denies).
  const other = await gate.check("bash", { command: "git push" }, bash("git push"));
  assertEquals([other.allowed, other.asked, other.source], [false, true, "user"]);
});

Deno.test("'always, here' also saves the rule through the injected writer", async () => {
  const saved: [string, string[]][] = [];
  const gate = new PermissionGate({
    layers: buildLayers({}),
    workspace,
    broker: new ScriptedBroker(["always-here"]),
    saveProjectRule: (key, patterns) => Promise.resolve(saved.push([key, patterns])),
  });
  await gate.check("bash", { command: "npm run build" }, bash("npm run build"));
  assertEquals(saved, [["bash", ["npm run build *"]]]);
});

Deno.test("a session 'always' cannot lift a deny", async () => {
  const gate = new PermissionGate({
    layers: buildLayers({ project }),
    workspace,
    broker: new YesBroker(),
  });
  gate.sessionRules.add("bash", ["rm *"]);
  const result = await gate.check("bash", { command: "rm -rf x" }, bash("rm -rf x"));
  assertEquals(result.allowed, false);
});

Deno.test("the same call three times in a row asks (doom_loop)", async () => {
  const broker = new ScriptedBroker(["deny"]);
  const gate = new PermissionGate({ layers: buildLayers({}), workspace, broker });
  const file = path.join(workspace, "a.ts");
  const access: Access = { key: "read", patterns: ["a.ts"], reads: [file] };
  for (let i = 0; i < 2; i++) {
    assertEquals((await gate.check("read", { file_path: "a.ts" }, access)).allowed, true);
  }
  const third = await gate.check("read", { file_path: "a.ts" }, access);
  assertEquals(third.allowed, false);
  assertStringIncludes(broker.asked[0].decision.reason, "three times in a row");
  // A different input breaks the run.
  assertEquals((await gate.check("read", { file_path: "b.ts" }, access)).allowed, true);
});

Deno.test("calls no model chose are not counted by the repeated-call guard; a model's still are", async () => {
  const broker = new ScriptedBroker(["deny"]);
  const gate = new PermissionGate({ layers: buildLayers({}), workspace, broker });
  const file = path.join(workspace, "a.ts");
  const access: Access = { key: "read", patterns: ["a.ts"], reads: [file] };
  for (let i = 0; i < 10; i++) {
    const result = await gate.check("read", { file_path: "a.ts" }, access, undefined, {
      notByModel: true,
    });
    assertEquals(result.allowed, true, `client call ${i + 1}`);
  }
  assertEquals(broker.asked, []);
  // Control: the same three from a model are a loop.
  for (let i = 0; i < 2; i++) {
    assertEquals((await gate.check("read", { file_path: "a.ts" }, access)).allowed, true);
  }
  assertEquals((await gate.check("read", { file_path: "a.ts" }, access)).allowed, false);
});

Deno.test("'always' outside the workspace: the file's folder, a searched folder, never /*", async () => {
  const broker = new ScriptedBroker(["always", "always", "always"]);
  const gate = new PermissionGate({ layers: buildLayers({}), workspace, broker });
  await gate.check("read", {}, {
    key: "read",
    patterns: ["/etc/hostname"],
    reads: ["/etc/hostname"],
  });
  assertEquals(broker.asked[0].always, [{ key: "external_directory", patterns: ["/etc/*"] }]);
  await gate.check("list", {}, { key: "list", patterns: ["/usr/share"], reads: ["/usr/share"] });
  assertEquals(broker.asked[1].always, [{
    key: "external_directory",
    patterns: ["/usr/share", "/usr/share/*"],
  }]);
  // A later read in /etc is now allowed without asking.
  const again = await gate.check("read", {}, {
    key: "read",
    patterns: ["/etc/hosts"],
    reads: ["/etc/hosts"],
  });
  assertEquals([again.allowed, again.asked], [true, false]);
  await gate.check("read", {}, { key: "read", patterns: ["/vmlinuz"], reads: ["/vmlinuz"] });
  const top = broker.asked[2].always[0].patterns;
  assert(!top.includes("/*"), `a top-level file must not approve the disk: ${top}`);
});

Deno.test("unattended: the same rules, nobody asked, nothing recorded; an ask runs only under --yes", async () => {
  const layers = buildLayers({ project, flags: flagsLayer({ allow: ["bash(ls *)"] }) });
  const broker = new ScriptedBroker([]);
  const gate = new PermissionGate({ layers, workspace, broker, brokerSource: "headless" });
  assertEquals((await gate.unattended(bash("ls -la"))).allowed, true);
  const asked = await gate.unattended(bash("npm test"));
  assert(!asked.allowed);
  assertEquals(asked.allow, {
    kind: "flags",
    args: ["--allow", "bash(npm test *)"],
    config: '{"permission":{"bash":{"npm test *":"allow"}}}',
  });
  const denied = await gate.unattended(bash("rm -rf x"));
  assert(!denied.allowed);
  assertEquals(denied.allow.kind, "blocked");
  assertEquals(broker.asked.length, 0, "nobody was asked");
  assertEquals(gate.denials(), [], "no denial was recorded");
  const yes = new PermissionGate({
    layers,
    workspace,
    broker: new YesBroker(),
    brokerSource: "yes",
  });
  assertEquals((await yes.unattended(bash("npm test"))).allowed, true, "--yes approves an ask");
  assertEquals((await yes.unattended(bash("rm -rf x"))).allowed, false, "but never a deny");
  const byRule = await yes.unattended(bash("npm test"), { byRule: true });
  assert(!byRule.allowed, "by rule only: --yes does not count");
  assertEquals(byRule.allow.kind, "flags", "an --allow would still do");
});

Deno.test("a local URL: only a rule naming its host and port allows it; --yes is refused, a person is asked", async () => {
  const url = "http://127.0.0.1:8080/admin";
  const local: Access = {
    key: "webfetch",
    patterns: [url],
    always: ["http://127.0.0.1:8080/*"],
    local: "127.0.0.1 is a loopback address",
  };
  const gateWith = (permission: PermissionConfig, broker: ApprovalBroker, source: "user" | "yes") =>
    new PermissionGate({
      layers: buildLayers({ global: permission }),
      workspace,
      broker,
      brokerSource: source,
    });
  // Rules that do not name the host and port: a bare key, a host wildcard, a port wildcard.
  for (const rule of ["*", "http://127.0.0.*:8080/*", "http://127.0.0.1:*/*"]) {
    const result = await gateWith({ webfetch: { [rule]: "allow" } }, new YesBroker(), "yes")
      .check("webfetch", {}, local);
    assert(!result.allowed, `${rule} opened a local address under --yes`);
    assertStringIncludes(result.error.message, "only a rule naming its host and port allows");
    assertStringIncludes(result.error.hint ?? "", "--allow 'webfetch(http://127.0.0.1:8080/*)'");
  }
  for (const rule of ["http://127.0.0.1:8080/*", "127.0.0.1:8080"]) {
    const named = await gateWith({ webfetch: { [rule]: "allow" } }, new YesBroker(), "yes")
      .check("webfetch", {}, local);
    assert(named.allowed, `${rule} names the host and port`);
  }
  // The same URL without the local mark is allowed by `*`, as before.
  const plain = await gateWith({ webfetch: "allow" }, new YesBroker(), "yes")
    .check("webfetch", {}, { ...local, local: undefined });
  assert(plain.allowed);
  // A person is asked, and a deny rule still wins over a naming allow.
  const person = new ScriptedBroker(["once"]);
  assert((await gateWith({}, person, "user").check("webfetch", {}, local)).allowed);
  assertEquals(person.asked.length, 1);
  const denied = await gateWith(
    { webfetch: { "http://127.0.0.1:8080/*": "allow", "127.0.0.1:*": "deny" } },
    new YesBroker(),
    "yes",
  ).check("webfetch", {}, local);
  assert(!denied.allowed);
});

Deno.test("owns: a write outside the owned paths is refused by the same judge, with no one asked", async () => {
  const owned = path.join(workspace, "mine");
  const write = (file: string): Access => ({
    key: "edit",
    patterns: [file],
    writes: [path.join(workspace, file)],
  });
  const broker = new ScriptedBroker(["once", "once"]);
  const gate = new PermissionGate({
    layers: buildLayers({ global: { edit: "allow", bash: "allow" } }),
    workspace,
    broker,
    owns: { paths: [owned], commandsConfined: false },
  });
  assert((await gate.check("edit", {}, write("mine/a.ts"))).allowed);
  const outside = await gate.check("edit", {}, write("theirs/b.ts"));
  assert(!outside.allowed);
  assertStringIncludes(outside.error.message, "may only write");
  // Without bubblewrap a command could write anywhere: none runs.
  const command = await gate.check("bash", {}, bash("ls"));
  assert(!command.allowed);
  assertStringIncludes(command.error.message, "may not run commands");
  assertEquals(broker.asked.length, 0, "no answer lifts the owns narrowing");
  assertEquals(gate.denials().map((denial) => denial.key), ["edit", "bash"]);
  const unattended = await gate.unattended(write("theirs/b.ts"));
  assert(!unattended.allowed);
  assertEquals(unattended.allow.kind, "blocked");
});

Deno.test("no OS sandbox: a command the rules allow is a person's question, asked through the broker", async () => {
  let approved = false;
  const unsandboxed = {
    refusal: () =>
      approved ? undefined : { message: "install bubblewrap", warning: "No sandbox is available." },
    approve: () => {
      approved = true;
    },
  };
  const layers = buildLayers({ global: { bash: "allow" } });
  const person = new ScriptedBroker(["once"]);
  const decided: string[] = [];
  const gate = new PermissionGate({ layers, workspace, broker: person, unsandboxed });
  const first = await gate.check("bash", {}, bash("ls"), "c1", {
    decided: (decision, source) => decided.push(`${decision}/${source}`),
  });
  assert(first.allowed);
  assertEquals(person.asked.length, 1);
  assertStringIncludes(person.asked[0].access.preview ?? "", "No sandbox is available.");
  assertEquals(decided, ["allow/user"]);
  assert(approved, "one yes holds for the session");
  assert((await gate.check("bash", {}, bash("pwd"))).allowed);
  assertEquals(person.asked.length, 1, "asked once");

  // --yes does not stand in for the person, and a headless run has nobody to ask.
  for (
    const [broker, brokerSource] of [[new YesBroker(), "yes"], [
      new HeadlessBroker(),
      "headless",
    ]] as const
  ) {
    approved = false;
    const refusing = new PermissionGate({ layers, workspace, broker, brokerSource, unsandboxed });
    const refused = await refusing.check("bash", {}, bash("ls"));
    assert(!refused.allowed, `${brokerSource} ran a command unsandboxed`);
    assertStringIncludes(refused.error.message, "install bubblewrap");
    assertEquals(refusing.denials()[0].allow_with, ["--sandbox", "full-access"]);
    const unattended = await refusing.unattended(bash("ls"));
    assert(!unattended.allowed);
    assertEquals(unattended.allow, { kind: "flags", args: ["--sandbox", "full-access"] });
    assertEquals(approved, false);
  }
});

Deno.test("typed by the person: an ask runs unasked; a deny, a follow-up and the unsandboxed question still hold", async () => {
  const person = new ScriptedBroker(["deny", "deny"]);
  let approved = false;
  const gate = new PermissionGate({
    layers: buildLayers({ project }),
    workspace,
    broker: person,
    unsandboxed: {
      refusal: () => approved ? undefined : { message: "no sandbox", warning: "unsandboxed" },
      approve: () => approved = true,
    },
  });
  const decided: string[] = [];
  const typed = {
    typedByPerson: true,
    decided: (d: string, s: string) => decided.push(`${d}/${s}`),
  };
  // Only the unsandboxed question is put: the person's "deny" there refuses it.
  const unsandboxed = await gate.check(
    "bash",
    { command: "npm test" },
    bash("npm test"),
    "c1",
    typed,
  );
  assert(!unsandboxed.allowed);
  assertEquals(person.asked.map((r) => r.decision.reason), [
    "no sandbox available: run unsandboxed?",
  ]);
  approved = true;
  const ran = await gate.check("bash", { command: "npm test" }, bash("npm test"), "c2", typed);
  assert(ran.allowed);
  assertEquals([ran.asked, ran.source], [false, "user"]);
  assertEquals(person.asked.length, 1, "the rules' question was put for the person's own command");
  const denied = await gate.check("bash", { command: "rm -rf x" }, bash("rm -rf x"), "c3", typed);
  assert(!denied.allowed && denied.source === "rule", "a deny rule gave way to a typed command");
  // More access asked for while it runs is not what the person typed: asked.
  await gate.check("bash", {}, bash("npm test"), "c2", { ...typed, followUp: true });
  assertEquals(person.asked.length, 2);
  // Control: the same call not typed by the person is asked.
  await gate.check("bash", { command: "npm test" }, bash("npm test"), "c4");
  assertEquals(person.asked.length, 3);
  assertEquals(decided.slice(0, 4), ["allow/user", "deny/user", "allow/user", "deny/rule"]);
});
