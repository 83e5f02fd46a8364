// web/bench-back-to-back.mjs's worker: the module named by ?module= (a folder of build/web) runs
// the bundled model's command ?runs= times in a row, nothing else between, and posts each run's
// prefill and decode tok/s (or the error that stopped it).
const query = new URLSearchParams(self.location.search);
const dir = '../' + query.get('module');
const post = self.postMessage.bind(self);
importScripts(dir + '/llama-walkthrough.js');
(async () => {
  let finished = null;
  // The module reports a run's end as the live page's worker would, by posting `done`.
  self.postMessage = m => { if (m && m.kind === 'done' && finished) finished(JSON.parse(m.text)); };
  const Module = await createLlamaModule({ locateFile: f => dir + '/' + f, mainScriptUrlOrBlob: new URL(dir + '/llama-walkthrough.js', self.location.href).href });
  Module.FS.mkdirTree('/m');
  for (const f of ['consolidated.00.pth', 'params.json', 'tokenizer.model'])
    Module.FS.writeFile('/m/' + f, new Uint8Array(await (await fetch('../model/' + f)).arrayBuffer()));
  const args = JSON.stringify(['--model', '/m', ...JSON.parse(query.get('args'))]);
  const runs = [];
  for (let i = 0; i < Number(query.get('runs')); i++) {
    const r = await new Promise(ok => { finished = ok; Module.start(args, false, false); });
    if (!r.ok) return post({ error: r.error });
    runs.push({ prefill: r.promptTokens / r.prefillSeconds, decode: r.decodeSteps / r.decodeSeconds });
  }
  post({ runs });
})().catch(e => post({ error: String(e) }));
