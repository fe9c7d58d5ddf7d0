// Progressive enhancement only: every page works without this file.
// Copy buttons: <button data-copy="element-id" hidden> are shown and copy that element's text.
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    if (!source) return;
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      button.textContent = 'Copied';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = 'Selected: press Ctrl+C';
    }
    setTimeout(() => { button.textContent = 'Copy'; }, 4000);
  });
}
// Reveal buttons: <button data-reveal="element-id"> toggles a hidden secret.
for (const button of document.querySelectorAll('button[data-reveal]')) {
  button.hidden = false;
  button.addEventListener('click', () => {
    const target = document.getElementById(button.dataset.reveal);
    if (!target) return;
    target.hidden = !target.hidden;
    button.setAttribute('aria-expanded', String(!target.hidden));
    button.textContent = target.hidden ? 'Reveal' : 'Hide';
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
