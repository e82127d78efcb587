/**
 * End-to-end escape attempts through webfetch: an allowed host that
 * redirects to another local service, and URLs built so that a host rule
 * would match their text but not their host (a query, userinfo, a longer
 * host name). Each runs `skiff run --json` as a real process with the
 * scripted mock as the attacker; a local server on 127.0.0.1 holds the
 * secret and counts who asked for it.
 */
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { everythingSent, lastToolResults, runEvents, withAttack } from "./e2e_support.ts";
import { hasTmux, inTmux } from "./_tmux.ts";

const WEB_SECRET = "web-secret-5e8d21";

interface LocalSite {
  base: string;
  port: number;
  /** Paths requested so far, in order. */
  hits: string[];
  close(): Promise<void>;
}

/** A server on 127.0.0.1: `/secret` answers the secret, `/to?url=…` redirects there. */
function localSite(): LocalSite {
  const hits: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const url = new URL(request.url);
    hits.push(url.pathname + url.search);
    if (url.pathname === "/to") {
      return new Response(null, {
        status: 302,
        headers: { location: url.searchParams.get("url")! },
      });
    }
    if (url.pathname === "/secret") return new Response(WEB_SECRET);
    return new Response("a harmless page");
  });
  const port = server.addr.port;
  return { base: `http://127.0.0.1:${port}`, port, hits, close: () => server.shutdown() };
}

const fetchCall = (url: string) => ({ name: "webfetch", arguments: { url, format: "text" } });

/** The first `--allow '…'` the model was told would allow the call, unquoted as a shell would. */
function printedAllowFlag(content: string): string {
  const match = /--allow '((?:[^']|'\\'')*)'/.exec(content);
  assert(match, `no --allow flag in: ${content}`);
  return match[1].replaceAll(`'\\''`, "'");
}

Deno.test("e2e: an allowed host redirecting to another local port is judged again, and refused headless", async () => {
  const allowed = localSite();
  const target = localSite();
  const secretUrl = `${target.base}/secret`;
  const script = () => [
    { toolCalls: [fetchCall(`${allowed.base}/to?url=${encodeURIComponent(secretUrl)}`)] },
    { text: "done" },
  ];
  try {
    let hint = "";
    await withAttack(script(), async (sandbox, mock) => {
      const allowFirst = `webfetch(${allowed.base}/*)`;
      const result = await runSkiff(["run", "--json", "--allow", allowFirst, "fetch"], sandbox);
      assertEquals(result.code, 3, `a refused call exits 3\n${result.stderr}`);
      assertEquals(target.hits, [], "the redirect target was reached");
      assert(!everythingSent(mock).includes(WEB_SECRET), "the secret reached the model");
      const [message] = lastToolResults(mock);
      assertStringIncludes(message.content, "denied");
      assertStringIncludes(message.content, `redirected to ${secretUrl}`);
      hint = printedAllowFlag(message.content);
      const { denials } = runEvents(result.stdout);
      assertEquals(denials.map((denial) => denial.patterns), [[secretUrl]]);
    });
    // Control: the rule the model was told about, passed exactly as printed, lets it through.
    await withAttack(script(), async (sandbox, mock) => {
      const result = await runSkiff(
        ["run", "--json", "--allow", `webfetch(${allowed.base}/*)`, "--allow", hint, "fetch"],
        sandbox,
      );
      assertEquals(result.code, 0, result.stderr);
      assertEquals(target.hits, ["/secret"]);
      assertStringIncludes(lastToolResults(mock)[0].content, WEB_SECRET);
    });
  } finally {
    await allowed.close();
    await target.close();
  }
});

Deno.test("e2e: --yes approves each redirect hop as its own ask, and a deny rule still stops it", async () => {
  const allowed = localSite();
  const target = localSite();
  const secretUrl = `${target.base}/secret`;
  try {
    await withAttack([
      { toolCalls: [fetchCall(`${allowed.base}/to?url=${encodeURIComponent(secretUrl)}`)] },
      { text: "done" },
    ], async (sandbox, mock) => {
      const result = await runSkiff(
        ["run", "--json", "--yes", "--deny", `webfetch(127.0.0.1:${target.port})`, "fetch"],
        sandbox,
      );
      assertEquals(result.code, 3, result.stderr);
      assertEquals(target.hits, []);
      assertEquals(allowed.hits.length, 1);
      assertMatch(lastToolResults(mock)[0].content, /deny rule always wins/);
      assert(!everythingSent(mock).includes(WEB_SECRET));
    });
  } finally {
    await allowed.close();
    await target.close();
  }
});

Deno.test({
  name:
    "e2e: at a terminal the redirect is its own question, showing where it leads; denied, nothing is fetched",
  ignore: !hasTmux,
  async fn() {
    const allowed = localSite();
    const target = localSite();
    const secretUrl = `${target.base}/secret`;
    try {
      await withAttack([
        { toolCalls: [fetchCall(`${allowed.base}/to?url=${encodeURIComponent(secretUrl)}`)] },
        { text: "done" },
      ], async (sandbox, mock) => {
        const args = ["run", "--allow", `webfetch(${allowed.base}/*)`, "fetch"];
        await inTmux(args, sandbox, async (terminal) => {
          const prompt = await terminal.shows("Allow this?");
          assertStringIncludes(prompt, "webfetch wants permission");
          assertStringIncludes(prompt, `GET ${secretUrl}`);
          assertEquals(allowed.hits.length, 1, "the first URL was allowed by its rule");
          // Up from the first choice wraps to the last, "Deny and tell the model why"; once more is "Deny".
          await terminal.keys("Up", "Up", "Enter");
          assertStringIncludes(await terminal.shows("SKIFF_EXIT="), "SKIFF_EXIT=3");
        });
        assertEquals(target.hits, []);
        assertStringIncludes(lastToolResults(mock)[0].content, "The user refused this call");
        assert(!everythingSent(mock).includes(WEB_SECRET));
      });
    } finally {
      await allowed.close();
      await target.close();
    }
  },
});

Deno.test("e2e: a host rule is matched against the URL's host, not its text", async () => {
  const target = localSite();
  try {
    const attempts: [rule: string, url: string][] = [
      // The rule's text appears in the query.
      ["http://*.docs.example/*", `${target.base}/secret?.docs.example/`],
      // The rule's host appears as userinfo before the real host.
      ["http://docs.example*", `http://docs.example@127.0.0.1:${target.port}/secret`],
      ["*docs.example*", `http://docs.example@127.0.0.1:${target.port}/secret`],
      // A host rule names the host, not a prefix of a longer one.
      ["http://docs.example*", "http://docs.example.evil.test/secret"],
      ["*.docs.example", "http://docs.example.evil.test/secret"],
      // No port in a rule means the scheme's own port, not every service on the host.
      ["http://127.0.0.1/*", `${target.base}/secret`],
    ];
    for (const [rule, url] of attempts) {
      await withAttack(
        [{ toolCalls: [fetchCall(url)] }, { text: "done" }],
        async (sandbox, mock) => {
          const result = await runSkiff(
            ["run", "--json", "--allow", `webfetch(${rule})`, "fetch"],
            sandbox,
          );
          assertEquals(result.code, 3, `${rule} let ${url} through\n${result.stderr}`);
          const [message] = lastToolResults(mock);
          assertStringIncludes(message.content, "denied", `${rule} vs ${url}: ${message.content}`);
          assert(!everythingSent(mock).includes(WEB_SECRET), `${rule} let ${url} reach the secret`);
        },
      );
    }
    assertEquals(target.hits, [], "a URL outside its rule reached the server");
    // Control: a rule naming the host and port lets the same URL through.
    await withAttack([
      { toolCalls: [fetchCall(`${target.base}/secret?.docs.example/`)] },
      { text: "done" },
    ], async (sandbox, mock) => {
      const result = await runSkiff(
        ["run", "--json", "--allow", `webfetch(127.0.0.1:${target.port})`, "fetch"],
        sandbox,
      );
      assertEquals(result.code, 0, result.stderr);
      assertStringIncludes(lastToolResults(mock)[0].content, WEB_SECRET);
    });
  } finally {
    await target.close();
  }
});
