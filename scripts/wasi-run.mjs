// Runs a WebAssembly program built for wasm32-wasip1 under Node.js's WASI,
// as cargo's runner for that target (scripts/test.sh sets
// CARGO_TARGET_WASM32_WASIP1_RUNNER to `node --single-threaded <this file>`;
// see there why single-threaded):
//
//   node --single-threaded scripts/wasi-run.mjs program.wasm [args...]
//
// The program gets its arguments and the environment (UTF8GUARD_KERNEL,
// for one), and the directories named in WASI_PREOPENS (`a:b:c`) under
// their own paths; its exit status is the process's.
import { readFile } from "node:fs/promises";
import { argv, env, exit } from "node:process";
import { WASI } from "node:wasi";

const [program, ...args] = argv.slice(2);
if (!program) {
  console.error("usage: node wasi-run.mjs program.wasm [args...]");
  exit(2);
}
const preopens = {};
for (const dir of (env.WASI_PREOPENS || "").split(":").filter(Boolean)) {
  preopens[dir] = dir;
}
const wasi = new WASI({ version: "preview1", args: [program, ...args], env, preopens, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(program));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
exit(wasi.start(instance));
