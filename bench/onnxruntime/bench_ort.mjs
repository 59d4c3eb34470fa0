// ONNX Runtime (npm onnxruntime-node) peer of the ResNet and RoBERTa inference cases: node bench_ort.mjs
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
// A torchvision model takes "x", [batch, 3, 224, 224]; RoBERTa (export_roberta.py) takes "input_ids"
// and "attention_mask", int64 [batch, 128] (random ids in [3, 50000), no padding).
function feedsFor(inputNames) {
  if (inputNames.includes("input_ids")) {
    const n = Number(batch) * 128;
    const ids = new BigInt64Array(n), mask = new BigInt64Array(n);
    for (let i = 0; i < n; ++i) {
      ids[i] = BigInt(3 + Math.floor(Math.random() * 49997));
      mask[i] = 1n;
    }
    return { input_ids: new ort.Tensor("int64", ids, [Number(batch), 128]),
             attention_mask: new ort.Tensor("int64", mask, [Number(batch), 128]) };
  }
  const n = Number(batch) * 3 * 224 * 224;
  const data = new Float32Array(n);
  for (let i = 0; i < n; ++i) data[i] = Math.random() * 2 - 1;
  return { x: new ort.Tensor("float32", data, [Number(batch), 3, 224, 224]) };
}
const feeds = feedsFor(session.inputNames);
for (let i = 0; i < 3; ++i) await session.run(feeds);
const times = [];
for (let r = 0; r < Number(reps); ++r) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < Number(iters); ++i) await session.run(feeds);
  times.push(Number(process.hrtime.bigint() - t0) / 1e9 / Number(iters));
}
console.log(JSON.stringify({ times_s: times }));
