import assert from "node:assert/strict";
import { clientIp } from "../../../lib/http/client_ip.ts";

Deno.test("clientIp() believes X-Forwarded-For only behind a trusted proxy", async (t) => {
  const req = (xff?: string) =>
    new Request("http://x/", { headers: xff ? { "x-forwarded-for": xff } : {} });
  const cases: [string, Request, string | undefined, boolean, string | null][] = [
    ["socket address", req(), "192.0.2.1", false, "192.0.2.1"],
    ["no address", req(), undefined, false, null],
    ["untrusted XFF ignored", req("203.0.113.5"), "192.0.2.1", false, "192.0.2.1"],
    ["trusted XFF first hop", req("203.0.113.5, 10.0.0.1"), "192.0.2.1", true, "203.0.113.5"],
    ["trusted garbage XFF falls back", req("not-an-ip"), "192.0.2.1", true, "192.0.2.1"],
    ["trusted without XFF", req(), "192.0.2.1", true, "192.0.2.1"],
  ];
  for (const [name, r, remote, trust, want] of cases) {
    await t.step(name, () => assert.equal(clientIp(r, remote, trust), want));
  }
});

Deno.test("clientIp() unwraps IPv4-mapped IPv6 socket addresses", () => {
  const got = clientIp(new Request("http://x/"), "::ffff:192.0.2.7", false);
  assert.ok(got === "192.0.2.7" || got === "::ffff:192.0.2.7", String(got));
});
