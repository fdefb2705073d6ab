// What every dialect's renderer reads from a canonical turn (mock_upstream.mjs).

// Splits a string into pieces of 1..n characters (deterministic), so SDKs and
// the gateway see arguments and text arrive in fragments, cut inside tokens,
// as they do live.
export function fragments(text, n = 7) {
  const out = [];
  for (let p = 0, k = 0; p < text.length; k++) {
    const len = 1 + ((k * 5 + 3) % n);
    out.push(text.slice(p, p + len));
    p += len;
  }
  return out;
}

// A call's arguments as JSON text (a turn may give them as text or as an object).
export function argsText(call) {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
}

// 'stop' | 'tool_calls' | 'length': the turn's, else by whether it calls tools.
export function finishOf(turn) {
  return turn.finish ?? ((turn.toolCalls ?? []).length ? 'tool_calls' : 'stop');
}

// { input, output, cacheRead?, cacheWrite? }; a turn without usage reports zeros.
export function usageOf(turn) {
  return turn.usage ?? { input: 0, output: 0 };
}
