// The live page's batch, patch and tokenize commands: typed into "More options" (or opened from a
// chapter's Try-it), run by the worker as llama-walkthrough runs them (web/module/live_views.h).
// batch and patch are shown with the run page's Batch and Patching panels, the ones export-html
// draws for a batch or patch trace; tokenize is text only. The output box shows what the CLI
// prints for the same command. live_page.js hands the
// worker's messages here first (onMessage); the rest of a run's life (Run, Stop, Save) is its.
'use strict';

const LiveViews = (() => {
  let awaitingPage = false;  // a command's result came; its page data is on the way

  const PANEL = { batch: 'batch-panel', patch: 'patch-panel' };
  // Two of the chapters' commands (chapters 16 and 20), to start from.
  const EXAMPLES = {
    batch: 'batch -p "And God said" -p "In the beginning" -p "The LORD is my shepherd" --parallel 2 -n 12',
    patch: 'patch --clean "And Moses went unto Aaron. And Aaron said unto" --corrupt "And Joseph went unto Aaron. And Aaron said unto" ' +
           '--answer " Moses" --wrong " Joseph"',
  };

  function summary(r) {
    const where = `in this browser tab, the ${live.variant === 'threads' ? 'threaded' : 'single-threaded'} WebAssembly build`;
    return r.view === 'batch'
      ? `Batch of ${r.sequences} sequences: ${r.generatedTokens} tokens generated in ${r.passes} llama_decode calls, ${r.seconds.toFixed(2)} s ` +
        `(${where}). The Batch panel shows each ubatch, the KV cells it was written to and its mask; step through the stages to follow them.`
      : `Activation patching: ${r.layers} layers x ${r.columns} ${r.columns === 1 ? 'column' : 'columns'} in ${r.seconds.toFixed(2)} s (${where}). ` +
        'The Patching heatmap shows the share recovered; a cell opens that stage in the clean run, the corrupted run beside it.';
  }

  async function show(data) {
    const r = live.result;
    await fillRunView();
    $('run-view').hidden = false;
    $('output').textContent = r.report;
    $('summary').textContent = summary(r);
    history.replaceState(null, '', location.pathname + location.search);
    RunPage.show(data, {});
    $(PANEL[r.view]).scrollIntoView({ block: 'start' });
    document.body.dataset.run = 'done';
    document.body.dataset.view = r.view;
    document.body.dataset.revealed = String(data.stages.length);
    document.body.dataset.held = '0';
    setRunning(false);
  }

  // A command that records nothing (tokenize): its text, no panels.
  function showText(r) {
    live.shown = false;
    live.pending = null;
    $('run-view').hidden = true;
    $('output').textContent = r.report;
    $('summary').textContent = 'The model\'s tokenizer, in this browser tab: what llama-walkthrough prints for the same command.';
    document.body.dataset.run = 'done';
    document.body.dataset.view = r.view;
    setRunning(false);
  }

  // True when the message was a view command's (then handled here).
  function onMessage(m) {
    if (m.kind === 'progress') {
      $('summary').textContent = m.text;
      return true;
    }
    if (m.kind === 'done' && !live.restart) {
      const r = JSON.parse(m.text);
      if (!r.ok || !r.view) return false;  // a run's, or an error, as a run's
      live.held = null;
      live.result = r;
      if (!r.recorded) {
        showText(r);
        return true;
      }
      awaitingPage = true;
      live.worker.postMessage({ cmd: 'pageData' });
      return true;
    }
    if (m.kind === 'page' && awaitingPage) {
      awaitingPage = false;
      live.pending = null;
      const p = JSON.parse(m.text);
      if (!p.ok) { setRunning(false); showLiveError(p.error); return true; }
      let run;
      try {
        run = new RunData(p.data);  // the whole run as one part, as an exported page holds it
      } catch (e) {
        setRunning(false);
        showLiveError('the run data could not be read: ' + e.message);
        return true;
      }
      live.limit = live.total = run.stages.length;  // recorded whole: every stage is there to step through
      show(run);
      return true;
    }
    return false;
  }

  // The example buttons put a chapter's command in "More options".
  for (const [view, command] of Object.entries(EXAMPLES)) {
    $('example-' + view).onclick = () => {
      $('extra').value = command;
      $('extra').focus();
    };
  }
  document.body.dataset.view = '';
  return { onMessage };
})();
