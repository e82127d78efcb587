/**
 * Which addresses webfetch treats as local: loopback, private, link-local,
 * unique-local, CGNAT, 0.0.0.0, IPv4 written inside IPv6, and the machine's
 * own addresses; public ones are not.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import {
  isLoopbackName,
  localAddressReason,
  parseIpv6,
} from "../../../src/tools/web/_local_address.ts";

Deno.test("loopback, private, link-local, unique-local and their IPv6 forms are local", () => {
  const local = [
    "127.0.0.1",
    "127.8.9.10",
    "0.0.0.0",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "::1",
    "::",
    "[::1]",
    "fe80::1%eth0",
    "fc00::1",
    "fd00:ec2::254",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:a9fe:a9fe",
    "::127.0.0.1",
    "64:ff9b::a9fe:a9fe",
    "2002:7f00:1::",
    "255.255.255.255",
  ];
  for (const address of local) {
    assert(localAddressReason(address) !== null, `${address} should be local`);
  }
  assertEquals(
    localAddressReason("169.254.169.254"),
    "a link-local address (cloud metadata services answer there)",
  );
});

Deno.test("public addresses and names are not local; the machine's own address is", () => {
  for (
    const address of ["8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "example.com", ""]
  ) {
    assertEquals(localAddressReason(address), null, address);
  }
  assertEquals(
    localAddressReason("203.0.113.9", ["203.0.113.9"]),
    "one of this machine's own addresses",
  );
  assertEquals(
    localAddressReason("2001:db8::5", ["2001:db8:0::5"]),
    "one of this machine's own addresses",
  );
});

Deno.test("IPv6 parsing expands :: and a dotted tail; malformed text is no address", () => {
  assertEquals(parseIpv6("::ffff:1.2.3.4")?.slice(10), [255, 255, 1, 2, 3, 4]);
  assertEquals(parseIpv6("1:2:3:4:5:6:7:8")?.length, 16);
  for (const bad of ["1::2::3", "1:2:3:4:5:6:7:8:9", "12345::", "::1.2.3", "abc"]) {
    assertEquals(parseIpv6(bad), null, bad);
  }
});

Deno.test("localhost and names under it are loopback by name", () => {
  for (const name of ["localhost", "LOCALHOST", "localhost.", "app.localhost"]) {
    assert(isLoopbackName(name), name);
  }
  for (const name of ["localhost.example.com", "notlocalhost"]) assert(!isLoopbackName(name), name);
});

Deno.test("behind a proxy: a name skiff cannot resolve is judged by its text, a local answer still counts, nothing is pinned", async () => {
  const { pinnedClient, resolveTarget } = await import("../../../src/tools/web/_fetch_target.ts");
  const { ToolError } = await import("../../../src/tools/tool.ts");
  const signal = new AbortController().signal;
  const unresolvable = () => Promise.reject(new ToolError("failed", "Could not resolve"));
  const intranet = new URL("http://wiki.corp.example/page");
  const byProxy = await resolveTarget(intranet, unresolvable, signal, { proxied: true });
  assertEquals(byProxy, { addresses: [], local: null });
  let refused = false;
  try {
    await resolveTarget(intranet, unresolvable, signal);
  } catch {
    refused = true;
  }
  assert(refused, "without a proxy, a name that does not resolve fails the call");
  const answered = await resolveTarget(intranet, () => Promise.resolve(["10.0.0.7"]), signal, {
    proxied: true,
  });
  assertEquals(
    answered.local,
    "wiki.corp.example resolves to 10.0.0.7, a private (RFC 1918) address",
  );
  const named = await resolveTarget(new URL("http://localhost:9/"), unresolvable, signal, {
    proxied: true,
  });
  assertEquals(named.local, "localhost is a loopback name");
  assertEquals(pinnedClient(intranet, answered, true), undefined);
});
