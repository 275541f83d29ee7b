/*
 * Survey taking without page reloads. Without JavaScript the same forms post
 * normally; the script only improves on them. It is classic scripts sharing
 * one namespace object (window.Survey), loaded in this order by take.html's
 * {% compress js %} block: one file when compressed, one each otherwise.
 *  - survey/rules.js: the rule language, evaluated as surveys/rules.py does;
 *  - survey/page.js: the page's messages and the names its form posts, as
 *    the server hands them over (the script spells none of them);
 *  - survey/network.js: requests, and the one retry with backoff;
 *  - survey/summary.js: the server's summary markup, filled;
 *  - survey/follow.js: questions shown and hidden, "Page X of Y" and the
 *    forward button, as the person answers;
 *  - survey/saving.js: a page saved by Ajax, the next one swapped in;
 *  - survey/idle.js: the idle warning and logout;
 *  - survey/unsaved.js: unsaved answers kept across a language switch;
 *  - this file, last: takes over the page once the others are loaded.
 */
(function (Survey) {
  "use strict";
  var page = Survey.page;
  if (!page || !page.ready || !window.fetch || !window.FormData || !("content" in document.createElement("template"))) {
    return;
  }
  var container = page.container;

  container.addEventListener("change", Survey.follow.answers);
  container.addEventListener("input", Survey.follow.answers);

  container.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList.contains("survey-form")) { return; }
    event.preventDefault();
    Survey.saving.submit(form, event.submitter);
  });

  // Links to other pages (from the missing-answers summary) load in place.
  container.addEventListener("click", function (event) {
    var link = event.target.closest("a.page-link");
    if (!link || Survey.saving.isBusy()) { return; }
    event.preventDefault();
    Survey.saving.loadPage(link.getAttribute("href"), true);
  });

  window.addEventListener("popstate", function (event) {
    if (event.state && event.state.url) { Survey.saving.loadPage(event.state.url, false); }
  });
  history.replaceState({ url: page.form().action }, "", window.location.href);

  document.querySelectorAll("form.language-switcher").forEach(function (switcher) {
    switcher.addEventListener("submit", function () { Survey.unsaved.keep(switcher); });
  });

  Survey.follow.answers();
  Survey.unsaved.restore();
  Survey.idle.heard();
  // The page's buttons are this script's from here on (a test waits for it before clicking).
  container.dataset.enhanced = "true";
}(window.Survey = window.Survey || {}));
