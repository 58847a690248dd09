/** toolgate: config → KV → app → Deno.serve, with the demo platform when SEED_DEMO is on. */
import { ConfigError, loadConfig } from "./lib/config.ts";
import { startToolgate } from "./lib/start.ts";
import { serverBaseUrls } from "./lib/servers/urls.ts";

let config;
try {
  config = loadConfig(Deno.env.toObject());
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`toolgate: bad configuration: ${err.message}`);
    Deno.exit(2);
  }
  throw err;
}

const running = await startToolgate(config);
const p = config.platformUrl.origin;
const lines = [
  `toolgate listening on ${running.listenUrl}`,
  `  dashboard:  ${p}/`,
  `  API:        ${p}/api`,
  `  KV:         ${config.kvPath}`,
];
if (running.seed) {
  const demo = serverBaseUrls(config.platformUrl, "demo");
  lines.push(
    `  demo MCP:   ${demo.host}/  (host form; also /v1, /v1.1, /v1.1.1, /v2)`,
    `              ${demo.path}/  (path form)`,
    `  sign in:    ${running.seed.email}` +
      (running.seed.generatedPassword
        ? ` / ${running.seed.generatedPassword}  (generated now, shown once; set DEMO_PASSWORD to choose)`
        : config.demoPassword
        ? " / (DEMO_PASSWORD)"
        : " / (the password printed at the first start; set DEMO_PASSWORD to choose one)"),
  );
}
console.log(lines.join("\n"));

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    await running.close();
    Deno.exit(0);
  });
}
