// The API reference's accessible names (src/http/docs.ts): Swagger UI renders a few controls
// without one (the close button of its dialogs, selects, its logo) and code blocks that scroll
// but cannot be focused. It re-renders
// as it goes, so each new node is named as it appears.
(function () {
  function name(root) {
    root.querySelectorAll('button.close-modal:not([aria-label])').forEach(function (b) {
      b.setAttribute('aria-label', 'Close');
    });
    root.querySelectorAll('select#servers:not([aria-label])').forEach(function (s) {
      s.setAttribute('aria-label', 'Server');
    });
    // A parameter's list of values (API-Version): named after its parameter.
    root.querySelectorAll('tr[data-param-name] select:not([aria-label])').forEach(function (s) {
      s.setAttribute('aria-label', s.closest('tr').getAttribute('data-param-name'));
    });
    // Code blocks scroll sideways: reachable from the keyboard.
    root.querySelectorAll('.highlight-code > pre:not([tabindex])').forEach(function (p) {
      p.setAttribute('tabindex', '0');
    });
    root.querySelectorAll('img:not([alt])').forEach(function (i) {
      i.setAttribute('alt', '');
    });
  }
  new MutationObserver(function () {
    name(document);
  }).observe(document.documentElement, { childList: true, subtree: true });
  name(document);
})();
