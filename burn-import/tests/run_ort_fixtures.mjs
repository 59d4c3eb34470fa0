// Runs the models of gen_onnx_opset_fixtures.py in ONNX Runtime (npm onnxruntime-node, installed in
// bench/onnxruntime) and writes their outputs: node run_ort_fixtures.mjs request.json result.json.
// request: [{name, model, feeds: {input: {dtype, dims, data}}, outputs: [names]}];
// result: {name: [{dtype, dims, data}]} in the order of `outputs`.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../bench/onnxruntime/package.json", import.meta.url));
const ort = require("onnxruntime-node");

// NumPy dtype names to ONNX Runtime's tensor types and typed arrays; float16 travels as its bit patterns.
const TYPES = {
  float32: ["float32", Float32Array], float64: ["float64", Float64Array], int64: ["int64", BigInt64Array],
  int32: ["int32", Int32Array], int8: ["int8", Int8Array], uint8: ["uint8", Uint8Array], bool: ["bool", Uint8Array],
  float16: ["float16", Uint16Array],
};
const BACK = { float32: "float32", float64: "float64", int64: "int64", int32: "int32", int8: "int8", uint8: "uint8",
               bool: "bool", float16: "float16" };
// A float16 output's bit patterns, whichever array type this onnxruntime-node returns it in.
const bits16 = (d) => (d instanceof Uint16Array ? d : new Uint16Array(d.buffer, d.byteOffset, d.length));

const [reqPath, resPath] = process.argv.slice(2);
const request = JSON.parse(readFileSync(reqPath, "utf8"));
const result = {};
const failed = [];
for (const c of request) {
  let session;
  try {
    session = await ort.InferenceSession.create(c.model, { graphOptimizationLevel: "disabled" });
  } catch (e) {
    failed.push(`${c.name}: ${e.message}`);
    continue;
  }
  const feeds = {};
  for (const [name, t] of Object.entries(c.feeds)) {
    const [type, Arr] = TYPES[t.dtype];
    const data = type === "int64" ? BigInt64Array.from(t.data.map((v) => BigInt(v)))
               : type === "bool" ? Uint8Array.from(t.data.map((v) => (v ? 1 : 0))) : Arr.from(t.data);
    feeds[name] = new ort.Tensor(type, data, t.dims);
  }
  let out;
  try {
    out = await session.run(feeds);
  } catch (e) {
    failed.push(`${c.name}: ${e.message}`);
    continue;
  }
  result[c.name] = c.outputs.map((n) => {
    const t = out[n];
    if (!(t.type in BACK)) throw new Error(`${c.name}: output ${n} has type ${t.type}`);
    const data = t.type === "float16" ? Array.from(bits16(t.data))
               : Array.from(t.data, (v) => (typeof v === "bigint" ? Number(v) : t.type === "bool" ? !!v : v));
    return { dtype: BACK[t.type], dims: t.dims, data };
  });
  console.log(`${c.name}: ${c.outputs.length} output(s)`);
}
if (failed.length) {
  console.error(failed.join("\n"));
  process.exit(1);
}
writeFileSync(resPath, JSON.stringify(result));
