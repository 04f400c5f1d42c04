// Engram for OpenCode: installed by `engram link opencode` into .opencode/plugins/ (workspace)
// or ~/.config/opencode/plugins/ (global). It asks `engram hook opencode` for memory and hands
// it to the model: a memory pack when a session starts, what changed on each prompt, and the
// pack again inside the compaction summary. Every failure is silent: memory never blocks work.
import { spawn } from "node:child_process";

const HOOK_TIMEOUT_MS = 10000;
// The engram program (and a launcher's arguments), resolved by `engram link` like the MCP entry.
const ENGRAM = ["engram"];

// Run `engram hook opencode` with one event; resolves to the context text ("" on any failure).
// Not exported: OpenCode treats every exported function as a plugin.
function askEngram(payload, cwd) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(ENGRAM[0], [...ENGRAM.slice(1), "hook", "opencode"], { cwd, stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      resolve("");
      return;
    }
    const timer = setTimeout(() => child.kill(), HOOK_TIMEOUT_MS);
    child.on("error", () => {
      clearTimeout(timer);
      resolve("");
    });
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("close", () => {
      clearTimeout(timer);
      try {
        const answer = JSON.parse(out || "{}");
        resolve(typeof answer.context === "string" ? answer.context : "");
      } catch {
        resolve("");
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

function promptText(parts) {
  if (!Array.isArray(parts)) return "";
  return parts
    .filter((part) => part && part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}

export const EngramPlugin = async ({ directory }) => {
  // Context waiting for the next system prompt of its session.
  const pending = new Map();
  const remember = (sessionID, context) => {
    if (sessionID && context) pending.set(sessionID, context);
  };
  const event = (name, sessionID, extra = {}) => ({
    hook_event_name: name,
    session_id: sessionID || "",
    cwd: directory,
    ...extra,
  });

  return {
    event: async ({ event: ev }) => {
      const info = ev && ev.properties && ev.properties.info;
      const sessionID = info && info.id;
      if (ev.type === "session.created" && sessionID) {
        remember(sessionID, await askEngram(event("session.created", sessionID), directory));
      } else if (ev.type === "session.deleted" && sessionID) {
        pending.delete(sessionID);
        await askEngram(event("session.deleted", sessionID), directory);
      }
    },
    "chat.message": async (input, output) => {
      const prompt = promptText(output && output.parts);
      const sessionID = input && input.sessionID;
      if (!prompt || !sessionID) return;
      const context = await askEngram(event("chat.message", sessionID, { prompt }), directory);
      if (context) pending.set(sessionID, [pending.get(sessionID), context].filter(Boolean).join("\n\n"));
    },
    "experimental.chat.system.transform": async (input, output) => {
      const sessionID = input && input.sessionID;
      const context = sessionID && pending.get(sessionID);
      if (context && output && Array.isArray(output.system)) {
        output.system.push(context);
        pending.delete(sessionID);
      }
    },
    "experimental.session.compacting": async (input, output) => {
      const sessionID = input && input.sessionID;
      const context = await askEngram(event("session.compacting", sessionID), directory);
      if (context && output && Array.isArray(output.context)) output.context.push(context);
    },
  };
};

