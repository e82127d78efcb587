import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { evaluate } from "../../../src/permission/evaluate.ts";
import { buildLayers } from "../../../src/permission/layers.ts";
import { ensureShellParser } from "../../../src/permission/shell/shell_parser.ts";
import {
  analyzeCommand,
  commandsToCheck,
  shellWords,
  splitCommand,
} from "../../../src/permission/shell/bash_split.ts";

// The rule table reads commands with the shell parser: load it once for this file.
await ensureShellParser();

Deno.test("splitCommand: separators, substitutions and quotes", () => {
  const table: [string, string[]][] = [
    ["git status && rm -rf x", ["git status", "rm -rf x"]],
    ["a || b; c | d & e", ["a", "b", "c", "d", "e"]],
    ["a\nb", ["a", "b"]],
    ["echo $(curl http://x)", ["echo $(curl http://x)", "curl http://x"]],
    ["echo `whoami`", ["echo `whoami`", "whoami"]],
    ["echo \"a && b\" 'c; d'", ["echo \"a && b\" 'c; d'"]],
    ['echo "$(rm -rf y)"', ['echo "$(rm -rf y)"', "rm -rf y"]],
    ["echo '$(rm -rf y)'", ["echo '$(rm -rf y)'"]],
    ["(cd x && rm y)", ["cd x", "rm y"]],
    ["{ rm a; }", ["rm a"]],
    ["ls 2>&1 | tee out", ["ls 2>&1", "tee out"]],
    ["cmd &> log", ["cmd &> log"]],
    ["echo $((1 + 2))", ["echo $((1 + 2))"]],
    ["diff <(ls a) <(ls b)", ["diff <(ls a) <(ls b)", "ls a", "ls b"]],
    ["if true; then rm x; fi", ["true", "rm x"]],
    ["ls # ; rm -rf y", ["ls"]],
    ["echo a\\;b", ["echo a\\;b"]],
    ["echo $(echo $(id))", ["echo $(echo $(id))", "echo $(id)", "id"]],
  ];
  for (const [command, expected] of table) assertEquals(splitCommand(command), expected, command);
});

Deno.test("commandsToCheck peels wrappers and nested shells", () => {
  assertEquals(commandsToCheck("FOO=1 sudo -n rm -rf x"), ["FOO=1 sudo -n rm -rf x", "rm -rf x"]);
  assertEquals(commandsToCheck("bash -c 'git status; rm -rf z'"), [
    "bash -c 'git status; rm -rf z'",
    "git status",
    "rm -rf z",
  ]);
  assertEquals(commandsToCheck("timeout 5 curl x"), ["timeout 5 curl x", "curl x"]);
  assertEquals(commandsToCheck("eval 'rm -rf q'"), ["eval 'rm -rf q'", "rm -rf q"]);
});

Deno.test("shellWords removes quotes and keeps escaped spaces", () => {
  assertEquals(shellWords(`git commit -m "a b" 'c d' e\\ f`), [
    "git",
    "commit",
    "-m",
    "a b",
    "c d",
    "e f",
  ]);
});

Deno.test("analyzeCommand finds commands a hand-written splitter missed", () => {
  const table: [string, string][] = [
    ["git status $(( $(touch m1) ))", "touch m1"],
    ["git status <<fi\n#$(touch m2)\nfi", "touch m2"],
    ["git status <<done\n#$(touch m3)\ndone", "touch m3"],
    ["git status <<}\n#`touch m4`\n}", "touch m4"],
    ["git status <<EOF\n#$(touch m5)", "touch m5"],
    ['git status $(#) "\ntouch m6\n# "\n)', "touch m6"],
    ["git status $( # )\ntouch m7 )", "touch m7"],
    ["echo ${x:-$(touch m8)}", "touch m8"],
    ["cat <<EOF | sh\nrm x\nEOF", "sh"],
    ["[[ -f $(touch m9) ]]", "touch m9"],
    ["case $(touch m10) in x) ;; esac", "touch m10"],
    ["cat <<<$(touch m11)", "touch m11"],
    ["cat <<EOF\n`touch m12` $(( $(touch m13) ))\nEOF", "touch m12"],
    ["cat <<EOF\n`touch m12` $(( $(touch m13) ))\nEOF", "touch m13"],
  ];
  for (const [command, hidden] of table) {
    const { commands } = analyzeCommand(command);
    assert(commands.includes(hidden), `${JSON.stringify(command)} → ${JSON.stringify(commands)}`);
  }
  // The redirect after a here-document's start stays with its command (protected paths).
  assert(
    analyzeCommand("cat <<EOF > .git/hooks/x\na\nEOF").commands.includes(
      "cat <<EOF > .git/hooks/x",
    ),
  );
  assert(analyzeCommand("echo `echo \\`touch a\\``").commands.includes("touch a"));
  // A quoted here-document delimiter means the body is text, not commands.
  assertEquals(analyzeCommand("cat <<'EOF'\n$(rm x)\nEOF"), {
    commands: ["cat <<'EOF'"],
    unsure: [],
  });
});

Deno.test("analyzeCommand fails closed on what it cannot account for", () => {
  const unsure = [
    "git status <<EOF\nrm x",
    "cat <<EOF\n`touch x`\nEOF",
    "git status <<-EOF\n\t$(touch x)\n\tEOF",
    "cat <<EOF\nEOFX\ntouch a\nEOF",
    'cat <<"E"OF\nx\nEOF\ntouch a',
    "echo `echo \\`touch a\\``",
    "cat <<EOF\n#`touch x\nEOF",
    "echo 'never closed",
    "echo $(",
    "f() { git status; }; f",
    "$CMD args",
    '"$(which rm)" -rf x',
    "sudo $X",
    "alias ls='rm -rf .'",
    "coproc cat",
    "trap 'rm -rf x' EXIT",
    "let x=y",
    'eval "$X"',
    'sh -c "$X"',
    "git status 'a[$(rm x)]'; echo $(( _ ))",
    "(( x + 1 ))",
    "[[ $_ -eq 1 ]]",
    "echo ${a[_]}",
    "echo ${x:_}",
    "echo ${!name}",
    "echo ${x@P}",
    "for ((i = 0; i < n; i++)); do :; done",
  ];
  for (const command of unsure) {
    assert(analyzeCommand(command).unsure.length > 0, `not flagged: ${JSON.stringify(command)}`);
  }
  const plain = [
    "git status",
    "npm test -- --watch",
    "echo $((1 + 2))",
    'for f in *.ts; do echo "$f"; done',
    "[ -f x ] && echo y",
    "echo ${#arr[@]} ${HOME:-/root} ${x%.ts}",
    "FOO=1 npm test",
    "ls | grep -v x > out 2>&1",
    "cat <<'EOF' > notes.md\n$(not run)\nEOF",
    'git commit -m "fix: it\'s done"',
  ];
  for (const command of plain) {
    assertEquals(analyzeCommand(command).unsure, [], command);
  }
});

Deno.test("analyzeCommand unwraps option values, find -exec, watch, env -S and escaped names", () => {
  const table: [string, string][] = [
    ["sudo -u root rm -rf x", "rm -rf x"],
    ["find . -name '*.o' -exec rm {} ;", "rm {}"],
    ["\\rm -rf x", "rm -rf x"],
    ['r"m" -rf x', "rm -rf x"],
    ["watch -n 1 'ls; rm x'", "rm x"],
    ["env -S 'rm -rf x'", "rm -rf x"],
    ["xargs -I{} sh -c 'rm {}'", "rm {}"],
    ["nice -n 5 timeout 3 env A=1 curl x", "curl x"],
  ];
  for (const [command, inner] of table) {
    const { commands } = analyzeCommand(command);
    assert(commands.includes(inner), `${command} → ${JSON.stringify(commands)}`);
  }
});

Deno.test("without the parser every command is asked about", async () => {
  // A fresh process: the parser is loaded in this one.
  const script = `import { analyzeCommand } from ${
    JSON.stringify(new URL("../../../src/permission/shell/bash_split.ts", import.meta.url).href)
  }; console.log(JSON.stringify(analyzeCommand("git status")));`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(JSON.parse(new TextDecoder().decode(output.stdout)), {
    commands: ["git status"],
    unsure: ["the shell parser is not loaded yet"],
  });
});

Deno.test("the rule table asks about what the parser cannot account for; a deny still wins", () => {
  const workspace = Deno.cwd();
  const decide = (command: string, rules: Record<string, "allow" | "deny">) =>
    evaluate(
      { key: "bash", patterns: [command], commands: [command] },
      { layers: buildLayers({ project: { bash: rules } }), workspace, mode: "full-access" },
    );
  const function_ = decide("f() { ls; }; f", { "*": "allow", "rm *": "deny" });
  assertEquals(function_.action, "ask");
  assertStringIncludes(function_.reason, "defines a shell function");
  const open = decide("git status <<EOF\n#$(git status)", { "git status*": "allow" });
  assertEquals(open.action, "ask");
  assertStringIncludes(open.reason, "here-document is never closed");
  assertEquals(decide("f() { rm -rf x; }", { "*": "allow", "rm *": "deny" }).action, "deny");
  assertEquals(
    decide("git status && git status --short", { "git status*": "allow" }).action,
    "allow",
  );
});

Deno.test("bash(*) with no narrower ask or deny allows what the parser is unsure of", () => {
  const workspace = Deno.cwd();
  const decide = (command: string, rules: Record<string, "allow" | "ask" | "deny">) =>
    evaluate(
      { key: "bash", patterns: [command], commands: [command] },
      { layers: buildLayers({ global: { bash: rules } }), workspace, mode: "full-access" },
    );
  const loop = "i=0; while [ $i -lt 3 ]; do i=$((i+1)); done";
  // Every command is allowed: there is no rule a hidden command could slip past.
  assertEquals(decide(loop, { "*": "allow" }).action, "allow");
  assertEquals(decide("f() { ls; }; f", { "*": "allow" }).action, "allow");
  // A narrower deny or ask is what a hidden command could slip past: still asked.
  const withDeny = decide(`x='a[$(rm -rf y)]'; echo $((x))`, { "*": "allow", "rm *": "deny" });
  assertEquals(withDeny.action, "ask");
  const hidden = decide("i=$((i+1))", { "*": "allow", "curl *": "ask" });
  assertEquals(hidden.action, "ask");
  assertStringIncludes(hidden.reason, "arithmetic");
  // A rule narrower than every command never covers what it cannot see.
  assertEquals(decide("git status $((i))", { "git status*": "allow" }).action, "ask");
});

/** Every operator of `${ }` whose operand or pattern bash expands. */
const EXPANSION_OPERATORS = [
  ":-",
  "-",
  ":=",
  "=",
  ":?",
  "?",
  ":+",
  "+",
  "#",
  "##",
  "%",
  "%%",
  "/",
  "//",
  "/#",
  "/%",
  "^",
  "^^",
  ",",
  ",,",
];

Deno.test("analyzeCommand reads the commands in every ${ } operand and pattern", () => {
  for (const operator of EXPANSION_OPERATORS) {
    for (
      const [open, close] of [["$(", ")"], ["`", "`"], ["<(", ")"]]
    ) {
      for (const quote of ["", '"']) {
        const line = `git status ${quote}\${HOME${operator}${open}touch m${close}}${quote}`;
        const { commands } = analyzeCommand(line);
        assert(commands.includes("touch m"), `${line} → ${JSON.stringify(commands)}`);
      }
    }
  }
  // Nested, and after other text in the operand.
  for (
    const line of [
      "git status ${x:-${y:-`touch m`}}",
      "git status ${x/#`touch m`/b}",
      `git status "\${x:-\\"$(touch m)\\"}"`,
      "git status ${x:-#$(touch m)}",
    ]
  ) {
    assert(analyzeCommand(line).commands.includes("touch m"), line);
  }
});

Deno.test("analyzeCommand asks about a command it finds only as text", () => {
  // Inside double quotes the single quotes of an operand are characters: bash runs the command.
  const unsure = [
    `git status "\${x:-'$(touch m)'}"`,
    `git status "\${x:-'\`touch m\`'}"`,
    "git status ${HOME#\\*$(touch m)}",
    "git status ${HOME^^\\x`touch m`}",
  ];
  for (const line of unsure) {
    const { unsure: reasons } = analyzeCommand(line);
    assert(reasons.some((reason) => reason.includes("reads as text")), `${line} → ${reasons}`);
  }
  // tree-sitter does not parse this one: asked too.
  assert(analyzeCommand("git status ${x:-a`touch m`b}").unsure.length > 0);
  // Quoted text outside ${ } stays text.
  for (const line of ["git status '$(touch m)'", "echo $'`x`' '<(y)'", "grep -F '${x:-$(' a"]) {
    assertEquals(analyzeCommand(line).unsure, [], line);
  }
});

Deno.test("analyzeCommand reads carriage returns, vertical tabs and form feeds as bash does", () => {
  // bash: backslash-CR escapes the CR, and LF ends the command. tree-sitter alone
  // read backslash-CR-LF as a line continuation, making sh an argument of git.
  const continued = analyzeCommand("git status \\\r\nsh -c 'touch m'");
  assertEquals(continued.commands, ["git status \\\r", "sh -c 'touch m'", "touch m"]);
  // bash: CR, VT and FF are word characters, so `#` after one starts no comment.
  for (const blank of ["\r", "\v", "\f"]) {
    const { commands } = analyzeCommand(`echo a${blank}#$(touch m)`);
    assert(commands.includes("touch m"), JSON.stringify(commands));
  }
  // A word keeps its character: the rule table sees what bash runs.
  assertEquals(analyzeCommand("git status\r\n"), { commands: ["git status\r"], unsure: [] });
  assertEquals(analyzeCommand("echo 'a\rb'").commands, ["echo 'a\rb'"]);
});

Deno.test("under a narrow rule every hidden command is asked about", () => {
  const workspace = Deno.cwd();
  const lines = [
    "git status ${x:-`touch m`}",
    'git status "${HOME#$(touch m)}"',
    'git status "${HOME##$(touch m)}"',
    'git status "${HOME%$(touch m)}"',
    'git status "${HOME%%$(touch m)}"',
    'git status "${HOME,,$(touch m)}"',
    "git status ${HOME^^`touch m`}",
    "git status \\\r\nsh -c 'touch m'",
    "git status a\r#$(touch m)",
    `git status "\${x:-'$(touch m)'}"`,
  ];
  for (const rule of ["git status*", "git status *"]) {
    const layers = buildLayers({ project: { bash: { [rule]: "allow" } } });
    for (const line of lines) {
      const decision = evaluate(
        { key: "bash", patterns: [line], commands: [line] },
        { layers, workspace, mode: "full-access" },
      );
      assertEquals(decision.action, "ask", `${rule}: ${JSON.stringify(line)}`);
    }
  }
});

Deno.test("what the parser cannot see is denied where a command no rule allows is denied", () => {
  const workspace = Deno.cwd();
  // The plan agent's shape: everything denied but commands that only look.
  const layers = buildLayers({ agent: { bash: { "*": "deny", "cat *": "allow" } } });
  const decide = (line: string) =>
    evaluate({ key: "bash", patterns: [line], commands: [line] }, { layers, workspace });
  const hidden = decide("cat \"${HOME#$(echo x'')}\"");
  // A deny, not an ask: `--yes` approves asks, and must not run what the parser cannot see.
  assertEquals(hidden.action, "deny");
  assertStringIncludes(hidden.reason, "cannot tell everything");
  assertEquals(decide("cat a.txt").action, "allow");
  // Where an unknown command is asked, so is the line.
  const narrow = buildLayers({
    flags: { name: "flags", permission: { bash: { "cat *": "allow" } } },
  });
  assertEquals(
    evaluate({ key: "bash", patterns: ["cat $(( x ))"], commands: ["cat $(( x ))"] }, {
      layers: narrow,
      workspace,
    }).action,
    "ask",
  );
});

Deno.test("analyzeCommand asks where the fuzzer found tree-sitter-bash and bash apart", () => {
  // Each ran h1 in bash while the parser reported only the first command
  // (tests/permission/shell_fuzz_test.ts, `deno task fuzz`).
  const apart = [
    "git status a\n\\h1", // a line break read inside a word
    "echo ] }#$(h1); h2", // a comment read inside a word
    "echo >& '$(h1)'", // bash expands the target of >& twice, quotes or not
    "echo 1>&'`h1`'",
    "cat x >& 'a >(h1)'",
    "npm test x >& %$'#`sh -c h1`'",
    "echo ${?%${arr[z * $x]}}", // arithmetic on z, in text the tree does not parse
    'echo "${z%%\\\f${arr[y+1 == z]}}"',
    "echo ${y@Q}\\\n# $(h1) || h2", // a comment read after a line continuation, inside a word
    "echo a\n\\  #", // an escaped space alone: bash runs a command named " "
    "git status x == ; npm test", // `== ; npm test` read as one pattern
    "echo a\r\n\\\n\\  | h1",
    // Builtins that take a variable's name evaluate its subscript, whatever the quotes.
    "printf -v 'a[$(h1)]' x",
    "test -v 'a[$(h1)]'",
    "[ -v 'a[$(h1)]' ]",
    "read -r 'a[`h1`]' <<< x",
  ];
  for (const line of apart) {
    assert(analyzeCommand(line).unsure.length > 0, `not flagged: ${JSON.stringify(line)}`);
  }
  // An escaped blank is a word character, as in bash: no comment starts after it.
  const escaped = analyzeCommand("test b1 = \\ #$(h1) ] & h2").commands;
  assert(escaped.includes("h1") && escaped.includes("h2"), JSON.stringify(escaped));
  // A command named by a Unicode space is still a command (bash runs it).
  assertEquals(analyzeCommand("echo a\n\u00a0").commands, ["echo a", "\u00a0"]);
  const plain = [
    "echo a 2>&1",
    "echo x >&2",
    "echo a #c",
    "echo a;#c",
    "echo a \\\n# c",
    "echo a \\\\ #c",
    "cd my\\ dir && ls",
    'git commit -m "a\\ b"',
    "cat x 2>&-",
    "read -r line",
    "printf '%s[%d]' a 1",
    "[ -f x ]",
  ];
  for (const line of plain) {
    assertEquals(analyzeCommand(line).unsure, [], line);
  }
});
