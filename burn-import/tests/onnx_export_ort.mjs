// Runs an ONNX model in ONNX Runtime (npm onnxruntime-node, installed by bench/onnxruntime) on inputs
// given as JSON and prints the outputs as JSON; gen_onnx_export_fixtures.py drives it.
//   node onnx_export_ort.mjs MODEL.onnx INPUTS.json > OUTPUTS.json
// INPUTS.json: {"name": {"dtype": "float32"|"int64", "shape": [...], "values": [...]}, ...}
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../bench/onnxruntime/package.json'));
const ort = require('onnxruntime-node');

const [model, inputsPath] = process.argv.slice(2);
const given = JSON.parse(readFileSync(inputsPath, 'utf8'));
const feeds = {};
for (const [name, t] of Object.entries(given)) {
  const data = t.dtype === 'int64' ? BigInt64Array.from(t.values.map((v) => BigInt(v))) : Float32Array.from(t.values);
  feeds[name] = new ort.Tensor(t.dtype, data, t.shape);
}
const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: 'disabled' });
const results = await session.run(feeds);
const out = { version: ort.env.versions?.common ?? 'unknown' , outputs: {} };
for (const [name, t] of Object.entries(results)) out.outputs[name] = { shape: t.dims, values: Array.from(t.data, Number) };
process.stdout.write(JSON.stringify(out));
