// Tests must never collide with a running `npm start`: a test binds port 0 or a port it was handed, and never
// reaches the local stack's default ports, where a developer's own stack may be listening (README: `npm start` in
// one terminal, `npm test` in another). This module makes any listen on, or loopback connect to, one of those ports
// throw, in the test workers (vitest.config.ts `setupFiles`) and in every Node process a test spawns
// (`NODE_OPTIONS=--import`, set in vitest.config.ts `env`). Plain JavaScript, so a spawned `node` loads it as is.
// test/unit/harness/stack-ports.test.ts holds STACK_PORTS equal to the CLI's defaults and proves the guard fires.
import net from "node:net";
import { STACK_PORTS } from "./stack-ports.mjs";

const INSTALLED = Symbol.for("postern.test.stack-ports-guard");
const forbidden = new Set(STACK_PORTS);

/** The port and host of `listen(...)` / `connect(...)` arguments, in any of Node's call shapes. */
function target(args) {
  // net.connect() hands Socket#connect its normalized arguments as one array: [options, callback]
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first)))
    return { port: Number(first), host: typeof args[1] === "string" ? args[1] : undefined };
  if (first !== null && typeof first === "object" && "port" in first)
    return { port: Number(first.port), host: typeof first.host === "string" ? first.host : undefined };
  return undefined;
}

const loopback = (host) =>
  host === undefined || host === "localhost" || host === "::1" || host === "[::1]" || /^127\./.test(host);

function refuse(verb, port) {
  return new Error(
    `test harness: a test tried to ${verb} port ${port}, a default port of the local stack, where \`npm start\` may ` +
      "be running. Bind port 0 (or a port the test was handed) and use the port the started server reports.",
  );
}

if (!globalThis[INSTALLED]) {
  globalThis[INSTALLED] = true;
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function guardedListen(...args) {
    const t = target(args);
    if (t && forbidden.has(t.port)) throw refuse("listen on", t.port);
    return listen.apply(this, args);
  };
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    const t = target(args);
    if (t && forbidden.has(t.port) && loopback(t.host)) throw refuse("connect to", t.port);
    return connect.apply(this, args);
  };
}
