// The page's first script, in its head: the run's data and drawing code come at the end of the
// file, so a page cut short (a download or copy that stopped) would show an empty skeleton. When
// the document is parsed, the last element (#page-end) says the file arrived whole; without it, or
// when the page's own script did not run (a changed file fails its hash in the CSP), say so.
'use strict';
document.addEventListener('DOMContentLoaded', () => {
  const say = message => {
    const box = document.getElementById('error');
    if (!box || !box.hidden) return;  // the page's script already said what is wrong
    box.textContent = message;
    box.hidden = false;
    document.body.dataset.ready = 'incomplete';
    for (const id of ['header', 'controls', 'main']) { const e = document.getElementById(id); if (e) e.hidden = true; }
  };
  if (!document.getElementById('page-end')) {
    const data = document.getElementById('run-data');
    say('This page is incomplete: the file was cut short while it was downloaded or copied' +
      (data ? ` (it ends ${data.textContent.length.toLocaleString('en')} characters into the run's data)` : ' (before the run\'s data)') +
      '. Download or copy it again.');
  } else if (document.body.dataset.ready !== '1') {
    say('This page\'s script did not run: the file was changed or damaged after it was written (its script no longer ' +
      'matches the hash the page admits), or scripts are off. Export or download it again.');
  }
});
