// The benchmark server on the official TypeScript SDK (@modelcontextprotocol/sdk 1.x): the
// same `echo` and `add` as the Rust twins.
//
//   node server.mjs --stdio                 stdio
//   node server.mjs --port 9103             Streamable HTTP on 127.0.0.1:9103/mcp, with
//                                           sessions, plus GET /stats -> {"sessions": n}
//   node server.mjs --port 9103 --json-response
//                                           the same, but POSTs are answered with plain JSON
//                                           (`enableJsonResponse: true`) instead of the SDK's
//                                           default SSE stream
//
// HTTP follows the SDK's stateful pattern: one StreamableHTTPServerTransport and one McpServer
// per session, a map from session id to transport, entries removed when the transport closes
// (DELETE). It runs on node:http directly (no express) and hands the parsed JSON body to the
// transport as `parsedBody`.

import { randomUUID } from "node:crypto";
import http from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** Largest request body read (the SDK's own default bound). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

function usage() {
  console.error("usage: node server.mjs --stdio | --port <n> [--json-response]");
  process.exit(2);
}

function parseArgs(argv) {
  const args = { stdio: false, port: 9103, jsonResponse: false };
  for (let i = 0; i < argv.length; i++) {
    switch (argv[i]) {
      case "--stdio":
        args.stdio = true;
        break;
      case "--port": {
        const port = Number(argv[++i]);
        if (!Number.isInteger(port) || port < 0 || port > 65535) usage();
        args.port = port;
        break;
      }
      case "--json-response":
        args.jsonResponse = true;
        break;
      default:
        usage();
    }
  }
  return args;
}

/** A fresh server with the two benchmark tools. */
function createServer() {
  const server = new McpServer({ name: "tracksuit-bench-ts", version: "0.1.0" });

  server.registerTool(
    "echo",
    {
      description: "Echoes the text.",
      inputSchema: { text: z.string() },
    },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );

  server.registerTool(
    "add",
    {
      description: "Adds two integers.",
      inputSchema: { a: z.number().int(), b: z.number().int() },
      outputSchema: { sum: z.number().int() },
    },
    async ({ a, b }) => {
      const structuredContent = { sum: a + b };
      return {
        content: [{ type: "text", text: JSON.stringify(structuredContent) }],
        structuredContent,
      };
    },
  );

  return server;
}

async function serveStdio() {
  const server = createServer();
  const transport = new StdioServerTransport();
  await server.connect(transport);
}

/** Writes a JSON-RPC error (id null) with an HTTP status. */
function sendJsonRpcError(res, status, code, message) {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/** Reads the whole request body; resolves to a Buffer, or null if it exceeds the bound. */
function readBody(req) {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    if (declared > MAX_BODY_BYTES) {
      req.resume();
      resolve(null);
      return;
    }
    const chunks = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk) => {
      if (over) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        over = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(over ? null : Buffer.concat(chunks, size)));
    req.on("error", reject);
  });
}

function serveHttp(port, jsonResponse) {
  /** Session id -> its transport. */
  const transports = new Map();

  function sessionOf(req) {
    const id = req.headers["mcp-session-id"];
    return typeof id === "string" ? id : undefined;
  }

  async function handlePost(req, res) {
    const raw = await readBody(req);
    if (raw === null) {
      sendJsonRpcError(res, 413, -32000, "Request body too large");
      return;
    }
    let body;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      sendJsonRpcError(res, 400, -32700, "Parse error");
      return;
    }

    const sessionId = sessionOf(req);
    if (sessionId !== undefined) {
      const transport = transports.get(sessionId);
      if (!transport) {
        sendJsonRpcError(res, 404, -32001, "Session not found");
        return;
      }
      await transport.handleRequest(req, res, body);
      return;
    }

    if (!isInitializeRequest(body)) {
      sendJsonRpcError(res, 400, -32000, "Bad Request: no valid session ID provided");
      return;
    }

    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: jsonResponse,
      onsessioninitialized: (id) => {
        transports.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
    };
    const server = createServer();
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /** GET (the standalone SSE stream) and DELETE (end the session). */
  async function handleSessionRequest(req, res) {
    const sessionId = sessionOf(req);
    if (sessionId === undefined) {
      sendJsonRpcError(res, 400, -32000, "Bad Request: no valid session ID provided");
      return;
    }
    const transport = transports.get(sessionId);
    if (!transport) {
      sendJsonRpcError(res, 404, -32001, "Session not found");
      return;
    }
    await transport.handleRequest(req, res);
  }

  async function handle(req, res) {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (path === "/mcp") {
      switch (req.method) {
        case "POST":
          return handlePost(req, res);
        case "GET":
        case "DELETE":
          return handleSessionRequest(req, res);
        default:
          res.writeHead(405, { allow: "GET, POST, DELETE", "content-length": 0 });
          res.end();
          return;
      }
    }
    if (path === "/stats" && req.method === "GET") {
      const body = JSON.stringify({ sessions: transports.size });
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
      return;
    }
    res.writeHead(404, { "content-length": 0 });
    res.end();
  }

  const httpServer = http.createServer(
    {
      // Sockets of a load generator stay open between requests.
      keepAlive: true,
      noDelay: true,
    },
    (req, res) => {
      handle(req, res).catch((err) => {
        console.error("request failed:", err);
        if (!res.headersSent) {
          sendJsonRpcError(res, 500, -32603, "Internal server error");
        } else {
          res.destroy();
        }
      });
    },
  );
  // Idle keep-alive connections stay usable for a minute instead of Node's 5 s default;
  // headersTimeout must exceed keepAliveTimeout or Node may close a reused socket early.
  httpServer.keepAliveTimeout = 60_000;
  httpServer.headersTimeout = 65_000;
  // No per-socket request cap and no overall request timeout: SSE streams and long
  // benchmark runs stay open as long as the client wants.
  httpServer.maxRequestsPerSocket = 0;
  httpServer.requestTimeout = 0;
  httpServer.on("connection", (socket) => {
    socket.setNoDelay(true);
  });

  const shutdown = () => {
    for (const transport of transports.values()) transport.close().catch(() => {});
    httpServer.close();
    httpServer.closeAllConnections();
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);

  httpServer.listen(port, "127.0.0.1", () => {
    const { port: bound } = httpServer.address();
    console.error(
      `listening on http://127.0.0.1:${bound}/mcp (${jsonResponse ? "JSON" : "SSE"} responses)`,
    );
  });
}

const args = parseArgs(process.argv.slice(2));
if (args.stdio) {
  await serveStdio();
} else {
  serveHttp(args.port, args.jsonResponse);
}
