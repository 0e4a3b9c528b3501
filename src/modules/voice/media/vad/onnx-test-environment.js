// The Jest environment of the specs that run onnxruntime-node. Its native code builds its output arrays in Node's own
// realm, and onnxruntime's Tensor checks them with `instanceof`: the spec's realm must use those same typed array
// classes (Jest's node environment already shares ArrayBuffer and Uint8Array the same way).
const { TestEnvironment } = require('jest-environment-node');

const SHARED = [
  'Int8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
];

module.exports = class OnnxTestEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of SHARED) this.global[name] = globalThis[name];
  }
};
