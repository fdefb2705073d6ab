// Helpers of the scripted upstreams.

// Splits a string into up to `n` nonempty pieces (stream fragments that cut
// inside tokens, as real servers do).
export function pieces(s, n) {
  if (s.length === 0) return [];
  const size = Math.max(1, Math.ceil(s.length / n));
  const out = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}
