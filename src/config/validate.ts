/**
 * Checking a config value against its zod schema: the parsed value on
 * success, otherwise a `ConfigError` whose problems are written in plain
 * words by `describeIssues` (config/errors.ts).
 */
import type * as z from "zod";
import { ConfigError, describeIssues } from "./errors.ts";

/** Validate `data` against `schema`; on failure throw a `ConfigError` naming `source`. */
export function validateConfig<S extends z.ZodType>(
  schema: S,
  data: unknown,
  source: string,
): z.infer<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw new ConfigError(source, describeIssues(schema, data, result.error.issues));
}
