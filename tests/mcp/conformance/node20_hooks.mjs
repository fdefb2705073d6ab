// Loader hook for running @modelcontextprotocol/conformance 0.1.16 on Node 20:
// its bundle imports `globSync` from "fs" (Node 22+), used only by its
// tier-check command. The import is replaced by a stand-in that defers to
// fs.globSync when present. The package itself is not changed.
export async function load(url, context, nextLoad) {
  const r = await nextLoad(url, context);
  if (!url.includes("/@modelcontextprotocol/conformance/dist/") || !r.source) return r;
  let src = r.source.toString();
  if (!src.includes("globSync as o,")) return r;
  src = src.replace("globSync as o,", "").replace(/^#!.*\n/, "");
  src = 'import * as __twFs from "fs";' +
        "const o=(...a)=>__twFs.globSync?__twFs.globSync(...a):[];" + src;
  return { ...r, source: src, shortCircuit: true };
}
