import { assertEquals } from "../support/assert.ts";
import { allowedEnvNames, childEnv, looksSecret } from "../../src/sandbox/env.ts";

const parent: Record<string, string> = {
  PATH: "/usr/bin",
  HOME: "/home/u",
  LANG: "C.UTF-8",
  OPENAI_API_KEY: "sk-secret",
  GITHUB_TOKEN: "ghp",
  NODE_ENV: "test",
  GIT_AUTHOR_NAME: "Ada",
  DB_PASSWORD: "pw",
};

Deno.test("childEnv passes only the allowlist plus configured names", () => {
  const env = childEnv(["NODE_ENV", "GIT_AUTHOR_NAME"], (name) => parent[name]);
  assertEquals(env, {
    PATH: "/usr/bin",
    HOME: "/home/u",
    LANG: "C.UTF-8",
    NODE_ENV: "test",
    GIT_AUTHOR_NAME: "Ada",
    SKIFF_CHILD: "1",
  });
});

Deno.test("credentials never pass, even when configured by name", () => {
  const env = childEnv(["OPENAI_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD"], (name) => parent[name]);
  assertEquals(Object.keys(env).sort(), ["HOME", "LANG", "PATH", "SKIFF_CHILD"]);
  for (const name of ["OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "NPM_TOKEN", "GH_PAT", "X_AUTH"]) {
    assertEquals(looksSecret(name), true, name);
  }
  assertEquals(looksSecret("GIT_AUTHOR_NAME"), false);
  assertEquals(allowedEnvNames().includes("TMPDIR"), true);
});
