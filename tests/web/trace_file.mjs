// An independent reader of a trace file (docs/trace-format.md), for the browser tests: the values
// a page shows are checked against the file itself, not against the page's embedded data.
import { readFileSync } from 'node:fs';

export function readTrace(path) {
  const buf = readFileSync(path);
  if (buf.toString('latin1', 0, 8) !== 'LLMTRACE') throw new Error(`${path}: not a trace`);
  const records = [];
  let at = 12;
  while (at < buf.length) {
    const kind = buf.toString('latin1', at, at + 4);
    const jsonBytes = buf.readUInt32LE(at + 4);
    const dataBytes = Number(buf.readBigUInt64LE(at + 8));
    const json = JSON.parse(buf.toString('utf8', at + 16, at + 16 + jsonBytes));
    const data = buf.subarray(at + 16 + jsonBytes, at + 16 + jsonBytes + dataBytes);
    records.push({ kind, json, data });
    at += 16 + jsonBytes + dataBytes;
  }
  const stages = records.filter(r => r.kind === 'STAG').map(r => ({ ...r.json, data: r.data }));
  const end = records.find(r => r.kind === 'END ').json;
  return { meta: records[0].json, stages, end };
}

// A tensor's stored values as numbers (bf16 widened to float, or int32). Values stored once per
// group of `repeat` alike heads (version 5: a GQA model's keys) come back repeated.
export function values(stage, name) {
  const t = stage.tensors.find(t => t.name === name);
  if (!t || !t.values) throw new Error(`stage ${stage.stage}: no values of ${name}`);
  const { encoding, offset, bytes, repeat = 1 } = t.values;
  const stored = [];
  for (let i = offset; i < offset + bytes; i += encoding === 'bf16' ? 2 : 4) {
    if (encoding === 'bf16') {
      const f = Buffer.alloc(4);
      f.writeUInt16LE(stage.data.readUInt16LE(i), 2);
      stored.push(f.readFloatLE(0));
    } else stored.push(stage.data.readInt32LE(i));
  }
  const block = stored.length * repeat / t.shape[0], out = [];
  for (let h = 0; h < t.shape[0]; h++) out.push(...stored.slice(Math.floor(h / repeat) * block, (Math.floor(h / repeat) + 1) * block));
  if (out.length !== t.shape.reduce((a, b) => a * b, 1)) throw new Error(`stage ${stage.stage}: ${name}'s values do not fit its shape`);
  return { shape: t.shape, values: out };
}

export function findStage(trace, key, step, layer = -1) {
  const s = trace.stages.find(s => s.stage === key && s.step === step && s.layer === layer);
  if (!s) throw new Error(`no stage ${key} at step ${step}, layer ${layer}`);
  return s;
}
