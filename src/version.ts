/** The released version; `deno task compile` stamps nothing else. */
export const VERSION = "0.1.0";
