import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import {
  gitConfigView,
  gitCredentialFiles,
  holdsGitCredential,
  isCredentialBearingGitFile,
  redactGitConfig,
} from "../../src/sandbox/git_credentials.ts";
import { redactSecrets } from "../../src/contracts/redact.ts";

const TOKEN = "ghs_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

const PLAIN = `[core]\n\trepositoryformatversion = 0\n\tbare = false\n` +
  `[remote "origin"]\n\turl = https://github.com/o/r.git\n`;

Deno.test("git config: the checkout's extraheader, a URL's token and credential entries are found and taken out", () => {
  assert(!holdsGitCredential(PLAIN));
  const extraheader = `${PLAIN}[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${
    btoa(`x-access-token:${TOKEN}`)
  }\n`;
  const inUrl = `[remote "origin"]\n\turl = https://x-access-token:${TOKEN}@github.com/o/r.git\n`;
  const inHeader =
    `[url "https://oauth2:${TOKEN}@gitlab.com/"]\n\tinsteadOf = https://gitlab.com/\n`;
  const helper = `[credential]\n\thelper = "!f() { echo password=hunter2; }; f"\n`;
  for (const text of [extraheader, inUrl, inHeader, helper]) {
    assert(holdsGitCredential(text), text);
    const view = redactGitConfig(text);
    assert(!view.includes(TOKEN) && !view.includes("hunter2") && !view.includes("basic eC"), view);
    assert(!holdsGitCredential(view) || view.includes("***"), view);
  }
  assertEquals(redactGitConfig(PLAIN), PLAIN);
  assertStringIncludes(redactGitConfig(inUrl), "https://x-access-token:***@github.com/o/r.git");
});

Deno.test("git config: files of the enclosing repository and what they include are found; a view keeps the rest", () => {
  const root = Deno.makeTempDirSync();
  try {
    const git = path.join(root, ".git");
    Deno.mkdirSync(path.join(git, "modules", "sub"), { recursive: true });
    Deno.writeTextFileSync(path.join(git, "modules", "sub", "HEAD"), "ref: refs/heads/main\n");
    Deno.writeTextFileSync(
      path.join(git, "modules", "sub", "config"),
      `url = https://u:${TOKEN}@h/x\n`,
    );
    const included = path.join(root, "outside-credentials.config");
    Deno.writeTextFileSync(included, `[http]\n\textraheader = AUTHORIZATION: basic abc\n`);
    const store = path.join(root, "passwords");
    Deno.writeTextFileSync(store, "https://u:p@h\n");
    Deno.writeTextFileSync(
      path.join(git, "config"),
      `${PLAIN}[includeIf "gitdir:${git}"]\n\tpath = ${included}\n` +
        `[credential]\n\thelper = store --file ../passwords\n`,
    );
    Deno.mkdirSync(path.join(root, "src"));
    const found = gitCredentialFiles(path.join(root, "src"), root).sort();
    assertEquals(
      found,
      [path.join(git, "config"), path.join(git, "modules", "sub", "config"), included, store]
        .sort(),
    );
    assert(isCredentialBearingGitFile(path.join(git, "config")));
    assert(isCredentialBearingGitFile(path.join(git, "modules", "sub", "config")));
    const view = gitConfigView(path.join(git, "modules", "sub", "config"), root);
    assert(view, "a view was written");
    assertEquals(Deno.readTextFileSync(view), "url = https://u:***@h/x\n");
    assertEquals((Deno.statSync(path.dirname(view)).mode ?? 0) & 0o777, 0o700);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("redact: token shapes go, the rest of the text stays", () => {
  assertEquals(
    redactSecrets("no secrets at https://github.com/o/r"),
    "no secrets at https://github.com/o/r",
  );
  assertEquals(redactSecrets(`token ${TOKEN}.`), "token ghs_***.");
  assertEquals(redactSecrets(JSON.stringify(`a\n${TOKEN}`)), JSON.stringify("a\nghs_***"));
  assertEquals(
    redactSecrets(
      "github_pat_11AAAAAAA0aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbb and glpat-abcdefghijklmnopqrst",
    ),
    "github_pat_*** and glpat-***",
  );
  assertEquals(redactSecrets("Authorization: Bearer abc.def"), "Authorization: Bearer ***");
  assertEquals(redactSecrets("x-access-token:zzz@github.com"), "x-access-token:***@github.com");
});

Deno.test("redact: time grows with the line, not its square (a 400 KB event line of URL-like text)", () => {
  for (const filler of ["a.b-", "https://", "x-access-token:", "a:", "authorization: basic "]) {
    const line = JSON.stringify({ output: filler.repeat(400_000 / filler.length) });
    const started = performance.now();
    redactSecrets(line);
    const took = performance.now() - started;
    // Linear is a few ms here; the quadratic scheme pattern took minutes.
    assert(took < 2_000, `${JSON.stringify(filler)}: ${took.toFixed(0)} ms`);
  }
});
