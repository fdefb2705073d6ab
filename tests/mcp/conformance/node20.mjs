// `node --import ./node20.mjs`: registers node20_hooks.mjs (see there).
import { register } from "node:module";
register("./node20_hooks.mjs", import.meta.url);
