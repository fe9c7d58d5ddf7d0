// Progressive enhancement only: every page works without this file.
// Copy buttons: <button data-copy="element-id" hidden> are shown and copy that element's text.
// What happened is said in a polite live region next to the button (the button's own text
// changes too), so a screen reader announces "Copied" without moving focus.
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  const status = document.createElement('span');
  status.className = 'sr-only';
  status.setAttribute('aria-live', 'polite');
  status.dataset.copyStatus = button.dataset.copy;
  button.after(status);
  let timer;
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      button.textContent = 'Copied';
      status.textContent = 'Copied to the clipboard';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = 'Selected: press Ctrl+C';
      status.textContent = 'Selected: press Ctrl+C to copy';
    }
    clearTimeout(timer);
    timer = setTimeout(() => {
      button.textContent = 'Copy';
      status.textContent = '';
    }, 4000);
  });
}
// The live/test switch is a link styled as a switch: Space toggles it too, as a switch should.
for (const control of document.querySelectorAll('a[role="switch"]')) {
  control.addEventListener('keydown', (event) => {
    if (event.key === ' ') {
      event.preventDefault();
      control.click();
    }
  });
}
