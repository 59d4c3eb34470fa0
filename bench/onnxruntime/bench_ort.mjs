// ONNX Runtime (npm onnxruntime-node) peer of the nn_resnet18_infer cases: node bench_ort.mjs
// MODEL.onnx BATCH THREADS ITERS REPS. Prints {"times_s": [...]}: seconds per iteration of each
// repetition, after a warm-up, the same protocol as the burn and PyTorch sides.
import { createRequire } from "module";
const require = createRequire(import.meta.url);
const ort = require("onnxruntime-node");

const [model, batch, threads, iters, reps] = process.argv.slice(2);
const session = await ort.InferenceSession.create(model, {
  intraOpNumThreads: Number(threads), interOpNumThreads: 1, executionMode: "sequential",
  graphOptimizationLevel: "all",
});
const n = Number(batch) * 3 * 224 * 224;
const data = new Float32Array(n);
for (let i = 0; i < n; ++i) data[i] = Math.random() * 2 - 1;
const feeds = { x: new ort.Tensor("float32", data, [Number(batch), 3, 224, 224]) };
for (let i = 0; i < 3; ++i) await session.run(feeds);
const times = [];
for (let r = 0; r < Number(reps); ++r) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < Number(iters); ++i) await session.run(feeds);
  times.push(Number(process.hrtime.bigint() - t0) / 1e9 / Number(iters));
}
console.log(JSON.stringify({ times_s: times }));
