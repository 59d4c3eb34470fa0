// Runs one model in ONNX Runtime (npm onnxruntime-node) over several feed sets for quantize_onnx.py: node run_ort.mjs
// REQUEST.json. request: {model, optimize, outputs (names; null: all), sets: [{input: {dtype, dims, file}}], ranges,
// out}. With `ranges` it prints {output: [min, max]} over every set (the calibration); otherwise it writes each
// set's outputs raw to out/SET_OUTPUT.bin and prints [[{dtype, dims}]] in the order of the sets and outputs.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const ort = require("onnxruntime-node");

const TYPES = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array, int8: Int8Array, uint8: Uint8Array };
const req = JSON.parse(readFileSync(process.argv[2], "utf8"));
const session = await ort.InferenceSession.create(req.model, {
  intraOpNumThreads: 2, interOpNumThreads: 1, executionMode: "sequential",
  graphOptimizationLevel: req.optimize ? "all" : "disabled",
});
const names = req.outputs ?? session.outputNames;
const ranges = {}, written = [];
for (const [i, set] of req.sets.entries()) {
  const feeds = {};
  for (const [name, t] of Object.entries(set)) {
    const buf = readFileSync(t.file);  // copied out: a Buffer's offset need not suit the typed array
    const bytes = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    feeds[name] = new ort.Tensor(t.dtype, new TYPES[t.dtype](bytes), t.dims);
  }
  const out = await session.run(feeds, names);
  if (req.ranges) {
    for (const n of names) {
      let lo = Infinity, hi = -Infinity;
      for (const v of out[n].data) {
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      const r = ranges[n] ?? [Infinity, -Infinity];
      ranges[n] = [Math.min(r[0], lo), Math.max(r[1], hi)];
    }
  } else {
    written.push(names.map((n, k) => {
      const t = out[n];
      writeFileSync(`${req.out}/${i}_${k}.bin`, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
      return { dtype: t.type, dims: t.dims };
    }));
  }
}
console.log(JSON.stringify(req.ranges ? ranges : written));
