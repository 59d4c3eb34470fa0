// Per-node profile of the ONNX Runtime peer: node profile_ort.mjs MODEL.onnx BATCH THREADS ITERS PREFIX.
// Runs ITERS forwards after 3 warm-up ones with enableProfiling; ORT writes PREFIX_<date>.json (a Chrome
// trace with each node's time per run) when the process ends; layer_table.py sets it against the output of
// burn-bench-resnet-layers. Prints the mean seconds per forward (profiling included).
import { createRequire } from "module";
const require = createRequire(import.meta.url);
const ort = require("onnxruntime-node");

const [model, batch, threads, iters, prefix] = process.argv.slice(2);
const session = await ort.InferenceSession.create(model, {
  intraOpNumThreads: Number(threads), interOpNumThreads: 1, executionMode: "sequential",
  graphOptimizationLevel: "all", enableProfiling: true, profileFilePrefix: prefix,
});
const n = Number(batch) * 3 * 224 * 224;
const data = new Float32Array(n);
for (let i = 0; i < n; ++i) data[i] = Math.random() * 2 - 1;
const feeds = { x: new ort.Tensor("float32", data, [Number(batch), 3, 224, 224]) };
for (let i = 0; i < 3; ++i) await session.run(feeds);
const t0 = process.hrtime.bigint();
for (let i = 0; i < Number(iters); ++i) await session.run(feeds);
console.log(JSON.stringify({ mean_s: Number(process.hrtime.bigint() - t0) / 1e9 / Number(iters) }));
session.endProfiling();
