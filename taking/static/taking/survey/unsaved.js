/*
 * A language switch reloads the page: what the person has answered on it and not yet saved goes with it,
 * through sessionStorage (this tab only), and comes back on the same page in the new language
 * (Survey.unsaved). The stash is read once and removed at the next page load, used or not; without script the
 * switch drops unsaved answers.
 */
(function (Survey) {
  "use strict";
  var page = Survey.page;
  var KEY = "survey-unsaved";
  var MAX_AGE_MS = 10 * 60 * 1000;

  function pagePath(form) {
    return new URL(form.action, window.location.href).pathname;
  }

  // Before switcher (a language switcher form) posts: stash the page's answers.
  function keep(switcher) {
    var form = page.form();
    if (!form) { return; }
    // Back to this page (it may be an earlier one than the furthest reached), not only to where the survey resumes.
    var next = switcher.querySelector('[name="next"]');
    if (next) { next.value = pagePath(form); }
    var entries = [];
    page.answerFields(form).forEach(function (input) {
      if ((input.type === "radio" || input.type === "checkbox") && !input.checked) { return; }
      entries.push([input.name, input.value]);
    });
    try {
      sessionStorage.setItem(KEY, JSON.stringify({ page: pagePath(form), time: Date.now(), entries: entries }));
    } catch (error) { /* storage off or full: the switch goes on without them */ }
  }

  function restore() {
    var kept;
    try {
      kept = JSON.parse(sessionStorage.getItem(KEY) || "null");
      sessionStorage.removeItem(KEY);
    } catch (error) { return; }
    var form = page.form();
    if (!kept || !form || kept.page !== pagePath(form) || !(Date.now() - kept.time < MAX_AGE_MS)) { return; }
    var values = {};
    kept.entries.forEach(function (entry) { (values[entry[0]] = values[entry[0]] || []).push(entry[1]); });
    var changed = false;
    page.answerFields(form).forEach(function (input) {
      var own = values[input.name] || [];
      if (input.type === "radio" || input.type === "checkbox") {
        var checked = own.indexOf(input.value) !== -1;
        changed = changed || checked !== input.checked;
        input.checked = checked;
      } else {
        var value = own.length ? own.shift() : "";
        changed = changed || value !== input.value;
        input.value = value;
      }
    });
    Survey.follow.answers();
    if (changed) { page.say(page.t("kept_unsaved")); }
  }

  Survey.unsaved = { keep: keep, restore: restore };
}(window.Survey = window.Survey || {}));
