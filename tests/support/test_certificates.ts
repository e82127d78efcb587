/**
 * A throw-away certificate authority and a server certificate it signed for
 * one name, made with openssl, for tests of https: a child process trusts
 * the CA through `DENO_CERT`.
 */
import * as path from "node:path";

/** True when openssl can run here; tests that need it skip loudly otherwise. */
export const hasOpenssl = (() => {
  try {
    return new Deno.Command("openssl", { args: ["version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
})();

async function openssl(args: string[], cwd: string): Promise<void> {
  const result = await new Deno.Command("openssl", { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (!result.success) {
    throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(result.stderr)}`);
  }
}

export interface TestCertificates {
  /** The CA's certificate: `DENO_CERT` for a child that should trust the server. */
  caFile: string;
  cert: string;
  key: string;
}

/** In `dir`: a CA, and a certificate for `name` signed by it. */
export async function testCertificates(dir: string, name: string): Promise<TestCertificates> {
  await openssl([
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "1",
    "-subj",
    "/CN=skiff test ca",
  ], dir);
  await openssl([
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "leaf.key",
    "-out",
    "leaf.csr",
    "-subj",
    `/CN=${name}`,
  ], dir);
  await Deno.writeTextFile(
    path.join(dir, "ext.cnf"),
    `subjectAltName=DNS:${name}\nbasicConstraints=CA:FALSE\n`,
  );
  await openssl([
    "x509",
    "-req",
    "-in",
    "leaf.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "leaf.pem",
    "-days",
    "1",
    "-extfile",
    "ext.cnf",
  ], dir);
  return {
    caFile: path.join(dir, "ca.pem"),
    cert: await Deno.readTextFile(path.join(dir, "leaf.pem")),
    key: await Deno.readTextFile(path.join(dir, "leaf.key")),
  };
}
