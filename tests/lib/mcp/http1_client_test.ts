import assert from "node:assert/strict";
import {
  Http1Client,
  type Http1Request,
  UpstreamProtocolError,
} from "../../../lib/mcp/http1_client.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const latin1 = new TextDecoder("latin1");

/** One request as the raw server received it. */
interface RawRequest {
  line: string;
  headers: Map<string, string>;
  head: string;
  body: Uint8Array;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The server side of one accepted connection, with its own read buffer. */
class Peer {
  #buf = new Uint8Array(0);
  #closed = false;

  constructor(readonly conn: Deno.TcpConn) {
    // Each write must leave as its own segment so the client sees the exact splits.
    conn.setNoDelay(true);
  }

  /** Reads one request (head and Content-Length body); null when the client closed first. */
  async readRequest(): Promise<RawRequest | null> {
    for (;;) {
      const end = latin1.decode(this.#buf).indexOf("\r\n\r\n");
      if (end !== -1) {
        const head = latin1.decode(this.#buf.subarray(0, end));
        const [line, ...rest] = head.split("\r\n");
        const headers = new Map<string, string>();
        for (const h of rest) {
          const colon = h.indexOf(":");
          headers.set(h.slice(0, colon).toLowerCase(), h.slice(colon + 1).trim());
        }
        const length = Number(headers.get("content-length") ?? "0");
        if (this.#buf.length >= end + 4 + length) {
          const body = this.#buf.slice(end + 4, end + 4 + length);
          this.#buf = this.#buf.slice(end + 4 + length);
          return { line, headers, head, body };
        }
      }
      const chunk = new Uint8Array(16 * 1024);
      const n = await this.conn.read(chunk);
      if (n === null) {
        if (this.#buf.length === 0) return null;
        throw new Error("request cut short");
      }
      const next = new Uint8Array(this.#buf.length + n);
      next.set(this.#buf);
      next.set(chunk.subarray(0, n), this.#buf.length);
      this.#buf = next;
    }
  }

  /** Writes the parts in order; a number is a pause in ms between writes. */
  async send(...parts: (string | Uint8Array | number)[]): Promise<void> {
    for (const part of parts) {
      if (typeof part === "number") {
        await sleep(part);
        continue;
      }
      const bytes = typeof part === "string" ? encoder.encode(part) : part;
      for (let written = 0; written < bytes.length;) {
        written += await this.conn.write(bytes.subarray(written));
      }
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.conn.close();
    } catch {
      // already closed
    }
  }
}

/**
 * Answers each request on each accepted connection with `respond`; returning "close" closes
 * that connection. Counts connections and records every request.
 */
type Respond = (peer: Peer, req: RawRequest, connIndex: number) => Promise<void | "close">;

class RawServer {
  readonly listener: Deno.TcpListener;
  accepted = 0;
  readonly requests: RawRequest[] = [];
  #peers = new Set<Peer>();
  #tasks: Promise<void>[] = [];
  #loop: Promise<void>;

  constructor(respond: Respond) {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    this.listener = listener;
    this.#loop = (async () => {
      try {
        for await (const conn of listener) {
          const peer = new Peer(conn);
          const index = this.accepted++;
          this.#peers.add(peer);
          this.#tasks.push(this.#serve(peer, index, respond));
        }
      } catch {
        // listener closed
      }
    })();
  }

  async #serve(peer: Peer, index: number, respond: Respond): Promise<void> {
    try {
      for (;;) {
        const req = await peer.readRequest();
        if (req === null) return;
        this.requests.push(req);
        if (await respond(peer, req, index) === "close") return;
      }
    } catch {
      // the client (or close()) cut the connection
    } finally {
      peer.close();
      this.#peers.delete(peer);
    }
  }

  get port(): number {
    return this.listener.addr.port;
  }

  url(path = "/"): URL {
    return new URL(`http://127.0.0.1:${this.port}${path}`);
  }

  async close(): Promise<void> {
    this.listener.close();
    await this.#loop;
    for (const peer of this.#peers) peer.close();
    await Promise.allSettled(this.#tasks);
  }
}

function get(server: RawServer, path = "/"): Http1Request {
  return { method: "GET", url: server.url(path), headers: {}, body: null };
}

/** The whole answer body as bytes, whatever form it came in. */
async function bytesOf(body: ReadableStream<Uint8Array> | Uint8Array | null): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  if (body instanceof Uint8Array) return body;
  return new Uint8Array(await new Response(body).arrayBuffer());
}

async function textOf(body: ReadableStream<Uint8Array> | Uint8Array | null): Promise<string> {
  return decoder.decode(await bytesOf(body));
}

/** A keep-alive answer with a Content-Length body, sent in one write. */
function ok(body: string): string {
  return `HTTP/1.1 200 OK\r\nContent-Length: ${encoder.encode(body).length}\r\n\r\n${body}`;
}

/** Runs `fn` with a fresh client, then closes the client and `server` whatever happens. */
async function withClient(server: RawServer, fn: (client: Http1Client) => Promise<void>) {
  const client = new Http1Client();
  try {
    await fn(client);
  } finally {
    client.close();
    await server.close();
  }
}

Deno.test("Content-Length answer arriving whole is bytes and the connection is reused", async () => {
  const payload = new Uint8Array([0, 1, 2, 255, 13, 10, 13, 10, 65]);
  const server = new RawServer(async (peer) => {
    // Head and body in one write, so both are in the client's first read.
    const head = encoder.encode(
      `HTTP/1.1 201 Created\r\nContent-Length: ${payload.length}\r\nX-A: 1\r\nx-a: 2\r\n\r\n`,
    );
    const whole = new Uint8Array(head.length + payload.length);
    whole.set(head);
    whole.set(payload, head.length);
    await peer.send(whole);
  });
  await withClient(server, async (client) => {
    const a = await client.request(get(server));
    assert.equal(a.status, 201);
    assert.ok(a.body instanceof Uint8Array, "a body in the first read is handed over as bytes");
    assert.deepEqual([...a.body], [...payload]);
    // Repeated header names are joined by ", " under the lower-case name.
    assert.equal(a.headers.get("x-a"), "1, 2");
    const b = await client.request(get(server, "/again"));
    assert.equal(b.status, 201);
    assert.deepEqual([...await bytesOf(b.body)], [...payload]);
    assert.equal(server.accepted, 1);
    assert.deepEqual(server.requests.map((r) => r.line), ["GET / HTTP/1.1", "GET /again HTTP/1.1"]);
  });
});

Deno.test("Content-Length body arriving in pieces streams exactly, then the link is reused", async () => {
  const gate = Promise.withResolvers<void>();
  const server = new RawServer(async (peer, _req, _conn) => {
    if (server.requests.length === 1) {
      // The head's blank line split across writes too.
      await peer.send("HTTP/1.1 200 OK\r\nContent-Le", 3, "ngth: 11\r\n\r", 3, "\n");
      // Body only after the client has the head, so it cannot be in the first read.
      await gate.promise;
      await peer.send("hello", 20, " world");
    } else {
      await peer.send(ok("second"));
    }
  });
  const client = new Http1Client();
  try {
    const a = await client.request(get(server));
    gate.resolve();
    assert.equal(a.status, 200);
    assert.ok(a.body instanceof ReadableStream);
    assert.equal(await textOf(a.body), "hello world");
    const b = await client.request(get(server));
    assert.equal(await textOf(b.body), "second");
    assert.equal(server.accepted, 1);
  } finally {
    gate.resolve();
    client.close();
    await server.close();
  }
});

Deno.test("chunked answer with extensions and trailers split at awkward places", async () => {
  const server = new RawServer(async (peer) => {
    if (server.requests.length === 1) {
      await peer.send(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
        3,
        "5;e",
        3,
        "xt=1\r",
        3,
        "\nhel",
        3,
        "lo\r",
        3,
        "\n1",
        3,
        "a\r\nabc",
        3,
        'defghijklmnopqrstuvwxyz\r\n6 ; name="v"\r\n world',
        3,
        "\r\n0\r\nx-trailer: y",
        3,
        "es\r\n\r",
        3,
        "\n",
      );
    } else {
      await peer.send(ok("next"));
    }
  });
  const client = new Http1Client();
  try {
    const a = await client.request(get(server));
    assert.equal(a.status, 200);
    assert.ok(a.body instanceof ReadableStream);
    assert.equal(await textOf(a.body), "helloabcdefghijklmnopqrstuvwxyz world");
    const b = await client.request(get(server));
    assert.equal(await textOf(b.body), "next");
    assert.equal(server.accepted, 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("SSE over chunked coding: the first event is readable before the rest is sent", async () => {
  const firstRead = Promise.withResolvers<void>();
  const event1 = "data: one\n\n";
  const event2 = "data: two\n\n";
  const server = new RawServer(async (peer) => {
    await peer.send(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
      `${event1.length.toString(16)}\r\n${event1}\r\n`,
    );
    // The rest only once the client has seen the first event: buffering would deadlock here.
    await firstRead.promise;
    await peer.send(`${event2.length.toString(16)}\r\n${event2}\r\n`, 5, "0\r\n\r\n");
  });
  const client = new Http1Client();
  try {
    const a = await client.request(get(server));
    assert.ok(a.body instanceof ReadableStream);
    const reader = a.body.getReader();
    const first = await reader.read();
    assert.equal(first.done, false);
    assert.equal(decoder.decode(first.value), event1);
    firstRead.resolve();
    let rest = "";
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      rest += decoder.decode(r.value);
    }
    assert.equal(rest, event2);
  } finally {
    firstRead.resolve();
    client.close();
    await server.close();
  }
});

Deno.test("close-delimited body runs until the server closes; next request opens a new link", async () => {
  const server = new RawServer(async (peer, _req, conn) => {
    if (conn === 0) {
      await peer.send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n", "part1", 10, "-part2");
      return "close";
    }
    await peer.send(ok("fresh"));
  });
  const client = new Http1Client();
  try {
    const a = await client.request(get(server));
    assert.equal(await textOf(a.body), "part1-part2");
    const b = await client.request(get(server));
    assert.equal(await textOf(b.body), "fresh");
    assert.equal(server.accepted, 2);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("Connection: close in the answer means the next request uses a new link", async () => {
  const server = new RawServer(async (peer, _req, conn) => {
    if (conn === 0) {
      await peer.send("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\nbye");
    } else {
      await peer.send(ok("new"));
    }
  });
  await withClient(server, async (client) => {
    const a = await client.request(get(server));
    assert.equal(await textOf(a.body), "bye");
    const b = await client.request(get(server));
    assert.equal(await textOf(b.body), "new");
    assert.equal(server.accepted, 2);
  });
});

Deno.test("HTTP/1.0 answers are reused only with Connection: keep-alive", async () => {
  const server = new RawServer(async (peer, _req, conn) => {
    if (conn === 0 && server.requests.length === 1) {
      await peer.send("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nka");
    } else {
      await peer.send("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nno");
    }
  });
  await withClient(server, async (client) => {
    assert.equal(await textOf((await client.request(get(server))).body), "ka");
    assert.equal(await textOf((await client.request(get(server))).body), "no");
    assert.equal(await textOf((await client.request(get(server))).body), "no");
    assert.equal(server.accepted, 2);
  });
});

Deno.test("100 Continue before the real answer is skipped", async () => {
  const server = new RawServer(async (peer) => {
    if (server.requests.length === 1) {
      await peer.send("HTTP/1.1 100 Continue\r\n\r\n", 5, ok("real"));
    } else {
      await peer.send("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\n\r\n" + ok("real"));
    }
  });
  await withClient(server, async (client) => {
    const a = await client.request(get(server));
    assert.equal(a.status, 200);
    assert.equal(await textOf(a.body), "real");
    // Interim answers (100, 103) in the same write as the real one, on the reused link.
    const b = await client.request(get(server));
    assert.equal(b.status, 200);
    assert.equal(await textOf(b.body), "real");
    assert.equal(server.accepted, 1);
  });
});

Deno.test("204 and 304 answers have no body and leave the link reusable", async () => {
  const server = new RawServer(async (peer) => {
    const n = server.requests.length;
    if (n === 1) await peer.send("HTTP/1.1 204 No Content\r\n\r\n");
    else if (n === 2) await peer.send('HTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n');
    else await peer.send(ok("after"));
  });
  await withClient(server, async (client) => {
    const a = await client.request(get(server));
    assert.equal(a.status, 204);
    assert.equal(a.body, null);
    const b = await client.request(get(server));
    assert.equal(b.status, 304);
    assert.equal(b.body, null);
    assert.equal(b.headers.get("etag"), '"x"');
    const c = await client.request(get(server));
    assert.equal(await textOf(c.body), "after");
    assert.equal(server.accepted, 1);
  });
});

Deno.test("malformed answers reject with UpstreamProtocolError", async () => {
  const heads = [
    "HELLO\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
    // No blank line ever: the client must give up after 64 KiB rather than buffer forever.
    "HTTP/1.1 200 OK\r\nX-Big: " + "a".repeat(80 * 1024),
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", // closed before the head ended
  ];
  for (const head of heads) {
    const server = new RawServer(async (peer) => {
      await peer.send(head);
      if (head.endsWith("\r\n") && !head.endsWith("\r\n\r\n")) return "close";
    });
    await withClient(server, async (client) => {
      await assert.rejects(client.request(get(server)), UpstreamProtocolError, head.slice(0, 40));
    });
  }
});

Deno.test("bad chunk size line makes the body stream fail", async () => {
  const server = new RawServer(async (peer) => {
    await peer.send(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
      "zz\r\nhi\r\n0\r\n\r\n",
    );
  });
  await withClient(server, async (client) => {
    const a = await client.request(get(server));
    assert.ok(a.body instanceof ReadableStream);
    await assert.rejects(textOf(a.body), UpstreamProtocolError);
  });
});

Deno.test("Content-Length body cut short makes the body stream fail", async () => {
  const gate = Promise.withResolvers<void>();
  const server = new RawServer(async (peer) => {
    await peer.send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n");
    await gate.promise;
    await peer.send("abc");
    return "close";
  });
  const client = new Http1Client();
  try {
    const a = await client.request(get(server));
    gate.resolve();
    await assert.rejects(textOf(a.body), UpstreamProtocolError);
  } finally {
    gate.resolve();
    client.close();
    await server.close();
  }
});

Deno.test("a keep-alive link the server closed meanwhile is retried on a fresh one", async () => {
  const firstClosed = Promise.withResolvers<void>();
  const server = new RawServer(async (peer, _req, conn) => {
    if (conn === 0) {
      await peer.send(ok("one"));
      peer.close();
      firstClosed.resolve();
      return "close";
    }
    await peer.send(ok("two"));
  });
  const client = new Http1Client();
  try {
    const a = await client.request(get(server));
    assert.equal(await textOf(a.body), "one");
    await firstClosed.promise;
    await sleep(10); // let the FIN reach the client's socket
    let links = 0;
    const b = await client.request(get(server, "/2"), () => links++);
    assert.equal(b.status, 200);
    assert.equal(await textOf(b.body), "two");
    assert.equal(links, 2, "the pooled link, then a fresh one");
    assert.equal(server.accepted, 2);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("cancel from onLink rejects a request the server never answers", async () => {
  const server = new RawServer(async () => {
    // never answers
  });
  const client = new Http1Client();
  try {
    let cancel: (() => void) | undefined;
    const pending = client.request(get(server), (c) => cancel = c);
    const timer = setTimeout(() => cancel?.(), 20);
    try {
      await assert.rejects(pending);
    } finally {
      clearTimeout(timer);
    }
    assert.ok(cancel !== undefined);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("request serialization: target, host, content-length, headers and body", async () => {
  const server = new RawServer(async (peer) => {
    await peer.send(ok("ok"));
  });
  await withClient(server, async (client) => {
    const body = new Uint8Array([123, 34, 97, 34, 58, 49, 125, 0, 255, 13, 10]);
    const a = await client.request({
      method: "POST",
      url: server.url("/path?q=1"),
      headers: { "content-type": "application/json", "x-trace": "a b;c=d" },
      body,
    });
    assert.equal(await textOf(a.body), "ok");
    assert.equal(server.requests.length, 1);
    const req = server.requests[0];
    assert.equal(req.line, "POST /path?q=1 HTTP/1.1");
    assert.equal(req.headers.get("host"), `127.0.0.1:${server.port}`);
    assert.equal(req.headers.get("content-length"), String(body.length));
    assert.equal(req.headers.get("content-type"), "application/json");
    assert.equal(req.headers.get("x-trace"), "a b;c=d");
    assert.deepEqual([...req.body], [...body]);

    // Header injection is refused before anything is written or connected.
    await assert.rejects(
      client.request({
        method: "GET",
        url: server.url("/evil"),
        headers: { "x-a": "1\r\nx-injected: 1" },
        body: null,
      }),
      TypeError,
    );
    await assert.rejects(
      client.request({
        method: "GET",
        url: server.url("/evil"),
        headers: { "x-a": "1\n" },
        body: null,
      }),
      TypeError,
    );
    // The pooled link is untouched: the next request is the next thing the server reads.
    const b = await client.request(get(server, "/after"));
    assert.equal(await textOf(b.body), "ok");
    assert.deepEqual(server.requests.map((r) => r.line), [
      "POST /path?q=1 HTTP/1.1",
      "GET /after HTTP/1.1",
    ]);
    assert.equal(server.requests[1].headers.has("x-injected"), false);
    assert.equal(server.accepted, 1);
  });
});

Deno.test("cancelling the body stream mid-way closes the link", async () => {
  const server = new RawServer(async (peer, _req, conn) => {
    if (conn === 0) {
      // First chunk only; the answer never finishes.
      await peer.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n");
      return;
    }
    await peer.send(ok("again"));
  });
  await withClient(server, async (client) => {
    const a = await client.request(get(server));
    assert.ok(a.body instanceof ReadableStream);
    const reader = a.body.getReader();
    const first = await reader.read();
    assert.equal(decoder.decode(first.value), "first");
    await reader.cancel();
    const b = await client.request(get(server));
    assert.equal(await textOf(b.body), "again");
    assert.equal(server.accepted, 2);
  });
});

Deno.test("HEAD answer with Content-Length has no body and the link is reused", async () => {
  const server = new RawServer(async (peer) => {
    if (server.requests.length === 1) {
      await peer.send("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n");
    } else {
      await peer.send(ok("body"));
    }
  });
  await withClient(server, async (client) => {
    const a = await client.request({ ...get(server), method: "HEAD" });
    assert.equal(a.status, 200);
    assert.equal(a.body, null);
    assert.equal(a.headers.get("content-length"), "1234");
    assert.equal(await textOf((await client.request(get(server))).body), "body");
    assert.equal(server.accepted, 1);
  });
});

// The limit holds for a head that arrives complete in one read, not only for one still growing.
Deno.test({
  name: "a complete answer head over 64 KiB is refused",
  fn: async () => {
    const server = new RawServer(async (peer) => {
      await peer.send(
        "HTTP/1.1 200 OK\r\nX-Big: " + "a".repeat(100 * 1024) + "\r\nContent-Length: 0\r\n\r\n",
      );
    });
    await withClient(server, async (client) => {
      await assert.rejects(client.request(get(server)), UpstreamProtocolError);
    });
  },
});

Deno.test("https upstreams: TLS with certificate checks, and the link is kept alive", async () => {
  const tls = new URL("../../fixtures/tls/", import.meta.url);
  const read = (name: string) => Deno.readTextFile(new URL(name, tls));
  const [cert, key, ca] = await Promise.all([
    read("server.pem"),
    read("server.key"),
    read("ca.pem"),
  ]);
  const peers: number[] = [];
  const server = Deno.serve({
    port: 0,
    hostname: "127.0.0.1",
    cert,
    key,
    onListen: () => {},
  }, async (req, info) => {
    peers.push((info.remoteAddr as Deno.NetAddr).port);
    return Response.json({ path: new URL(req.url).pathname, body: await req.text() });
  });
  const url = new URL(`https://127.0.0.1:${server.addr.port}/mcp`);
  const body = new TextEncoder().encode('{"jsonrpc":"2.0"}');
  const trusting = new Http1Client({ caCerts: [ca] });
  const untrusting = new Http1Client();
  try {
    for (let i = 0; i < 2; i++) {
      const res = await trusting.request({ method: "POST", url, headers: {}, body });
      assert.equal(res.status, 200);
      assert.deepEqual(JSON.parse(await textOf(res.body)), {
        path: "/mcp",
        body: '{"jsonrpc":"2.0"}',
      });
    }
    assert.equal(peers.length, 2);
    assert.equal(peers[0], peers[1], "the second request reuses the first TLS connection");
    // A certificate the client does not trust is refused.
    await assert.rejects(untrusting.request({ method: "POST", url, headers: {}, body }));
  } finally {
    trusting.close();
    untrusting.close();
    await server.shutdown();
  }
});
