/**
 * webfetch patterns are read as `[scheme://]host[:port][/path]` and each part
 * is matched against the parsed URL, so a URL's query, userinfo or a longer
 * host name cannot pass for the host a rule names.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { parseUrlPattern, urlPatternMatch } from "../../src/permission/url_pattern.ts";

function assertMatches(pattern: string, urls: string[]): void {
  for (const url of urls) assert(urlPatternMatch(pattern, url), `${pattern} should match ${url}`);
}

function assertRejects(pattern: string, urls: string[]): void {
  for (const url of urls) assert(!urlPatternMatch(pattern, url), `${pattern} matched ${url}`);
}

Deno.test("a host pattern matches the parsed host only, never the URL's text", () => {
  assertRejects("http://*.docs.example/*", [
    "http://127.0.0.1:8080/x?.docs.example/",
    "http://127.0.0.1/x#.docs.example/",
    "http://evil.test/a.docs.example/",
  ]);
  assertRejects("http://docs.example*", [
    "http://docs.example@127.0.0.1:8080/",
    "http://docs.example:pw@127.0.0.1/",
    "http://docs.example.evil.test/",
  ]);
  assertRejects("*docs.example*", ["http://docs.example@127.0.0.1/", "http://x.test/docs.example"]);
  assertRejects("*.docs.example", [
    "http://docs.example.evil.test/",
    "https://evildocs.example/",
    "https://docs.example/",
  ]);
  assertRejects("docs.example", ["https://docs.example.evil.test/", "https://a.docs.example/"]);
  assertMatches("http://*.docs.example/*", ["http://a.docs.example/x", "http://a.b.docs.example/"]);
  assertMatches("*.docs.example", ["https://api.docs.example/v1?x=1", "http://A.DOCS.EXAMPLE/"]);
  assertMatches("http://docs.example*", ["http://docs.example/", "http://docs.examples/page"]);
  assertMatches("docs.example", ["https://docs.example/a/b?c", "http://docs.example"]);
});

Deno.test("scheme, port and path are matched separately", () => {
  // No scheme: http or https. No port: the scheme's own port. No path: any path.
  assertMatches("localhost", ["http://localhost/", "https://localhost/x", "http://localhost:80/"]);
  assertRejects("localhost", [
    "http://localhost:8080/",
    "https://localhost:80/",
    "ftp://localhost/",
  ]);
  assertMatches("localhost:*", ["http://localhost:8080/", "https://localhost/"]);
  assertMatches("http://127.0.0.1:8080/*", ["http://127.0.0.1:8080/a?b"]);
  assertRejects("http://127.0.0.1:8080/*", ["https://127.0.0.1:8080/a", "http://127.0.0.1:8081/"]);
  assertRejects("https://docs.example/api/*", [
    "https://docs.example/apix",
    "https://docs.example/other?/api/",
    "https://docs.example/api/../secret",
  ]);
  assertMatches("https://docs.example/api/*", ["https://docs.example/api/v1?page=2"]);
  // `?` is literal: it starts a query, it is not a wildcard.
  assertMatches("https://x.test/page?id=*", ["https://x.test/page?id=7"]);
  assertRejects("https://x.test/page?id=*", ["https://x.test/pageXid=7"]);
  assertMatches("http*://x.test", ["http://x.test/", "https://x.test/"]);
});

Deno.test("literal hosts are compared as the URL parser writes them", () => {
  assertMatches("http://127.0.0.1/*", ["http://2130706433/", "http://0x7f.0.0.1/x"]);
  assertMatches("http://0x7f.1/*", ["http://127.0.0.1/"]);
  assertMatches("[::1]:8080", ["http://[::1]:8080/"]);
  assertRejects("[::1]:8080", ["http://127.0.0.1:8080/"]);
});

Deno.test("`*` matches every URL; a pattern that is not a URL pattern matches none", () => {
  assertMatches("*", ["https://anything.test/", "not a url"]);
  assertRejects("docs.example", ["not a url"]);
  assertEquals(parseUrlPattern("user@docs.example"), null);
  assertEquals(parseUrlPattern("docs.example:eighty"), null);
  assertRejects("user@docs.example", ["http://user@docs.example/"]);
  assertEquals(parseUrlPattern("https://*.docs.example:8443/api/*"), {
    scheme: "https",
    host: "*.docs.example",
    port: "8443",
    path: "/api/*",
  });
});
